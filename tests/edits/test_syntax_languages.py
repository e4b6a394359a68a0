"""steer_tui.edits.syntax beyond Python: the hunk that breaks a file's syntax in another language, through steer_tui.lang."""

from steer_tui.edits.syntax import check

GO = """package shapes

func Area(w, h int) int {
	return w * h
}

func Perimeter(w, h int) int {
	return 2 * (w + h)
}
"""


def apply(text, hunks):
    out, pos, old = [], 0, text.splitlines()
    for start, end, new in sorted(hunks):
        out += old[pos:start] + list(new)
        pos = end
    return "\n".join(out + old[pos:]) + "\n"


def test_the_breaking_hunk_is_named_with_the_language():
    hunks = [(2, 3, ["// Area is w times h.", "func Area(w, h int) int {"]),
             (7, 8, ["\treturn 2 * (w + h"])]
    problem = check("shapes.go", GO, apply(GO, hunks), hunks)
    assert problem is not None and problem.hunk == 1 and problem.language == "Go"
    assert "breaks the Go syntax" in problem.describe() and "hunk 2" in problem.describe()


def test_a_good_edit_and_an_unknown_language_are_no_problem():
    hunks = [(3, 4, ["\treturn h * w"])]
    assert check("shapes.go", GO, apply(GO, hunks), hunks) is None
    broken = [(3, 4, ["\treturn h * w {"])]
    assert check("shapes.go", GO, apply(GO, broken), broken) is not None
    assert check("shapes.txt", GO, apply(GO, broken), broken) is None  # not a language steer knows


def test_a_file_that_had_an_error_is_not_blamed_on_the_edit():
    had = GO.replace("return w * h\n}", "return w * h\n")  # Area lost its closing brace
    hunks = [(7, 8, ["\treturn (w + h) * 2"])]
    assert had.splitlines()[7] == "\treturn 2 * (w + h)"
    assert check("shapes.go", had, apply(had, hunks), hunks) is None
