"""The task catalog: (name, source, instruction, region function, check(ns, text)) tuples."""

from __future__ import annotations

import inspect


def raises(fn, exc, *args, **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except exc:
        return
    raise AssertionError(f"{getattr(fn, '__name__', fn)} did not raise {exc.__name__}")


def unchanged(text: str, *snippets: str) -> None:
    for s in snippets:
        assert s in text, f"lost: {s!r}"


INVENTORY = '''"""Inventory helpers."""


def add_item(stock, name, qty=1):
    stock[name] = stock.get(name, 0) + qty
    return stock


def remove_item(stock, name, qty=1):
    stock[name] = stock[name] - qty
    if stock[name] <= 0:
        del stock[name]
    return stock


def total_items(stock):
    total = 0
    for qty in stock.values():
        total += qty
    return total
'''

GEOMETRY = '''"""Shapes."""

import math


def circle_area(r):
    return math.pi * r * r


def rect_area(w, h):
    return w * h


def perimeter(w, h):
    return 2 * w + h
'''

TEXTS = '''"""Text utilities."""


def word_count(text):
    return len(text.split(" "))


def shout(text):
    return text.upper()


def initials(name):
    parts = name.split()
    return "".join(p[0] for p in parts)


def truncate(text, n):
    if len(text) > n:
        return text[:n]
    return text
'''

STATS = '''"""Statistics."""


def mean(values):
    return sum(values) / len(values)


def maximum(values):
    best = values[0]
    for v in values:
        if v > best:
            best = v
    return best


def count_above(values, limit):
    n = 0
    for v in values:
        if v > limit:
            n += 1
    return n
'''

ACCOUNT = '''"""A bank account."""


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        self.balance += amount
        return self.balance

    def withdraw(self, amount):
        self.balance -= amount
        return self.balance

    def describe(self):
        return f"{self.owner}: {self.balance}"
'''

CONFIG = '''"""Config parsing."""


def parse_line(line):
    key, value = line.split("=")
    return key, value


def parse(lines):
    result = {}
    for line in lines:
        key, value = parse_line(line)
        result[key] = value
    return result


def get_port(config):
    return int(config["port"])
'''

TEMPS = '''"""Temperatures."""


def c_to_f(c):
    return c * 9 / 5 + 32


def f_to_c(f):
    return (f - 32) * 5 / 9


def classify(c):
    if c < 0:
        return "freezing"
    if c < 20:
        return "mild"
    return "hot"
'''

LISTS = '''"""List helpers."""


def chunk(items, size):
    out = []
    for i in range(0, len(items), size):
        out.append(items[i:i + size])
    return out


def flatten(nested):
    out = []
    for group in nested:
        for item in group:
            out.append(item)
    return out


def dedupe(items):
    seen = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
'''


class _Obj:
    pass


def _inv_remove_missing(ns, text):
    try:
        ns["remove_item"]({}, "apple")
    except KeyError as exc:
        assert "apple is not in stock" in str(exc), str(exc)
    else:
        raise AssertionError("no KeyError")
    assert ns["remove_item"]({"a": 2}, "a") == {"a": 1}


def _inv_add_negative(ns, text):
    raises(ns["add_item"], ValueError, {}, "a", -1)
    raises(ns["add_item"], ValueError, {}, "a", 0)
    assert ns["add_item"]({}, "a", 2) == {"a": 2}
    assert ns["total_items"]({"a": 1, "b": 2}) == 3


def _inv_total_sum(ns, text):
    assert ns["total_items"]({"a": 1, "b": 5}) == 6
    assert "for qty in stock.values()" not in text.split("def total_items")[1]
    assert "sum(" in text.split("def total_items")[1]


def _inv_rename(ns, text):
    assert "count_items" in ns and "total_items" not in ns
    assert ns["count_items"]({"a": 3}) == 3


def _geo_perimeter(ns, text):
    assert ns["perimeter"](2, 3) == 10
    assert ns["rect_area"](2, 3) == 6


def _geo_circle_negative(ns, text):
    raises(ns["circle_area"], ValueError, -1)
    assert abs(ns["circle_area"](1) - 3.14159265) < 1e-6


def _geo_rect_default(ns, text):
    assert ns["rect_area"](3) == 9
    assert ns["rect_area"](2, 5) == 10


def _geo_docstring(ns, text):
    doc = ns["circle_area"].__doc__
    assert doc and doc.strip()
    assert ns["rect_area"](2, 2) == 4


def _txt_word_count(ns, text):
    assert ns["word_count"]("a  b\tc\n d") == 4
    assert ns["word_count"]("") == 0


def _txt_shout(ns, text):
    assert ns["shout"]("hi") == "HI!"
    assert ns["initials"]("Ada Lovelace") == "AL"


def _txt_initials_upper(ns, text):
    assert ns["initials"]("ada lovelace") == "AL"
    assert ns["initials"]("Grace Brewster Hopper") == "GBH"


def _txt_truncate_ellipsis(ns, text):
    assert ns["truncate"]("abcdef", 3) == "abc..."
    assert ns["truncate"]("ab", 3) == "ab"


def _st_mean_empty(ns, text):
    assert ns["mean"]([]) == 0
    assert ns["mean"]([1, 2, 3]) == 2


def _st_max_builtin(ns, text):
    body = text.split("def maximum")[1].split("\ndef ")[0]
    assert "max(" in body and "for v in values" not in body
    assert ns["maximum"]([3, 9, 2]) == 9


def _st_count_inclusive(ns, text):
    assert ns["count_above"]([1, 2, 3], 2) == 2
    assert ns["count_above"]([5], 6) == 0


def _st_max_empty(ns, text):
    raises(ns["maximum"], ValueError, [])
    assert ns["maximum"]([1, 4]) == 4


def _acc_withdraw_check(ns, text):
    a = ns["Account"]("ann", 10)
    raises(a.withdraw, ValueError, 20)
    assert a.balance == 10
    assert a.withdraw(4) == 6


def _acc_deposit_positive(ns, text):
    a = ns["Account"]("bob", 5)
    raises(a.deposit, ValueError, 0)
    raises(a.deposit, ValueError, -3)
    assert a.deposit(2) == 7


def _acc_describe(ns, text):
    a = ns["Account"]("cy", 12.5)
    assert a.describe() == "cy: 12.50"


def _acc_history(ns, text):
    a = ns["Account"]("di")
    assert a.history == []
    a.deposit(3)
    assert a.balance == 3


def _cfg_strip(ns, text):
    assert ns["parse_line"](" host = example.org ") == ("host", "example.org")


def _cfg_equals_in_value(ns, text):
    assert ns["parse_line"]("url=a=b") == ("url", "a=b")


def _cfg_skip_comments(ns, text):
    assert ns["parse"](["a=1", "# note", "", "b=2"]) == {"a": "1", "b": "2"}


def _cfg_port_default(ns, text):
    assert ns["get_port"]({}) == 8080
    assert ns["get_port"]({"port": "99"}) == 99


def _tmp_round(ns, text):
    assert ns["c_to_f"](37.77) == 100.0
    assert ns["c_to_f"](0) == 32


def _tmp_classify(ns, text):
    assert ns["classify"](-5) == "freezing"
    assert ns["classify"](10) == "mild"
    assert ns["classify"](25) == "warm"
    assert ns["classify"](35) == "hot"


def _tmp_kelvin(ns, text):
    assert abs(ns["c_to_k"](0) - 273.15) < 1e-9
    assert ns["f_to_c"](212) == 100


def _lst_chunk_invalid(ns, text):
    raises(ns["chunk"], ValueError, [1, 2], -1)
    assert ns["chunk"]([1, 2, 3], 2) == [[1, 2], [3]]


def _lst_flatten_comprehension(ns, text):
    body = text.split("def flatten")[1].split("\ndef ")[0]
    assert "append" not in body
    assert ns["flatten"]([[1], [2, 3]]) == [1, 2, 3]


def _lst_dedupe_key(ns, text):
    assert ns["dedupe"](["a", "A", "b"], key=str.lower) == ["a", "b"]
    assert ns["dedupe"]([1, 1, 2]) == [1, 2]


TASKS = [
    ("inv_remove_missing", INVENTORY,
     "In `remove_item`, raise KeyError(f\"{name} is not in stock\") when the item is missing from stock.",
     "remove_item", _inv_remove_missing),
    ("inv_add_negative", INVENTORY,
     "Make `add_item` raise ValueError if qty is not positive.", "add_item", _inv_add_negative),
    ("inv_total_sum", INVENTORY,
     "Simplify `total_items` to a single `return sum(...)` over the stock values.", "total_items", _inv_total_sum),
    ("inv_rename", INVENTORY,
     "Rename the function `total_items` to `count_items`.", "total_items", _inv_rename),
    ("geo_perimeter", GEOMETRY,
     "Fix the bug in `perimeter`: it must return 2 * (w + h).", "perimeter", _geo_perimeter),
    ("geo_circle_negative", GEOMETRY,
     "Make `circle_area` raise ValueError for a negative radius.", "circle_area", _geo_circle_negative),
    ("geo_rect_default", GEOMETRY,
     "Give `rect_area` a default so that rect_area(w) is the area of a square (h defaults to w).",
     "rect_area", _geo_rect_default),
    ("geo_docstring", GEOMETRY,
     "Add a one-line docstring to `circle_area`.", "circle_area", _geo_docstring),
    ("txt_word_count", TEXTS,
     "Fix `word_count` so any whitespace separates words and an empty string has 0 words.",
     "word_count", _txt_word_count),
    ("txt_shout", TEXTS,
     "Make `shout` add an exclamation mark after the upper-cased text.", "shout", _txt_shout),
    ("txt_initials_upper", TEXTS,
     "Make `initials` return upper-case initials.", "initials", _txt_initials_upper),
    ("txt_truncate_ellipsis", TEXTS,
     "When `truncate` cuts the text, append '...' after the first n characters.", "truncate", _txt_truncate_ellipsis),
    ("st_mean_empty", STATS,
     "Make `mean` return 0 for an empty list.", "mean", _st_mean_empty),
    ("st_max_builtin", STATS,
     "Rewrite `maximum` to use the built-in max().", "maximum", _st_max_builtin),
    ("st_count_inclusive", STATS,
     "Make `count_above` count values greater than or equal to the limit.", "count_above", _st_count_inclusive),
    ("st_max_empty", STATS,
     "Make `maximum` raise ValueError on an empty list.", "maximum", _st_max_empty),
    ("acc_withdraw_check", ACCOUNT,
     "Make `withdraw` raise ValueError when the amount is more than the balance, without changing the balance.",
     "withdraw", _acc_withdraw_check),
    ("acc_deposit_positive", ACCOUNT,
     "Make `deposit` raise ValueError unless the amount is positive.", "deposit", _acc_deposit_positive),
    ("acc_describe", ACCOUNT,
     "Make `describe` show the balance with exactly two decimals.", "describe", _acc_describe),
    ("acc_history", ACCOUNT,
     "In `__init__`, add an attribute `history` that starts as an empty list.", "__init__", _acc_history),
    ("cfg_strip", CONFIG,
     "Make `parse_line` strip whitespace around the key and the value.", "parse_line", _cfg_strip),
    ("cfg_equals_in_value", CONFIG,
     "Make `parse_line` split only on the first '=' so values may contain '='.", "parse_line", _cfg_equals_in_value),
    ("cfg_skip_comments", CONFIG,
     "Make `parse` skip empty lines and lines starting with '#'.", "parse", _cfg_skip_comments),
    ("cfg_port_default", CONFIG,
     "Make `get_port` return 8080 when the config has no 'port'.", "get_port", _cfg_port_default),
    ("tmp_round", TEMPS,
     "Make `c_to_f` round its result to one decimal place.", "c_to_f", _tmp_round),
    ("tmp_classify", TEMPS,
     "In `classify`, return 'warm' for temperatures from 20 up to (not including) 30; 30 and above stay 'hot'.",
     "classify", _tmp_classify),
    ("tmp_kelvin", TEMPS,
     "Add a function `c_to_k(c)` after `f_to_c` that converts Celsius to Kelvin.", "f_to_c", _tmp_kelvin),
    ("lst_chunk_invalid", LISTS,
     "Make `chunk` raise ValueError when size is less than 1.", "chunk", _lst_chunk_invalid),
    ("lst_flatten_comprehension", LISTS,
     "Rewrite `flatten` as a single list comprehension.", "flatten", _lst_flatten_comprehension),
    ("lst_dedupe_key", LISTS,
     "Add an optional `key` parameter to `dedupe` (default None); items are compared by key(item) when given.",
     "dedupe", _lst_dedupe_key),
]


def _self_check() -> None:
    """Every check must fail on the unedited source: a task that passes untouched measures nothing."""
    from bench.tasks import Task, run_check

    for t in TASKS:
        ok, _ = run_check(Task(*t), t[1])
        assert not ok, f"task {t[0]} passes without an edit"
        assert inspect.isfunction(t[4])


if __name__ == "__main__":
    _self_check()
    print(f"{len(TASKS)} tasks; all fail on the original source")
