"""Prompt builders: the cacheable-prefix layout, formats, regions, the default format per backend."""

from __future__ import annotations

import pytest

from steer_tui import prompts

SRC = '''import os


def first(x):
    return x + 1


class Box:
    @property
    def size(self):
        value = 3
        return value

    def other(self):
        pass
'''


@pytest.mark.parametrize("fmt", prompts.FORMATS)
def test_prewarm_input_is_the_prefix_of_every_turn(fmt):
    warm = prompts.prewarm_input(fmt, "m.py", SRC)
    turn = prompts.build_input(fmt, "m.py", SRC, "Rename first to second.", region=(3, 5))
    assert turn[: len(warm)] == warm
    if fmt == prompts.REWRITE:  # the reminder opens the message (cached when the region changes); the words end it
        assert turn[-1]["content"] == prompts.message_opening(fmt, SRC, (3, 5)) + "Rename first to second."
        assert turn[-1]["content"].startswith(prompts._REMINDER[fmt] + "\n\nRegion (lines 4-5):")
        warm_words = prompts.prewarm_input(fmt, "m.py", SRC, region=(3, 5), typed="Rename first")
        assert turn[-1]["content"].startswith(warm_words[-1]["content"])  # the typed words' prewarm: a prefix
    else:
        assert turn[-1]["content"].endswith("Rename first to second.\n\n" + prompts._REMINDER[fmt])
    assert SRC in turn[0]["content"] and "```python" in turn[0]["content"]


def test_history_goes_between_the_file_and_the_new_instruction():
    history = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}]
    turn = prompts.build_input(prompts.SEARCH_REPLACE, "m.py", SRC, "q2", history=history)
    assert [m["content"] for m in turn[1:3]] == ["q1", "a1"]
    assert turn[0] == prompts.file_message("m.py", SRC)


def test_rewrite_shows_the_region_text_and_numbers():
    msg = prompts.build_input(prompts.REWRITE, "m.py", SRC, "Make it 4.", region=(8, 12))[-1]["content"]
    assert "Region (lines 9-12):" in msg
    assert "    @property\n    def size(self):\n        value = 3\n        return value\n" in msg


def test_system_prompts_exist_and_unknown_format_is_refused():
    for fmt in prompts.FORMATS:
        assert len(prompts.system_prompt(fmt)) > 100
    assert "<<<<<<< SEARCH" in prompts.system_prompt(prompts.SEARCH_REPLACE)
    assert "*** Begin Patch" in prompts.system_prompt(prompts.APPLY_PATCH)
    with pytest.raises(ValueError, match="unknown edit format"):
        prompts.system_prompt("xml")


@pytest.mark.parametrize(
    "backend, model, expected",
    [
        ("openai", "gpt-5-codex", "apply_patch"),
        ("openai", "gpt-5.1", "apply_patch"),
        ("gateway", "GPT-5-mini", "apply_patch"),
        ("openai", "gpt-4.1", "search_replace"),
        ("cerebras", "qwen-3-coder", "search_replace"),
        ("local", None, prompts.LOCAL_FORMAT),
    ],
)
def test_default_format(backend, model, expected):
    assert prompts.default_format(backend, model) == expected


def test_enclosing_region_python_innermost_with_decorators():
    assert prompts.enclosing_region(SRC, 4) == (3, 5)  # first()
    assert prompts.enclosing_region(SRC, 10) == (8, 12)  # size, with its decorator
    assert prompts.enclosing_region(SRC, 0) == (0, len(SRC.splitlines()))  # nothing encloses an import


def test_enclosing_region_other_languages_by_indentation():
    js = "function a() {\n  return 1;\n}\n\nfunction b() {\n  x();\n  y();\n}\n"
    assert prompts.enclosing_region(js, 5) == (4, 8)
    assert prompts.region_lines(js, (4, 8)).startswith("function b()")


def test_rewrite_region_prefers_the_cursor_then_named_definitions_then_the_file():
    whole = (0, len(SRC.splitlines()))
    assert prompts.rewrite_region(SRC, "make it faster", line=4) == (3, 5)
    assert prompts.rewrite_region(SRC, "Make `size` return 4.") == (8, 12)
    assert prompts.rewrite_region(SRC, "make first return x + 2") == (3, 5)
    assert prompts.rewrite_region(SRC, "Swap `first` and `other`.") == (3, 15)  # spans both
    assert prompts.rewrite_region(SRC, "add logging everywhere") == whole
    assert prompts.rewrite_region(SRC, "add logging", line=0) == whole  # cursor outside any def
    assert prompts.rewrite_region("not python (", "fix `x`") == (0, 1)


STORE = '''"""Stock."""


class Stack:
    def push(self, item):
        self.items.append(item)

    def pop(self):
        return self.items.pop()


class Inventory:
    def add(self, name):
        self.items.append(name)

    def remove(self, name):
        self.items.remove(name)

    def total_value(self):
        return sum(self.items)

    def cheapest(self):
        return min(self.items)
'''


