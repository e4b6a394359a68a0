"""The region helpers in a language steer_tui.lang knows: the definition around the cursor by the grammar, not the indentation."""

from __future__ import annotations

from steer_tui import prompts
from steer_tui.region import region_for_send

from .samples import by_suffix

# Brace style the indentation guess cannot follow: the body is not indented past its header.
GO = """package calc

func Sum(xs []int) int {
total := 0
for _, x := range xs {
total += x
}
return total
}

func Max(a, b int) int {
if a > b {
return a
}
return b
}
"""


def test_the_grammar_finds_the_function_the_indentation_does_not():
    assert prompts.enclosing_region(GO, 5, path="calc.go") == (2, 9)  # Sum
    assert prompts.enclosing_region(GO, 12, path="calc.go") == (10, 16)  # Max
    # Without a language the indentation guess is all there is: a line of Sum's body alone.
    assert prompts.enclosing_region(GO, 5) != (2, 9)
    assert prompts.enclosing_region(GO, 5, path="calc.txt") == prompts.enclosing_region(GO, 5)


def test_this_method_and_this_class_in_java():
    s = by_suffix(".java")
    method = prompts.cursor_definition(s.text, 12, "add a javadoc to this method", path=s.path)
    assert method == (10, 14)  # toString, its @Override first
    whole = prompts.cursor_definition(s.text, 12, "make this class final", path=s.path)
    assert whole == (2, 19)  # Account, its doc comment first
    lines = s.text.splitlines()
    assert region_for_send(lines, None, 12, True, "document this method", path=s.path) == (10, 14)


def test_this_method_in_rust_and_ruby():
    rs = by_suffix(".rs")
    assert prompts.cursor_definition(rs.text, 11, "speed up this function", path=rs.path) == (10, 13)  # norm
    rb = by_suffix(".rb")
    assert prompts.cursor_definition(rb.text, 8, "delete this method", path=rb.path) == (7, 11)  # push


def test_a_file_that_does_not_parse_keeps_the_old_guess():
    broken = GO.replace("func Max(a, b int) int {", "func Max(a, b int) int {{")
    assert prompts.enclosing_region(broken, 5, path="calc.go") == prompts.enclosing_region(broken, 5)
    assert prompts.cursor_definition(broken, 5, "fix this function", path="calc.go") is None


async def test_the_app_asks_the_grammar_for_this_method(tmp_path):
    import shutil

    from steer_tui.ui.app import make_app
    from tests.ui.conftest import settings

    from .samples import FILES

    s = by_suffix(".java")
    shutil.copy(FILES / s.path, tmp_path / s.path)
    app = make_app(tmp_path / s.path, settings(backend="ws://127.0.0.1:9/v1/responses"), watch=False, connect=False)
    async with app.run_test(size=(100, 40)):
        app.code.cursor_placed = True
        app.code.cursor_line = 12  # inside toString
        assert app.region_for_send("add a javadoc to this method") == (10, 14)
        assert app.region_for_send("make this class final") == (2, 19)
