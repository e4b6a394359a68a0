"""The second batch of user tasks (written 2026-11-26, after every prompt change so far, and run as
first written): new files, and requests phrased the way people type them in the app."""

from __future__ import annotations

BANK = '''"""Bank accounts."""


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def statement(self):
        lines = [f"{kind} {amount}" for kind, amount in self.history]
        lines.append(f"balance {self.balance}")
        return "\\n".join(lines)


def total_balance(accounts):
    return sum(a.balance for a in accounts)
'''

BANK_STILL_WORKS = '''
def _bank_still_works():
    a = Account("ann", 10)
    a.deposit(5)
    assert a.balance == 15
    try:
        a.deposit(0)
    except ValueError:
        pass
    else:
        raise AssertionError("deposit(0) must raise")
    assert a.statement().splitlines()[-1] == "balance 15"
    assert total_balance([a, Account("bob", 3)]) == 18
'''

TIMEUTIL = '''"""Durations like "1h30m" and "45s"."""

import re

_PART = re.compile(r"(\\d+)([hms])")
_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    text = text.strip().lower()
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * _SECONDS[u] for n, u in parts)


def format_duration(seconds):
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s"


def total_duration(texts):
    return sum(parse_duration(t) for t in texts)
'''

CACHE = '''"""A least-recently-used cache."""

from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self._data = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key):
        if key not in self._data:
            self.misses += 1
            raise KeyError(key)
        self.hits += 1
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def hit_rate(self):
        total = self.hits + self.misses
        return self.hits / total


def memoize(cache):
    def wrap(fn):
        def inner(arg):
            try:
                return cache.get(arg)
            except KeyError:
                value = fn(arg)
                cache.put(arg, value)
                return value
        return inner
    return wrap
'''

CACHE_STILL_WORKS = '''
def _cache_still_works():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1
    c.put("c", 3)
    assert "b" not in c._data and c._data["a"] == 1 and c._data["c"] == 3
    assert c.hits == 1
'''

USERS = '''"""User records."""

import logging

log = logging.getLogger(__name__)


def validate_email(email):
    if email.count("@") != 1:
        return False
    name, domain = email.split("@")
    return bool(name) and "." in domain


def full_name(first, middle, last):
    return f"{first} {middle} {last}"


def load_users(lines):
    users = []
    for line in lines:
        fields = [f.strip() for f in line.split(";")]
        if len(fields) != 3 or not validate_email(fields[2]):
            continue
        first, last, email = fields
        users.append({"first": first, "last": last, "email": email})
    return users


def paginate(items, page, size):
    start = page * size
    return items[start:start + size + 1]
'''

REPORT = '''"""Sales report from CSV files."""

import csv


def read_rows(path):
    f = open(path, newline="")
    rows = list(csv.DictReader(f))
    f.close()
    return rows


def summarize(rows):
    totals = {}
    for row in rows:
        totals.setdefault(row["region"], []).append(float(row["amount"]))
    summary = {}
    for region, amounts in totals.items():
        summary[region] = {"total": sum(amounts), "average": sum(amounts) / len(amounts)}
    return summary


def report(summary):
    lines = []
    for region, numbers in summary.items():
        lines.append(f"{region}: {numbers['total']:.2f}")
    return "\\n".join(lines)
'''

REPORT_ROWS = '''
_ROWS = [{"region": "north", "amount": "10"}, {"region": "south", "amount": "5"},
         {"region": "north", "amount": "20"}, {"region": "east", "amount": "40"}]
'''

