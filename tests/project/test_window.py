"""project.window: what the model is shown of a file, whole when it fits, else around the region."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steer_tui import prompts
from steer_tui.project.window import (
    LOCAL_FILE_TOKENS, REMOTE_FILE_TOKENS, estimate_tokens, file_budget, file_view, fits, needs_region)

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = (ROOT / "examples" / "inventory.py").read_text(encoding="utf-8")
_NUMBERED = re.compile(r"^\s*(?:#|//) \.\.\. lines? (\d+)(?:-(\d+))? omitted \.\.\.$")
_BODY = re.compile(r"^\s*(?:\.\.\.|// \.\.\.)$")


def python_module(classes: int = 120) -> str:
    """A Python module of many classes and functions (about 13 lines a class), the edit's target inside."""
    out = ['"""Stock keeping."""', "", "import json", "import os", "from dataclasses import dataclass", "",
           "PAGE_SIZE = 50", ""]
    for i in range(classes):
        if i == classes // 2:
            out += ["", "class Target:", '    """The class the edit is about."""', "", "    LIMIT = 7", "",
                    "    def before(self):", "        return 1", "",
                    "    def change_me(self, value):", "        total = value * 2", "        return total + self.LIMIT", "",
                    "    def after(self):", "        return 2", ""]
        out += ["", f"class Store{i}:", f'    """Store number {i}."""', "", f"    def load_{i}(self, path):",
                f"        with open(path) as f:", f"            return json.load(f)", "",
                f"    def save_{i}(self, path, data):", "        with open(path, 'w') as f:",
                "            json.dump(data, f)", "", "", f"def helper_{i}(x):", f"    return x + {i}"]
    return "\n".join(out) + "\n"


def java_class(methods: int = 300) -> str:
    out = ["package shop;", "", "import java.util.List;", "import java.util.Map;", "", "public class Ledger {",
           "    private final Map<String, Integer> totals;", ""]
    for i in range(methods):
        if i == methods // 2:
            out += ["    public int changeMe(int value) {", "        int total = value * 2;", "        return total;",
                    "    }", ""]
        out += [f"    public int amount{i}(List<Integer> xs) {{", "        int sum = 0;",
                "        for (int x : xs) {", "            sum += x;", "        }", f"        return sum + {i};", "    }", ""]
    out.append("}")
    return "\n".join(out) + "\n"


def check_lines(view: str, lines: list[str]) -> None:
    """Every line shown is a line of the file, in order, at the number the marks say."""
    at: int | None = 0  # the next line of the file; None: somewhere after `floor` (after a body left out)
    floor = 0
    for shown in view.splitlines():
        m = _NUMBERED.match(shown)
        if m:
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            assert at is None and first - 1 >= floor or at == first - 1, (shown, at)
            at = last
            continue
        if _BODY.match(shown) and (at is None or lines[at] != shown):
            floor, at = (at if at is not None else floor), None
            continue
        if at is None:
            if not shown.strip():
                continue  # a blank line after a body left out: which one it is, the next line tells
            at = lines.index(shown, floor)
        assert lines[at] == shown, (at, shown)
        at += 1


def region_of(text: str, name: str) -> tuple[int, int]:
    return prompts.definitions(text, "m.py")[name]


def test_a_file_that_fits_is_shown_byte_for_byte_as_before():
    assert fits(INVENTORY, LOCAL_FILE_TOKENS)
    assert file_view("inventory.py", INVENTORY, (12, 36), LOCAL_FILE_TOKENS) is INVENTORY
    for region in (None, (12, 36), (38, 41)):
        assert prompts.file_message("inventory.py", INVENTORY, region, LOCAL_FILE_TOKENS) == \
            prompts.file_message("inventory.py", INVENTORY)
        turn = prompts.build_input(prompts.REWRITE, "inventory.py", INVENTORY, "skip blank lines", region,
                                   file_tokens=LOCAL_FILE_TOKENS)
        assert turn == prompts.build_input(prompts.REWRITE, "inventory.py", INVENTORY, "skip blank lines", region)
        warm = prompts.prewarm_input(prompts.REWRITE, "inventory.py", INVENTORY, region, file_tokens=LOCAL_FILE_TOKENS)
        assert warm == prompts.prewarm_input(prompts.REWRITE, "inventory.py", INVENTORY, region)


