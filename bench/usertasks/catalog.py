"""The user tasks: name, file, instruction, input, test (appended to the edited file and run)."""

from __future__ import annotations

INVENTORY = '''"""A tiny inventory module."""

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0


@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, name, price, quantity=1):
        if name in self.items:
            self.items[name].quantity += quantity
        else:
            self.items[name] = Item(name, price, quantity)

    def remove(self, name, quantity=1):
        item = self.items[name]
        item.quantity -= quantity
        if item.quantity <= 0:
            del self.items[name]

    def total_value(self):
        total = 0
        for item in self.items.values():
            total = total + item.price * item.quantity
        return total

    def cheapest(self):
        return min(self.items.values(), key=lambda item: item.price)


def parse_line(line):
    name, price, quantity = line.split(",")
    return name.strip(), float(price), int(quantity)


def load(lines):
    inventory = Inventory()
    for line in lines:
        inventory.add(*parse_line(line))
    return inventory
'''

# Checks that the parts of the inventory file a task does not touch still work.
INVENTORY_STILL_WORKS = '''
def _inventory_still_works(parse=None):
    inv = Inventory()
    inv.add("apple", 0.5, 4)
    inv.add("pear", 0.75, 2)
    inv.add("apple", 0.5, 1)
    assert inv.items["apple"].quantity == 5
    inv.remove("pear", 2)
    assert "pear" not in inv.items
    assert abs(inv.total_value() - 2.5) < 1e-9
    inv.add("fig", 0.25, 1)
    assert inv.cheapest().name == "fig"
    if parse is not None:
        assert parse(" kiwi, 1.5, 3") == ("kiwi", 1.5, 3)
'''

TEXTUTIL = '''"""Small text helpers."""

import re


def normalize(text):
    tmp = text.strip().lower()
    tmp = re.sub(r"\\s+", " ", tmp)
    return tmp


def join_words(words):
    return " ".join(w for w in words if w)


def word_count(text):
    counts = {}
    for word in normalize(text).split(" "):
        if word:
            counts[word] = counts.get(word, 0) + 1
    return counts


def truncate(text, width):
    if len(text) <= width:
        return text
    return text[: width - 1] + "…"
'''

ORDERS = '''"""Order totals for the shop."""

TAX_RATE = 0.2


def line_total(price, quantity):
    return price * quantity


def checkout(lines, coupon=None):
    subtotal = 0
    for price, quantity in lines:
        subtotal += line_total(price, quantity)
    if coupon == "HALF":
        subtotal = subtotal * 0.5
    elif coupon == "TENOFF":
        subtotal = max(0, subtotal - 10)
    tax = subtotal * TAX_RATE
    return round(subtotal + tax, 2)


def format_price(amount):
    return "$%.2f" % amount
'''

CONFIG = '''"""Reads key=value config files."""


def parse_config(text):
    config = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, value = line.split("=", 1)
        config[key.strip()] = value.strip()
    return config


def get_int(config, key, default=0):
    if key not in config:
        return default
    return int(config[key])


def merge(base, override):
    merged = dict(base)
    merged.update(override)
    return merged
'''

SHAPES = '''"""2-D shapes."""

import math


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def distance_to(self, other):
        return math.hypot(self.x - other.x, self.y - other.y)


class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        return self._items.pop()

    def peek(self):
        return self._items[-1]

    def __len__(self):
        return len(self._items)


def average(values):
    return sum(values) / len(values)
'''