TASKS = [
    {
        "name": "withdraw-not-enough",
        "file": "bank.py",
        "instruction": "withdraw should raise ValueError if there isn't enough money",
        "input": BANK,
        "test": BANK_STILL_WORKS + '''
a = Account("ann", 10)
try:
    a.withdraw(11)
except ValueError:
    pass
else:
    raise AssertionError("withdrawing more than the balance must raise ValueError")
assert a.balance == 10 and a.history == []
a.withdraw(10)
assert a.balance == 0
_bank_still_works()
''',
    },
    {
        "name": "add-transfer-method",
        "file": "bank.py",
        "instruction": "add a transfer(self, other, amount) method to Account that moves money to another account",
        "input": BANK,
        "test": BANK_STILL_WORKS + '''
a, b = Account("ann", 10), Account("bob", 1)
a.transfer(b, 4)
assert (a.balance, b.balance) == (6, 5)
_bank_still_works()
''',
    },
    {
        "name": "hints-deposit",
        "file": "bank.py",
        "instruction": "type hints for Account.deposit",
        "input": BANK,
        "test": BANK_STILL_WORKS + '''
import inspect
sig = inspect.signature(Account.deposit)
assert sig.parameters["amount"].annotation is not inspect.Parameter.empty, "amount needs a hint"
assert sig.return_annotation is not inspect.Signature.empty, "the return needs a hint"
assert inspect.signature(Account.withdraw).parameters["amount"].annotation is inspect.Parameter.empty, \\
    "only deposit was asked for"
_bank_still_works()
''',
    },
    {
        "name": "rename-method-statement",
        "file": "bank.py",
        "instruction": "rename statement to summary",
        "input": BANK,
        "test": '''
a = Account("ann", 10)
a.deposit(5)
assert not hasattr(a, "statement"), "statement is still there"
assert a.summary().splitlines() == ["deposit 5", "balance 15"]
assert total_balance([a]) == 15
''',
    },
    {
        "name": "format-hours",
        "file": "timeutil.py",
        "instruction": "format_duration should show hours when there are any, e.g. 3723 -> 1h02m03s",
        "input": TIMEUTIL,
        "test": '''
assert format_duration(3723) == "1h02m03s", format_duration(3723)
assert format_duration(75) == "1m15s", format_duration(75)
assert parse_duration("1h30m") == 5400 and total_duration(["1m", "30s"]) == 90
''',
    },
    {
        "name": "parse-plain-seconds",
        "file": "timeutil.py",
        "instruction": "parse_duration should also accept a plain number of seconds like '90'",
        "input": TIMEUTIL,
        "test": '''
assert parse_duration("90") == 90 and parse_duration(" 7 ") == 7
assert parse_duration("1h30m") == 5400 and parse_duration("45s") == 45
for bad in ("", "abc", "5x", "1h30"):
    try:
        parse_duration(bad)
    except ValueError:
        pass
    else:
        raise AssertionError(f"{bad!r} should not parse")
assert format_duration(75) == "1m15s"
''',
    },
    {
        "name": "docstring-parse-duration",
        "file": "timeutil.py",
        "instruction": "document parse_duration",
        "input": TIMEUTIL,
        "test": '''
assert parse_duration.__doc__ and len(parse_duration.__doc__.strip()) > 10, "no docstring"
assert parse_duration("1h30m") == 5400 and format_duration(75) == "1m15s"
try:
    parse_duration("5x")
except ValueError:
    pass
else:
    raise AssertionError("5x should not parse")
''',
    },
    {
        "name": "get-default",
        "file": "cache.py",
        "instruction": "get should take a default (None if not given) and return it for a missing key instead of raising",
        "input": CACHE,
        "test": CACHE_STILL_WORKS + '''
c = LRUCache(2)
assert c.get("x") is None and c.get("x", 5) == 5
assert c.misses == 2
c.put("x", 1)
assert c.get("x", 5) == 1
_cache_still_works()
''',
    },
    {
        "name": "add-len",
        "file": "cache.py",
        "instruction": "len() of a cache should give the number of entries",
        "input": CACHE,
        "test": CACHE_STILL_WORKS + '''
c = LRUCache(2)
assert len(c) == 0
c.put("a", 1); c.put("b", 2); c.put("c", 3)
assert len(c) == 2
_cache_still_works()
''',
    },
    {
        "name": "hit-rate-zero",
        "file": "cache.py",
        "instruction": "hit_rate crashes on a fresh cache, return 0.0 then",
        "input": CACHE,
        "test": CACHE_STILL_WORKS + '''
c = LRUCache(1)
assert c.hit_rate() == 0.0
c.put("a", 1); c.get("a")
try:
    c.get("b")
except KeyError:
    pass
assert c.hit_rate() == 0.5
_cache_still_works()
''',
    },
    {
        "name": "email-no-spaces",
        "file": "users.py",
        "instruction": "validate_email should reject addresses that contain spaces",
        "input": USERS,
        "test": '''
assert validate_email("ann@example.com")
assert not validate_email("ann smith@example.com") and not validate_email("ann@exa mple.com")
assert not validate_email("annexample.com") and not validate_email("@example.com")
assert load_users(["Ann; Lee; ann@example.com", "bad line"]) == [{"first": "Ann", "last": "Lee", "email": "ann@example.com"}]
''',
    },
    {
        "name": "full-name-no-middle",
        "file": "users.py",
        "instruction": "full_name: skip the middle name if it's empty",
        "input": USERS,
        "test": '''
assert full_name("Ann", "", "Lee") == "Ann Lee", repr(full_name("Ann", "", "Lee"))
assert full_name("Ann", "B", "Lee") == "Ann B Lee"
assert validate_email("ann@example.com")
''',
    },
    {
        "name": "log-skipped-lines",
        "file": "users.py",
        "instruction": "log a warning in load_users for every line it skips",
        "input": USERS,
        "test": '''
import unittest
with unittest.TestCase().assertLogs(log, level="WARNING") as seen:
    users = load_users(["Ann; Lee; ann@example.com", "bad line", "Bo; Li; not-an-email"])
assert users == [{"first": "Ann", "last": "Lee", "email": "ann@example.com"}]
assert len(seen.records) == 2, seen.output
''',
    },
    {
        "name": "paginate-off-by-one",
        "file": "users.py",
        "instruction": "paginate returns one item too many, fix it",
        "input": USERS,
        "test": '''
items = list(range(10))
assert paginate(items, 0, 3) == [0, 1, 2] and paginate(items, 3, 3) == [9] and paginate(items, 4, 3) == []
assert full_name("Ann", "B", "Lee") == "Ann B Lee"
''',
    },
    {
        "name": "with-open",
        "file": "report.py",
        "instruction": "use a with statement in read_rows",
        "input": REPORT,
        "test": REPORT_ROWS + '''
import ast, inspect, os, tempfile
assert any(isinstance(n, ast.With) for n in ast.walk(ast.parse(inspect.getsource(read_rows)))), "no with statement"
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "s.csv")
    with open(path, "w", newline="") as f:
        f.write("region,amount\\nnorth,10\\nsouth,5\\n")
    assert read_rows(path) == [{"region": "north", "amount": "10"}, {"region": "south", "amount": "5"}]
assert summarize(_ROWS)["north"] == {"total": 30.0, "average": 15.0}
''',
    },
    {
        "name": "extract-mean",
        "file": "report.py",
        "instruction": "pull the average calculation in summarize out into a mean(values) function",
        "input": REPORT,
        "test": REPORT_ROWS + '''
import ast, inspect
assert mean([1, 2, 6]) == 3
calls = [n.func.id for n in ast.walk(ast.parse(inspect.getsource(summarize)))
         if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
assert "mean" in calls, "summarize does not call mean"
assert summarize(_ROWS) == {"north": {"total": 30.0, "average": 15.0}, "south": {"total": 5.0, "average": 5.0},
                            "east": {"total": 40.0, "average": 40.0}}
''',
    },
    {
        "name": "report-sorted",
        "file": "report.py",
        "instruction": "report should list regions by total, biggest first",
        "input": REPORT,
        "test": REPORT_ROWS + '''
assert report(summarize(_ROWS)).splitlines() == ["east: 40.00", "north: 30.00", "south: 5.00"], report(summarize(_ROWS))
assert summarize(_ROWS)["south"] == {"total": 5.0, "average": 5.0}
''',
    },
]