def test_a_big_python_file_keeps_the_region_with_its_real_numbers_within_the_budget():
    text = python_module()
    lines = text.splitlines()
    assert len(lines) > 1500 and not fits(text, 2000)
    region = region_of(text, "change_me")
    view = file_view("m.py", text, region, 2000)
    assert estimate_tokens(view) <= 2000
    check_lines(view, lines)
    shown = view.splitlines()
    body = lines[region[0]:region[1]]
    start = shown.index(body[0])
    assert shown[start:start + len(body)] == body  # the region whole, in one piece
    assert "class Target:" in shown and "    LIMIT = 7" in shown  # its class's head and members
    assert "    def before(self):" in shown and "        return 2" in shown  # its neighbours whole
    assert "import json" in shown and "PAGE_SIZE = 50" in shown  # the file's head
    assert any(_NUMBERED.match(s) for s in shown)
    # An outline of the rest: the definitions past the surroundings by their signature alone.
    outlined = [i for i, s in enumerate(shown[:-1]) if s.startswith("class Store") and shown[i + 1] == "    ..."]
    assert len(outlined) >= 10


def test_a_rewrite_s_view_is_the_same_for_every_region_so_one_prewarm_serves_them_all():
    text = python_module()
    region = region_of(text, "change_me")
    warm = prompts.prewarm_input(prompts.REWRITE, "m.py", text, region, file_tokens=2000)
    turn = prompts.build_input(prompts.REWRITE, "m.py", text, "make it triple", region, file_tokens=2000)
    assert warm[0] == turn[0]
    assert turn[-1]["content"].startswith(warm[1]["content"])
    assert f"Region (lines {region[0] + 1}-{region[1]})" in turn[-1]["content"]
    assert "shown in part" in turn[0]["content"].splitlines()[0]
    # The region block shows the region whole; the view is the file's head and outline, whatever the region.
    other = prompts.build_input(prompts.REWRITE, "m.py", text, "make it triple", region_of(text, "helper_3"),
                                file_tokens=2000)
    assert other[0] == turn[0] == prompts.prewarm_input(prompts.REWRITE, "m.py", text, None, file_tokens=2000)[0]
    assert "        total = value * 2" not in turn[0]["content"] and "        total = value * 2" in turn[-1]["content"]


def test_a_format_without_a_region_block_is_shown_around_its_region():
    text = python_module()
    region, elsewhere = region_of(text, "change_me"), region_of(text, "helper_3")
    turn = prompts.build_input(prompts.SEARCH_REPLACE, "m.py", text, "make it triple", None, file_tokens=2000,
                               focus=region)
    assert "        total = value * 2" in turn[0]["content"]
    assert turn[0] == prompts.prewarm_input(prompts.SEARCH_REPLACE, "m.py", text, region, file_tokens=2000)[0]
    other = prompts.build_input(prompts.SEARCH_REPLACE, "m.py", text, "make it triple", None, file_tokens=2000,
                                focus=elsewhere)
    assert other[0] != turn[0]


def test_a_brace_language_keeps_signatures_and_closing_braces_with_its_comment_marks():
    text = java_class()
    lines = text.splitlines()
    region = next((d.start, d.end) for d in __import__("steer_tui.lang", fromlist=["x"]).definitions("L.java", text)
                  if d.name == "changeMe")
    view = file_view("L.java", text, region, 1500)
    assert estimate_tokens(view) <= 1500
    check_lines(view, lines)
    shown = view.splitlines()
    assert shown[shown.index("    public int changeMe(int value) {") + 3] == "    }"
    assert "public class Ledger {" in shown and shown[-1] == "}"
    assert "import java.util.List;" in shown
    assert any(s.strip().startswith("// ... lines") for s in shown)
    assert not any(s.strip().startswith("# ...") for s in shown)
    outlined = [i for i, s in enumerate(shown[:-2]) if s.startswith("    public int amount")
                and shown[i + 1:i + 3] == ["        // ...", "    }"]]
    assert len(outlined) >= 10
    whole = [s for s in shown if s.startswith("        return sum + ")]
    assert whole and any(int(s.split("+ ")[1][:-1]) < 150 for s in whole)  # neighbours on both sides


def test_an_unknown_language_shows_the_region_and_top_level_lines():
    text = "".join(f"section_{i} {{\n  key = {i}\n  other = {i * 2}\n}}\n\n" for i in range(600))
    lines = text.splitlines()
    region = (1500, 1504)  # section_300
    view = file_view("conf.lua", text, region, 800)
    assert estimate_tokens(view) <= 800
    shown = view.splitlines()
    assert shown[shown.index("section_300 {"):shown.index("section_300 {") + 4] == lines[1500:1504]
    assert any(s.startswith("-- ... lines") for s in shown)


