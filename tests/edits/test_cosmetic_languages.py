"""steer_tui.edits.cosmetic for the languages steer_tui.lang knows besides Python: layout and comments
alone are cosmetic, a changed token is not, and the verdict on such an answer is no change."""

import pytest

from steer_tui.edits.cosmetic import COSMETIC_REASON, cosmetic
from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from tests.lang.samples import by_suffix


@pytest.mark.parametrize("suffix, old, new", [
    (".go", "// Push adds x at the back.", "// Push appends x to the queue."),
    (".go", "\tq.items = append(q.items, x)", "\tq.items = append(q.items,   x) // grow"),
    (".ts", "  area(): number {", "  /** The area. */\n  area(): number {"),
    (".rs", "/// A point on the plane.\n", ""),
    (".rs", "    x: f64,\n    y: f64,", "    x: f64, y: f64,"),
    (".java", "this.balance = opening;", "this.balance  =  opening;  // start"),
    (".rb", "@items = []", "@items = [] # empty"),
])
def test_layout_and_comments_alone_are_cosmetic(suffix, old, new):
    sample = by_suffix(suffix)
    assert old in sample.text
    assert cosmetic(sample.path, sample.text, sample.text.replace(old, new, 1))


@pytest.mark.parametrize("suffix, old, new", [
    (".go", "return b", "return a"),
    (".ts", '"small"', '"smal l"'),  # a space inside a string is code
    (".rs", "x: 1.0", "x: 1.5"),
    (".java", "this.balance = opening;", "this.balance = -opening;"),
    (".rb", "@items = []", "@items = [1]"),
])
def test_a_changed_token_is_code(suffix, old, new):
    sample = by_suffix(suffix)
    assert old in sample.text
    assert not cosmetic(sample.path, sample.text, sample.text.replace(old, new, 1))


def test_a_text_that_does_not_parse_falls_back_to_trailing_whitespace():
    sample = by_suffix(".go")
    broken = sample.text.replace("\t\treturn a\n\t}\n", "\t\treturn a\n")
    assert not cosmetic(sample.path, broken, broken.replace("// Queue is a FIFO.", "// A FIFO."))
    assert cosmetic(sample.path, broken, broken.replace("x int) {", "x int) {  "))


def test_the_verdict_on_a_comment_only_go_answer_is_no_change_unless_asked():
    sample = by_suffix(".go")
    new = sample.text.replace("// Push adds x at the back.", "// Push adds x at the end.")
    lines = document_lines(sample.text)[0]
    answer = parse(f"```go\n{new}```\n", sample.text, 0)
    fixed = judge(answer, sample.text, lines, sample.path, "make Max return the larger one")
    assert fixed.status == "nothing" and fixed.reason == COSMETIC_REASON
    documented = judge(answer, sample.text, lines, sample.path, "reword the comment of Push")
    assert documented.status == "proposal" and documented.new_text == new