def test_rewrite_region_is_the_method_the_instruction_names_not_its_class():
    def named(instruction):
        start, end = prompts.rewrite_region(STORE, instruction)
        return STORE.splitlines()[start].strip(), end - start

    assert named("add a docstring to cheapest") == ("def cheapest(self):", 2)  # not `add` .. `cheapest`
    assert named("make Stack.pop raise IndexError when empty") == ("def pop(self):", 2)
    assert named("make pop in Stack raise IndexError") == ("def pop(self):", 2)
    assert named("make `Inventory.remove` ignore missing names") == ("def remove(self, name):", 2)
    assert named("add logging to Stack") == ("class Stack:", 6)
    assert named("add a docstring to add") == ("def add(self, name):", 2)  # the verb is the only name


PRICES = '''"""Price helpers."""


def parse_price(text):
    text = text.strip().lstrip("$")
    return float(text)


def total(prices):
    result = 0
    for price in prices:
        result = result + price
    return result


def cheapest(prices):
    return min(prices)
'''


def test_rewrite_region_takes_in_the_plain_names_listed_with_a_code_like_one():
    assert prompts.rewrite_region(PRICES, "add type hints to parse_price and total") == (3, 13)
    assert prompts.rewrite_region(PRICES, "add type hints to parse_price, total or cheapest") == (3, 17)
    assert prompts.rewrite_region(PRICES, "make parse_price return the total") == (3, 6)  # a word, not a list
    assert prompts.rewrite_region(PRICES, "make parse_price and the total strip spaces") == (3, 6)
    # A redirect narrows from both to the one it names.
    both = prompts.rewrite_region(PRICES, "add type hints to parse_price and total")
    assert prompts.redirect_region(PRICES, both, ["no, only to total"]) == (8, 13)


def test_rewrite_region_is_the_whole_file_when_small_or_for_a_renamed_definition():
    whole = (0, len(STORE.splitlines()))
    assert prompts.rewrite_region(STORE, "rename total_value to value") == whole  # its uses change too
    assert prompts.rewrite_region(STORE, "in cheapest, rename the variable x to y") != whole
    small = "import math\n\n\ndef area(r):\n    return 3 * r * r\n"
    assert prompts.rewrite_region(small, "make `area` use math.pi") == (0, 5)


def test_prewarm_with_a_region_covers_the_region_block_too():
    region = (8, 12)
    warm = prompts.prewarm_input(prompts.REWRITE, "m.py", SRC, region=region)
    turn = prompts.build_input(prompts.REWRITE, "m.py", SRC, "Make it 4.", region=region)
    assert warm[0] == turn[0]
    assert turn[-1]["content"].startswith(warm[1]["content"])
    assert "value = 3" in warm[1]["content"]


def test_rewrite_prompt_says_an_unchanged_reply_is_wrong_and_shows_a_worked_example():
    system = prompts.system_prompt(prompts.REWRITE)
    assert "a reply identical to the region is wrong" in system and "Example. Region:" in system
    assert "with the change made" in prompts._REMINDER[prompts.REWRITE]
    assert "identical" not in prompts.system_prompt(prompts.SEARCH_REPLACE)


def test_a_deletion_is_asked_of_the_code_around_what_goes():
    def region(instruction, given=None):
        start, end = prompts.deletion_region(PRICES, instruction, given) if given else prompts.rewrite_region(PRICES, instruction)
        return PRICES.splitlines()[start].strip(), PRICES.splitlines()[end - 1].strip()

    # A top-level function: it and the next one (the one before when it is the last).
    assert region("delete parse_price") == ("def parse_price(text):", "return result")
    assert region("remove the cheapest function") == ("def total(prices):", "return min(prices)")
    # A region that holds more than what goes, and requests that delete nothing, stay as they are.
    assert region("remove parse_price and make total use it", (3, 13)) == ("def parse_price(text):", "return result")
    assert region("make cheapest return None for an empty list") == ("def cheapest(prices):", "return min(prices)")
    assert region("remove the debug prints from cheapest") == ("def cheapest(prices):", "return min(prices)")
    # A method: its class, the region the cursor gave included.
    start, end = prompts.rewrite_region(STORE, "delete the cheapest method")
    assert STORE.splitlines()[start] == "class Inventory:" and end == len(STORE.splitlines())
    assert prompts.deletion_region(STORE, "please remove cheapest", (21, 23)) == (start, end)
    assert prompts.deletion_region(STORE, "remove pop from Stack", (7, 9)) == (3, 9)


def test_deleting_this_names_the_definition_at_the_cursor():
    cheapest = (21, 23)
    assert prompts.deletion_request(STORE, "delete this method", cheapest) == "delete this method (`cheapest`)"
    assert prompts.deletion_request(STORE, "remove it", cheapest) == "remove it (`cheapest`)"
    # Not where the deletion is of something inside it, or names what goes, or is no deletion.
    assert prompts.deletion_request(STORE, "remove the print from this", cheapest) == "remove the print from this"
    assert prompts.deletion_request(STORE, "delete cheapest", cheapest) == "delete cheapest"
    assert prompts.deletion_request(STORE, "make it faster", cheapest) == "make it faster"
    assert prompts.deletion_request(STORE, "delete this", (18, 23)) == "delete this"  # not one definition