def test_no_region_shows_the_head_and_the_outline_from_the_top():
    text = python_module()
    view = file_view("m.py", text, None, 1200)
    assert estimate_tokens(view) <= 1200
    check_lines(view, text.splitlines())
    assert view.startswith('"""Stock keeping."""\n\nimport json')
    assert "class Store0:" in view


def test_a_region_over_the_budget_is_shown_whole_anyway():
    text = python_module()
    region = (100, 700)
    view = file_view("m.py", text, region, 600)
    lines = text.splitlines()
    assert "\n".join(lines[100:700]) in view
    check_lines(view, lines)


def test_needs_region_names_the_reason_and_what_to_do():
    text = python_module()
    n = len(text.splitlines())
    why = needs_region("m.py", text, None, 2000)
    assert f"m.py has {n:,} lines" in why and "Name a function or class" in why and "--region" in why
    assert needs_region("m.py", text, (0, n), 2000) == why
    assert needs_region("m.py", text, region_of(text, "change_me"), 2000) == ""
    assert needs_region("inventory.py", INVENTORY, None, LOCAL_FILE_TOKENS) == ""
    assert needs_region("m.py", text, None, None) == ""


@pytest.mark.parametrize("configured, backend, engine, context, want", [
    (None, "local", None, None, LOCAL_FILE_TOKENS),
    (None, "ws://127.0.0.1:1/v1/responses", "local", 16384, LOCAL_FILE_TOKENS),
    (None, "vllm", "upstream", 30000, 10000),
    (None, "openai", None, None, REMOTE_FILE_TOKENS),
    (6000, "local", "local", 16384, 6000),
])
def test_the_budget_suits_the_backend(configured, backend, engine, context, want):
    assert file_budget(configured, backend, engine, context) == want


def test_a_20000_line_file_is_viewed_quickly_enough_for_every_request():
    import time

    text = python_module(1500)
    assert len(text.splitlines()) > 20000
    region = region_of(text, "change_me")
    started = time.perf_counter()
    view = file_view("m.py", text, region, LOCAL_FILE_TOKENS)
    took = time.perf_counter() - started
    assert estimate_tokens(view) <= LOCAL_FILE_TOKENS
    check_lines(view, text.splitlines())
    assert took < 5  # a bound against a walk of every node in Python, not a timing claim (bench/bigfile.py)



HEF = ("from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n"
       '    """True where the balance falls below zero."""\n    balance = 0\n    for op in operations:\n'
       "        balance += op\n        if balance == 0:\n            return True\n    return False\n")


def test_a_region_that_is_all_but_a_few_lines_is_shown_once():
    """A one-shot command's request (nothing read the file ahead) on a region that is all but a few
    lines of the file shows it once, in its block: no file message. The app reads the file's message
    ahead, so there it is the whole file, the prefix every request shares."""
    region = (3, 11)
    alone = prompts.build_input("rewrite", "below_zero.py", HEF, "fix bugs in below_zero", region, once=True)
    shared = prompts.build_input("rewrite", "below_zero.py", HEF, "fix bugs in below_zero", region)
    assert len(alone) == 1 and alone[0] == shared[-1]
    assert "    balance = 0\n" in alone[0]["content"] and "Region (lines 4-11)" in alone[0]["content"]
    assert shared[0]["content"].startswith("File: below_zero.py\n```python\nfrom typing import List\n")


def test_more_lines_outside_an_insertion_point_or_other_formats_keep_the_file_message():
    from steer_tui.project.window import ONCE_OUTSIDE, region_once

    more = HEF + "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(3))
    assert region_once(HEF, (3, 11)) and not region_once(more, (3, 11))  # 1 line outside against 7
    assert ONCE_OUTSIDE < 7
    assert not region_once(HEF, (11, 11)) and not region_once(HEF, "def below_zero(): ...")
    messages = prompts.build_input("rewrite", "m.py", more, "fix bugs in below_zero", (3, 11), once=True)
    assert messages[0]["content"].startswith("File: m.py")
    for fmt in ("search_replace", "apply_patch"):
        messages = prompts.build_input(fmt, "below_zero.py", HEF, "fix bugs", (3, 11), once=True)
        assert "    balance = 0\n" in messages[0]["content"] and len(messages) == 2


def test_a_java_method_in_its_class_is_shown_once():
    from steer_tui.project.window import region_once

    java = ("import java.util.*;\n\nclass Solution {\n    public boolean belowZero(List<Integer> ops) {\n"
            "        int balance = 0;\n        for (int op : ops) {\n            balance += op;\n"
            "            if (balance < 0) return true;\n        }\n        return false;\n    }\n}\n")
    assert region_once(java, (3, 11)) and region_once(java, (0, 12))
