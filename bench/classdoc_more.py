"""Ten more classes for `python -m bench classdoc`, each in a module with a docstring of its own (the one the
small model repeated as the class's). The first five chose the words a docstring is asked again with
(steer_tui.edits.class_doc.saying_what); the last five were written after that and only checked it (held out)."""

BANK = '''"""Bank accounts."""


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
'''
VECTOR = '''"""Vector math utilities."""

import math


class Vector2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vector2(self.x + other.x, self.y + other.y)

    def length(self):
        return math.hypot(self.x, self.y)
'''
LEXER = '''"""A tiny tokenizer."""

import re

TOKEN = re.compile(r"\\s*(\\d+|\\w+|.)")


class Lexer:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def next(self):
        m = TOKEN.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group(1)
'''
EVENTS = '''"""Event dispatch."""

from collections import defaultdict


class EventBus:
    def __init__(self):
        self.handlers = defaultdict(list)

    def subscribe(self, name, handler):
        self.handlers[name].append(handler)

    def publish(self, name, *args):
        for handler in self.handlers[name]:
            handler(*args)
'''
RETRY = '''"""Retry helpers."""

import random


class Backoff:
    def __init__(self, base=0.5, cap=30.0):
        self.base = base
        self.cap = cap
        self.attempt = 0

    def next_delay(self):
        self.attempt += 1
        return min(self.cap, self.base * 2 ** self.attempt) * random.random()
'''
CART = '''"""Shopping cart logic."""


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, sku, qty=1):
        self.lines.append((sku, qty))

    def count(self):
        return sum(q for _, q in self.lines)
'''
TEMP = '''"""Unit conversions for the weather station."""


class Temperature:
    def __init__(self, celsius):
        self.celsius = celsius

    def fahrenheit(self):
        return self.celsius * 9 / 5 + 32
'''
GRAPH = '''"""Graph algorithms."""

from collections import deque


class Graph:
    def __init__(self):
        self.edges = {}

    def connect(self, a, b):
        self.edges.setdefault(a, set()).add(b)
        self.edges.setdefault(b, set()).add(a)

    def reachable(self, start):
        seen, todo = {start}, deque([start])
        while todo:
            for n in self.edges.get(todo.popleft(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen
'''
LOGGER = '''"""Logging setup for scripts."""

import sys


class Logger:
    def __init__(self, name, stream=sys.stderr):
        self.name = name
        self.stream = stream

    def info(self, msg):
        print(f"[{self.name}] {msg}", file=self.stream)
'''
RATE = '''"""Rate limiting."""

import time


class TokenBucket:
    def __init__(self, rate, burst):
        self.rate = rate
        self.tokens = burst
        self.burst = burst
        self.last = time.monotonic()

    def take(self):
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
'''
CASES = [  # (file name, source, class, held out)
    ("bank.py", BANK, "Account", False), ("vector.py", VECTOR, "Vector2", False), ("lexer.py", LEXER, "Lexer", False),
    ("events.py", EVENTS, "EventBus", False), ("retry.py", RETRY, "Backoff", False),
    ("cart.py", CART, "Cart", True), ("temperature.py", TEMP, "Temperature", True), ("graph.py", GRAPH, "Graph", True),
    ("logger.py", LOGGER, "Logger", True), ("rate.py", RATE, "TokenBucket", True),
]
