"""A region rewrite that restates the file lines next to its region does not double them."""

from __future__ import annotations

from steer_tui.edits.anchor import asks_to_repeat, strip_echoed_context
from steer_tui.edits.apply import apply_response
from steer_tui.edits.livediff import LiveDiff
from steer_tui.edits.proposal import ProposalBuilder

PRICES = '''"""Price helpers."""


def parse_price(text):
    text = text.strip().lstrip("$")
    return float(text)


def total(prices):
    return sum(prices)
'''
REGION = (3, 6)  # parse_price
REGION_TEXT = "".join(PRICES.splitlines(keepends=True)[3:6])
# What the embedded model answered to "add a docstring to parse_price": the module docstring first.
ECHOED = '''```python
"""Price helpers."""
def parse_price(text):
    """Parse a price like " $1.50 "."""
    text = text.strip().lstrip("$")
    return float(text)


def total(prices):
```
'''
WANTED = PRICES.replace('def parse_price(text):\n', 'def parse_price(text):\n    """Parse a price like " $1.50 "."""\n')


def test_the_lines_around_the_region_that_the_answer_restates_are_not_doubled():
    got = apply_response(PRICES, ECHOED, region_text=REGION_TEXT, region_start=REGION[0]).new_text
    assert got == WANTED


def test_the_live_diff_shows_what_the_applier_writes():
    for step in (len(ECHOED), 3):  # whole, and a few characters at a time as it streams
        live = LiveDiff(PRICES.splitlines())
        answer = ProposalBuilder(live, REGION, "add a docstring to parse_price", "prices.py")
        for i in range(0, len(ECHOED), step):
            answer.feed(ECHOED[i : i + step])
        answer.finish()
        verdict = answer.judge(PRICES)
        assert verdict.status == "proposal" and verdict.new_text == WANTED
        assert "\n".join(live.new_lines()) + "\n" == WANTED


def test_an_instruction_that_asks_for_a_copy_keeps_it():
    assert asks_to_repeat("duplicate the docstring above parse_price") and not asks_to_repeat("add a docstring")
    live = LiveDiff(PRICES.splitlines())
    answer = ProposalBuilder(live, REGION, "copy the module docstring above parse_price", "prices.py")
    answer.feed(ECHOED)
    answer.finish()
    assert answer.judge(PRICES).new_text.count('"""Price helpers."""') == 2


def test_only_an_exact_echo_next_to_the_region_goes():
    before, after = ['"""Price helpers."""', "", ""], ["", "", "def total(prices):"]
    region = ["def parse_price(text):", "    return float(text)", "", ""]
    # The region itself opens with the line: not an echo.
    assert strip_echoed_context(["x = 1", "x = 1", "def f():"], 1, 3, ["x = 1", "def f():"]) == ["x = 1", "def f():"]
    # A line like the one above but not the same stays.
    new = ['"""Price helper."""', "def parse_price(text):", "    return float(text)"]
    assert strip_echoed_context(before + region + after, len(before), len(before) + len(region), new) == new
    # The echo not followed by the region's first line stays (it may be new code).
    new = ['"""Price helpers."""', "import re", "def parse_price(text):", "    return float(text)"]
    assert strip_echoed_context(before + region + after, len(before), len(before) + len(region), new) == new
    # At the end, the blank lines between the region and the echo are the region's own.
    new = ["def parse_price(text):", "    text = text.strip()", "    return float(text)", "", "def total(prices):"]
    assert strip_echoed_context(before + region + after, len(before), len(before) + len(region), new) == new[:3] + ["", ""]
    # ... and only after the region's own last line, unchanged: a changed last line may be new code.
    new = ["def parse_price(text):", "    return float(text.strip())", "", "def total(prices):"]
    assert strip_echoed_context(before + region + after, len(before), len(before) + len(region), new) == new


SHAPES = '''class Stack:
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


def average(xs):
    return sum(xs) / len(xs)
'''
# The embedded model asked to change the method `pop` (the region) wrote back the whole class.
WHOLE_CLASS = '''```python
class Stack:
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        if not self._items:
            raise IndexError('pop from empty stack')
        return self._items.pop()

    def peek(self):
        return self._items[-1]

    def __len__(self):
        return len(self._items)
```
'''


def test_a_method_answered_with_its_whole_class_changes_only_the_method():
    region = (7, 9)
    live = LiveDiff(SHAPES.splitlines())
    answer = ProposalBuilder(live, region, "make Stack.pop raise IndexError when the stack is empty", "shapes.py")
    answer.feed(WHOLE_CLASS)
    answer.finish()
    verdict = answer.judge(SHAPES)
    assert verdict.status == "proposal"
    assert verdict.new_text == SHAPES.replace(
        "    def pop(self):\n", "    def pop(self):\n        if not self._items:\n            raise IndexError('pop from empty stack')\n")
    assert "\n".join(live.new_lines()) + "\n" == verdict.new_text


