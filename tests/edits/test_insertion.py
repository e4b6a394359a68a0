"""A new definition asked alone goes in at an insertion point: where it goes, how it sits there, what the prompt says."""

from __future__ import annotations

import pytest

from steer_tui import prompts
from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from steer_tui.insertion import CopyWatch, around, fit, holder_head, point, wanted
from steer_tui.prompts import edit_region as region_for

HELPERS = "\n\n".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(12))  # 47 lines
MODULE = '"""Helpers."""\n\n\n' + HELPERS + '\n\nif __name__ == "__main__":\n    print(helper_0(1))\n'
CLASS = ("class Ledger:\n    \"\"\"Entries.\"\"\"\n\n"
         + "\n".join(f"    def entry_{i}(self):\n        return {i}\n" for i in range(12)) + "\n\ndef after():\n    pass\n")
RUST = "pub struct V {\n    n: u8,\n}\n\nimpl V {\n" + "\n".join(
    f"    pub fn f{i}(&self) -> u8 {{\n        {i}\n    }}\n" for i in range(10)) + "}\n\nfn tail() {}\n"


def test_the_words_ask_for_a_new_definition_alone():
    assert wanted("add a function percent(value, total) that returns the share")
    assert wanted("add a Version method is_prerelease that returns true when pre is not empty")
    assert not wanted("add a helper and use it in total")
    assert not wanted("add logging to the sync function")


def test_a_new_function_goes_after_the_last_definition_before_a_main_block():
    at = point(MODULE, "add a function helper_12(x) that returns x", (0, len(MODULE.splitlines())), "helpers.py")
    lines = MODULE.splitlines()
    assert lines[at - 1] == "    return x + 11" and lines[at + 2] == 'if __name__ == "__main__":'
    assert region_for(MODULE, "add a function helper_12(x) that returns x", "helpers.py") == (at, at)


def test_a_region_too_small_or_other_words_keep_the_rewrite():
    small = "def f():\n    return 1\n" * 3
    assert point(small, "add a function g", (0, 6), "s.py") is None
    assert point(MODULE, "make helper_3 return x * 3", (0, len(MODULE.splitlines())), "helpers.py") is None
    start, end = region_for(MODULE, "add a helper and call it from helper_3", "helpers.py")
    assert start < end  # a rewrite: the new helper is one part of the edit


def test_a_new_method_goes_at_the_end_of_the_named_type():
    region = prompts.rewrite_region(CLASS, "add a Ledger method total that sums the entries", path="ledger.py")
    at = point(CLASS, "add a Ledger method total that sums the entries", region, "ledger.py")
    assert CLASS.splitlines()[at - 1] == "        return 11"
    assert holder_head(CLASS, at, "ledger.py") == "class Ledger"
    rust_region = prompts.rewrite_region(RUST, "add a V method twice that doubles n", path="v.rs")
    rust_at = point(RUST, "add a V method twice that doubles n", rust_region, "v.rs")
    assert RUST.splitlines()[rust_at] == "}" and holder_head(RUST, rust_at, "v.rs") == "impl V"


def test_the_new_lines_are_indented_and_spaced_as_the_place_wants():
    lines = CLASS.splitlines()
    at = 38
    assert lines[at - 1] == "        return 11"
    got = fit(lines, at, ["def total(self):", "    return 0", ""], "ledger.py")
    assert got == ["", "    def total(self):", "        return 0"]
    top = MODULE.splitlines()
    end = point(MODULE, "add a function g", (0, len(top)), "helpers.py")
    assert fit(top, end, ["def g():", "    pass"], "helpers.py") == ["", "", "def g():", "    pass"]


def test_an_answer_that_restates_the_type_around_its_member_or_echoes_the_lines_around_it():
    lines = RUST.splitlines()
    at = lines.index("}", 5)
    wrapped = ["impl V {", "    pub fn twice(&self) -> u8 {", "        self.n * 2", "    }", "}"]
    member = ["    pub fn twice(&self) -> u8 {", "        self.n * 2", "    }"]
    assert fit(lines, at, wrapped, "v.rs") == [""] + member
    echoed = ["    }", "", *member, "}"]
    assert fit(lines, at, echoed, "v.rs") == [""] + member
    flush = ["pub fn twice(&self) -> u8 {", "    self.n * 2", "}"]
    assert fit(lines, at, flush, "v.rs") == [""] + member  # its own `}` is not the type's