TASKS = [
    {
        "name": "rename-function",
        "file": "inventory.py",
        "instruction": "rename parse_line to parse_row",
        "input": INVENTORY,
        "test": INVENTORY_STILL_WORKS + '''
assert "parse_line" not in globals(), "parse_line still defined"
assert "parse_line" not in open(__file__).read().split("def _inventory_still_works")[0], "parse_line still used"
_inventory_still_works(parse_row)
assert load(["a, 1.0, 2", "b, 2.0, 1"]).total_value() == 4.0
''',
    },
    {
        "name": "docstring-one-method",
        "file": "inventory.py",
        "instruction": "add a docstring to cheapest",
        "input": INVENTORY,
        "test": INVENTORY_STILL_WORKS + '''
assert Inventory.cheapest.__doc__ and Inventory.cheapest.__doc__.strip(), "no docstring on cheapest"
_inventory_still_works(parse_line)
''',
    },
    {
        "name": "method-skip-empty",
        "file": "inventory.py",
        "instruction": "make total_value skip items whose price is None",
        "input": INVENTORY,
        "test": INVENTORY_STILL_WORKS + '''
inv = Inventory()
inv.add("a", 2.0, 3)
inv.add("b", None, 5)
assert inv.total_value() == 6.0
_inventory_still_works(parse_line)
''',
    },
    {
        "name": "error-handling-remove",
        "file": "inventory.py",
        "instruction": "make remove raise KeyError with a clear message when the item is not in the inventory, "
                       "and ValueError when quantity is not positive",
        "input": INVENTORY,
        "test": INVENTORY_STILL_WORKS + '''
inv = Inventory()
inv.add("a", 1.0, 2)
try:
    inv.remove("zzz")
except KeyError as exc:
    assert "zzz" in str(exc), "the message should name the item"
else:
    raise AssertionError("no KeyError for a missing item")
for bad in (0, -1):
    try:
        inv.remove("a", bad)
    except ValueError:
        pass
    else:
        raise AssertionError(f"no ValueError for quantity {bad}")
assert inv.items["a"].quantity == 2
_inventory_still_works(parse_line)
''',
    },
    {
        "name": "add-parameter",
        "file": "textutil.py",
        "instruction": "add a sep parameter to join_words that defaults to a space",
        "input": TEXTUTIL,
        "test": '''
assert join_words(["a", "", "b"]) == "a b"
assert join_words(["a", "b"], sep="-") == "a-b"
assert join_words(["a", "b"], "+") == "a+b"
assert normalize("  Hello   World ") == "hello world"
assert word_count("a b A") == {"a": 2, "b": 1}
assert truncate("abcdef", 4) == "abc…"
''',
    },
    {
        "name": "rename-variable",
        "file": "textutil.py",
        "instruction": "in normalize, rename the variable tmp to cleaned",
        "input": TEXTUTIL,
        "test": '''
import inspect
src = inspect.getsource(normalize)
assert "tmp" not in src and "cleaned" in src
assert normalize("  Hello   World ") == "hello world"
assert join_words(["a", "", "b"]) == "a b"
assert word_count("a b A") == {"a": 2, "b": 1}
''',
    },
    {
        "name": "type-hints",
        "file": "textutil.py",
        "instruction": "add type hints to truncate",
        "input": TEXTUTIL,
        "test": '''
import inspect
sig = inspect.signature(truncate)
assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), "parameters need hints"
assert sig.return_annotation is not inspect.Signature.empty, "the return needs a hint"
assert truncate("abcdef", 4) == "abc…" and truncate("ab", 4) == "ab"
assert normalize("  Hello   World ") == "hello world"
''',
    },
    {
        "name": "extract-function",
        "file": "orders.py",
        "instruction": "extract the coupon logic in checkout into a function apply_coupon(subtotal, coupon) "
                       "and call it from checkout",
        "input": ORDERS,
        "test": '''
import ast, inspect
assert apply_coupon(100, "HALF") == 50 and apply_coupon(5, "TENOFF") == 0 and apply_coupon(7, None) == 7
calls = [n.func.id for n in ast.walk(ast.parse(inspect.getsource(checkout)))
         if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
assert "apply_coupon" in calls, "checkout does not call apply_coupon"
assert checkout([(10, 2), (5, 1)]) == 30.0
assert checkout([(10, 2), (5, 1)], "HALF") == 15.0
assert checkout([(4, 1)], "TENOFF") == 0.0
assert format_price(3) == "$3.00"
''',
    },
    {
        "name": "fstring",
        "file": "orders.py",
        "instruction": "use an f-string in format_price",
        "input": ORDERS,
        "test": '''
import ast, inspect
assert any(isinstance(n, ast.JoinedStr) for n in ast.walk(ast.parse(inspect.getsource(format_price)))), "no f-string"
assert format_price(3) == "$3.00" and format_price(2.5) == "$2.50"
assert checkout([(10, 2), (5, 1)]) == 30.0
''',
    },
    {
        "name": "error-handling-parse",
        "file": "config.py",
        "instruction": "make parse_config raise ValueError that names the line number when a line has no '='",
        "input": CONFIG,
        "test": '''
assert parse_config("a = 1\\n# c\\n\\nb=x=y") == {"a": "1", "b": "x=y"}
try:
    parse_config("a = 1\\nbroken\\n")
except ValueError as exc:
    assert "line 2" in str(exc).lower(), "the message should name line 2"
else:
    raise AssertionError("no ValueError")
assert get_int({"n": "4"}, "n") == 4 and get_int({}, "n", 7) == 7
assert merge({"a": 1}, {"a": 2, "b": 3}) == {"a": 2, "b": 3}
''',
    },
    {
        "name": "add-default-param",
        "file": "config.py",
        "instruction": "get_int should return the default when the value is not a number",
        "input": CONFIG,
        "test": '''
assert get_int({"n": "4"}, "n") == 4
assert get_int({"n": "four"}, "n", 9) == 9
assert get_int({}, "n", 7) == 7
assert parse_config("a = 1") == {"a": "1"}
''',
    },
    {
        "name": "method-of-class-stack",
        "file": "shapes.py",
        "instruction": "make Stack.pop raise IndexError('pop from empty stack') when the stack is empty",
        "input": SHAPES,
        "test": '''
s = Stack()
try:
    s.pop()
except IndexError as exc:
    assert str(exc) == "pop from empty stack"
else:
    raise AssertionError("no IndexError")
s.push(1); s.push(2)
assert s.peek() == 2 and len(s) == 2 and s.pop() == 2 and len(s) == 1
assert Point(0, 0).distance_to(Point(3, 4)) == 5
assert average([1, 2, 3]) == 2
''',
    },
    {
        "name": "add-repr",
        "file": "shapes.py",
        "instruction": "add a __repr__ to Point that shows Point(x, y)",
        "input": SHAPES,
        "test": '''
assert repr(Point(1, 2)) == "Point(1, 2)", repr(Point(1, 2))
assert Point(0, 0).distance_to(Point(3, 4)) == 5
s = Stack(); s.push(3)
assert s.pop() == 3 and len(s) == 0
''',
    },
    {
        "name": "empty-average",
        "file": "shapes.py",
        "instruction": "average should return 0.0 for an empty list",
        "input": SHAPES,
        "test": '''
assert average([]) == 0.0
assert average([2, 4]) == 3
assert Point(0, 0).distance_to(Point(3, 4)) == 5
''',
    },
]