def test_a_method_answered_with_classes_around_it_is_refused():
    from steer_tui.edits.restated import restated_classes

    # What the model wrote for `pop` on another run: the file's classes, not an exact copy.
    answer = ("```python\nclass Point:\n    def __init__(self, x, y):\n        self.x = x\n\n\nclass Stack:\n"
              "    def pop(self):\n        if not self._items:\n            raise IndexError('empty')\n"
              "        return self._items.pop()\n```\n")
    source = SHAPES + "\n\nclass Point:\n    def __init__(self, x, y):\n        self.x = x\n"
    live = LiveDiff(source.splitlines())
    builder = ProposalBuilder(live, (7, 9), "make Stack.pop raise IndexError when the stack is empty", "shapes.py")
    builder.feed(answer)
    builder.finish()
    verdict = builder.judge(source)
    assert verdict.status == "refused" and "`Point`, `Stack`" in verdict.reason
    assert "Reply with only the region" in verdict.feedback
    # A nested class of a new name, or one that is already there, is an edit.
    assert restated_classes(SHAPES, SHAPES.replace("class Stack:\n", "class Stack:\n    class Empty(Exception):\n        pass\n\n")) == []
    assert restated_classes(SHAPES, SHAPES) == []


# What the embedded model answered to "make it ignore commas" on parse_price (bench/redirect.py,
# an addition asked first): the region with its change, then the two functions after it again.
RUNS_ON = '''```python
def parse_price(text):
    """Parse a price string."""
    text = text.strip().lstrip("$")
    return float(text.replace(",", ""))


def total(prices):
    return sum(prices)
```
'''


def test_a_rewrite_that_runs_on_into_the_next_function_is_refused():
    live = LiveDiff(PRICES.splitlines())
    builder = ProposalBuilder(live, REGION, "make parse_price ignore commas", "prices.py")
    builder.feed(RUNS_ON)
    builder.finish()
    verdict = builder.judge(PRICES)
    assert verdict.status == "refused" and verdict.reason == "the answer defines `total` a second time"
    assert "Reply with only the region" in verdict.feedback and "`total`" in verdict.feedback
    assert live.hunk_count == 0  # nothing of it is proposed


def test_a_copy_asked_for_is_not_refused():
    live = LiveDiff(PRICES.splitlines())
    builder = ProposalBuilder(live, (0, len(PRICES.splitlines())), "duplicate total", "prices.py")
    builder.feed("```python\n" + PRICES + "\n\ndef total(prices):\n    return sum(prices)\n```\n")
    builder.finish()
    assert builder.judge(PRICES).status == "proposal"


def test_restated_definitions_counts_each_body_and_skips_what_repeats_by_design():
    from steer_tui.edits.restated import restated_definitions

    twice = PRICES + "\n\ndef total(prices):\n    return 0\n"
    assert restated_definitions(PRICES, twice) == ["total"]
    assert restated_definitions(PRICES, PRICES) == []
    assert restated_definitions(PRICES, PRICES + "\n\ndef average(prices):\n    return 0\n") == []  # a new name
    assert restated_definitions(twice, twice) == []  # the file already had it twice
    klass = "class A:\n    def f(self):\n        return 1\n"
    assert restated_definitions(klass, klass + "\n    def f(self):\n        return 2\n") == ["A.f"]
    assert restated_definitions(klass, klass + "\n\ndef f():\n    return 2\n") == []  # another scope
    prop = "class A:\n    @property\n    def x(self):\n        return 1\n"
    assert restated_definitions(prop, prop + "\n    @x.setter\n    def x(self, v):\n        pass\n") == []
    guarded = "try:\n    def f():\n        pass\nexcept ImportError:\n    def f():\n        pass\n"
    assert restated_definitions("def g():\n    pass\n", guarded + "def g():\n    pass\n") == []
    assert restated_definitions(PRICES, "def total(:\n") == []  # does not parse: the syntax check's case


CLASSES = '''"""Two classes."""

import math


class A:
    x = 1


class B:
    y = 2
'''


def test_the_module_head_restated_before_a_class_further_down_is_not_doubled():
    lines = CLASSES.splitlines()
    start = lines.index("class B:")
    new = ['"""Two classes."""', "", "import math", "", "", "class B:", '    """The B."""', "    y = 2"]
    assert strip_echoed_context(lines, start, len(lines), new) == ["class B:", '    """The B."""', "    y = 2"]
    # Its docstring alone, too; a line of the module head that is new, or out of order, stays.
    assert strip_echoed_context(lines, start, len(lines), new[:1] + new[5:]) == new[5:]
    for head in (["import os", "import math"], ["import math", '"""Two classes."""']):
        assert strip_echoed_context(lines, start, len(lines), head + new[5:]) == head + new[5:]
