"""Class docstrings asked alone: `steer edit FILE -m "add a docstring to the X class"` on ten classes.

A case passes when the class gains a docstring and nothing else in the file changes
(bench.redirect.Check: every other definition and the module's own code as they were); the table
also says where the docstring repeats the module's (whole, or as its first line). Seven classes
are the ones the change for these requests was looked at with (steer_tui/edits/class_doc.py); three
(Timer, LRUCache, Matrix) were written after it and never tuned on; ten more are in
bench/classdoc_more.py (five held out). Each case is one real
`steer edit` run with the embedded model, in a fresh temporary directory.

`python -m bench classdoc [--only NAME,...]`. Needs the `local` extra.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.classdoc_more import CASES as MORE
from bench.redirect import INVENTORY, RECT, STACK, Check
from bench.table import print_table
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

SHAPES = '''"""Shapes and helpers."""

import math


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return math.pi * self.radius ** 2

    def grow(self, by):
        self.radius += by


def unit():
    return Circle(1)
'''


QUEUE = '''import collections


class Queue:
    def __init__(self):
        self.items = collections.deque()

    def put(self, item):
        self.items.append(item)

    def get(self):
        return self.items.popleft()
'''
CONFIG = '''"""Settings for the app."""

import json

DEFAULTS = {"debug": False}


class Config(dict):
    path = "config.json"

    def load(self):
        with open(self.path) as f:
            self.update(json.load(f))

    def save(self):
        with open(self.path, "w") as f:
            json.dump(self, f)
'''


TIMER = '''"""Timing helpers."""

import time


class Timer:
    def __init__(self):
        self.started = None
        self.total = 0.0

    def start(self):
        self.started = time.perf_counter()

    def stop(self):
        self.total += time.perf_counter() - self.started
        self.started = None
'''
CACHE = '''"""A small cache."""

from collections import OrderedDict


class LRUCache:
    def __init__(self, size):
        self.size = size
        self.data = OrderedDict()

    def get(self, key):
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.size:
            self.data.popitem(last=False)
'''
MATRIX = '''"""Matrices as lists of rows."""


def zeros(n, m):
    return Matrix([[0] * m for _ in range(n)])


class Matrix:
    def __init__(self, rows):
        self.rows = rows

    def __add__(self, other):
        return Matrix([[a + b for a, b in zip(r, s)] for r, s in zip(self.rows, other.rows)])

    def transpose(self):
        return Matrix([list(c) for c in zip(*self.rows)])
'''

CASES = [  # (file name, source, class, held out)
    ("stack.py", STACK, "Stack", False), ("rect.py", RECT, "Rect", False), ("inventory.py", INVENTORY, "Inventory", False),
    ("inventory.py", INVENTORY, "Item", False), ("shapes.py", SHAPES, "Circle", False), ("queue.py", QUEUE, "Queue", False),
    ("config.py", CONFIG, "Config", False), ("timer.py", TIMER, "Timer", True), ("cache.py", CACHE, "LRUCache", True),
    ("matrix.py", MATRIX, "Matrix", True),
] + MORE


def _docstring(text: str, name: str) -> str | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    return next((ast.get_docstring(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name), None)


def run_case(fname: str, source: str, name: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fname
        path.write_text(source, encoding="utf-8")
        t0 = time.perf_counter()
        done = subprocess.run([*STEER, "edit", str(path), "-m", f"add a docstring to the {name} class",
                               "--json"], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        try:
            result = json.loads(done.stdout)
        except ValueError:
            result = {"reason": (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]}
        new = path.read_text(encoding="utf-8")
    if new == source:
        why = f"unchanged ({result.get('reason')})"
    else:
        check = Check(source, new)
        why = check.docstring(name) or check.others_unchanged(doc_only=(name,))
    doc = _docstring(new, name) if new != source else None
    return {"why": why, "doc": doc, "attempts": result.get("attempts"), "seconds": seconds,
            "repeats": _repeats(source, doc)}


def _repeats(source: str, doc: str | None) -> str:
    """How the class's docstring repeats the module's: "whole", "first line", or ""."""
    module = " ".join((ast.get_docstring(ast.parse(source)) or "").split())
    if not doc or not module:
        return ""
    if " ".join(doc.split()) == module:
        return "whole"
    return "first line" if " ".join(doc.split("\n\n", 1)[0].split()) == module else ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench classdoc")
    parser.add_argument("--only", help="comma-separated class names")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    rows, passed, repeats = [], {False: [0, 0], True: [0, 0]}, {False: [0, 0], True: [0, 0]}
    for fname, source, name, held in CASES:
        if only and name not in only:
            continue
        got = run_case(fname, source, name)
        ok = not got["why"]
        passed[held][0] += ok
        passed[held][1] += 1
        repeats[held][0] += got["repeats"] == "whole"
        repeats[held][1] += got["repeats"] == "first line"
        doc = (got["doc"] or "").splitlines()[0][:60] if got["doc"] else ""
        print(f"{name}: {'passed' if ok else got['why']}", flush=True)
        rows.append([name, "held out" if held else "looked at", "passed" if ok else "failed", got["why"][:70], doc,
                     got["repeats"], got["attempts"], f"{got['seconds']:.1f}"])
    print_table("class docstrings asked alone, steer edit, embedded model",
                ["class", "case", "outcome", "why", "docstring (first line)", "repeats the module's", "attempts", "s"],
                rows)
    for held, label in ((False, "looked at"), (True, "held out")):
        print(f"{label}: {passed[held][0]}/{passed[held][1]} passed; the module's docstring repeated whole in "
              f"{repeats[held][0]}, as the first line in {repeats[held][1]}")
    return 0