def test_the_judge_applies_an_insertion_answer_in_place():
    lines = RUST.splitlines()
    at = lines.index("}", 5)
    answer = parse("```rust\nimpl V {\n    pub fn twice(&self) -> u8 {\n        self.n * 2\n    }\n}\n```\n", "", at)
    verdict = judge(answer, RUST, document_lines(RUST)[0], "v.rs", "add a V method twice")
    assert verdict.status == "proposal"
    assert "    }\n\n    pub fn twice(&self) -> u8 {\n        self.n * 2\n    }\n}\n\nfn tail() {}\n" in verdict.new_text


def test_the_prompt_says_where_and_asks_for_the_new_code_alone():
    at = point(MODULE, "add a function g", (0, len(MODULE.splitlines())), "helpers.py")
    said = prompts.instruction_message(prompts.REWRITE, "add a function g", MODULE, (at, at), path="helpers.py")["content"]
    assert said.startswith(prompts.INSERT_REMINDER) and f"after line {at}" in said and "```" not in said
    inside = prompts.instruction_message(prompts.REWRITE, "add a V method twice", RUST, (45, 45), path="v.rs")["content"]
    assert "inside `impl V`" in inside


def test_a_big_file_is_shown_around_what_the_new_code_follows():
    lines = RUST.splitlines()
    at = lines.index("}", 5)
    start, end = around(RUST, at, "v.rs")
    assert lines[start].strip().startswith("pub fn f9") and end == at


def test_an_answer_writing_out_the_file_s_own_code_is_caught_as_it_streams():
    watch = CopyWatch(CLASS)
    assert not watch.copying("```python\nclass Ledger:\n")
    assert watch.copying("```python\nclass Ledger:\n    \"\"\"Entries.\"\"\"\n    def entry_0(self):\n        return 0\n"
                         "    def entry_1(self):\n")
    assert CopyWatch(CLASS).copying("```rust\nimpl Version {\n    // ... lines 372-388 omitted ...\n")  # the view's outline
    assert not CopyWatch(CLASS).copying("```python\n    def total(self):\n        return sum(\n            1\n"
                                        "        )\n    # done\n")


def test_the_view_of_a_big_file_shows_the_definition_the_new_code_follows():
    from steer_tui.project.window import file_view

    big = RUST + "\n".join(f"fn pad_{i}() -> u32 {{\n    {i}\n}}\n" for i in range(400))
    at = big.splitlines().index("}", 5)
    shown = file_view("v.rs", big, (at, at), 800)
    assert "    pub fn f9(&self) -> u8 {\n        9\n    }" in shown  # whole, not an outline line
    assert "fn pad_399" not in shown or "omitted" in shown


@pytest.mark.parametrize("lines, at", [
    (["def a():", "    pass", "", "", "# run it", 'if __name__ == "__main__":', "    a()"], 2),
    (["import React from 'react'", "", "export default function App() {", "  return 1", "}", "", "function b() {",
      "  return 2", "}"], 9),  # a default export that is not last is a definition like any
    (["function a() {", "  return 1", "}", "", "module.exports = { a };"], 3),
    (["fn a() {}", "", "#[cfg(test)]", "mod tests {", "    #[test]", "    fn t() {}", "}"], 1),
    (["#ifndef X_H", "#define X_H", "", "int a(void);", "", "#endif"], 4),
    (["def a():", "    pass", "", "", "@app.route('/')", "def b():", "    pass"], 7),
])
def test_the_end_of_a_file_is_before_what_closes_it(lines, at):
    from steer_tui.insertion import _file_end

    assert _file_end(lines + [""]) == at


def test_a_function_the_words_mention_is_no_edit_target_of_a_new_one():
    """"a function that is helper_3 with ..." names helper_3: the new function goes at the end, helper_3 untouched."""
    at = region_for(MODULE, "add a function helper_twice(x) that is helper_3 applied twice", "helpers.py")
    assert at[0] == at[1] and MODULE.splitlines()[at[0] - 1] == "    return x + 11"
