"""Locator: each strategy in order, uniqueness, refusals."""

from __future__ import annotations

import pytest

from steer_tui.edits.locate import LocateError, is_elision, locate

FILE = """import os

def alpha(x):
    if x:
        return 1
    return 2


class Box:
    def beta(self, y):
        total = 0
        for i in range(y):
            total += i
        return total

    def gamma(self):
        return "it’s here"
""".split("\n")[:-1]


def L(text: str) -> list[str]:
    return text.split("\n")


def render(search, replace, **kw):
    s, r = L(search), L(replace)
    loc = locate(FILE, s, r, **kw)
    new = FILE[: loc.start] + loc.render(FILE, s, r) + FILE[loc.end :]
    return loc, new


def test_exact():
    loc, new = render("    if x:\n        return 1", "    if x:\n        return 10")
    assert loc.strategy == "exact" and (loc.start, loc.end) == (3, 5)
    assert new[4] == "        return 10"


def test_trailing_whitespace_ignored_and_file_bytes_kept():
    loc, new = render("    if x:   \n        return 1  ", "    if x:   \n        return 10  ")
    assert loc.strategy == "whitespace"
    assert new[3] == "    if x:" and new[4] == "        return 10"


def test_indent_shift_dedented_by_model_is_reindented():
    loc, new = render(
        "for i in range(y):\n    total += i", "for i in range(y):\n    total += i * 2"
    )
    assert loc.strategy == "indent" and loc.start == 11
    assert new[11:13] == ["        for i in range(y):", "            total += i * 2"]


def test_indent_shift_overindented_by_model():
    loc, new = render("        if x:\n            return 1", "        if x:\n            return 11")
    assert loc.strategy == "indent" and new[4] == "        return 11"


def test_spurious_blank_lines():
    loc, new = render("\ndef alpha(x):\n    if x:\n", "\ndef alpha(x):\n    if x is not None:\n")
    assert loc.strategy == "blank_lines"
    assert new[1:4] == ["", "def alpha(x):", "    if x is not None:"]
    assert new[0] == "import os" and len(new) == len(FILE)


def test_unicode_punctuation_folded():
    loc, new = render('        return "it\'s here"', '        return "it is here"')
    assert loc.strategy == "unicode" and new[-1] == '        return "it is here"'


def test_elision_keeps_the_gap():
    loc, new = render(
        "    def beta(self, y):\n        ...\n        return total",
        "    def beta(self, y: int):\n        ...\n        return total + 1",
    )
    assert loc.strategy == "elision"
    assert new[9] == "    def beta(self, y: int):" and new[13] == "        return total + 1"
    assert new[10:13] == FILE[10:13]


def test_elision_comment_forms():
    for line in ["...", "# ...", "    // ... existing code ...", "/* ... */", "# ... rest of the function", "…"]:
        assert is_elision(line), line
    for line in ["x = ...", "print('...')", "...and more code(x)"]:
        assert not is_elision(line), line


def test_elision_counts_must_agree():
    with pytest.raises(LocateError) as e:
        locate(FILE, L("def alpha(x):\n...\n    return 2"), L("def alpha(x):\n    return 3"))
    assert e.value.reason == "bad_elision"


def test_fuzzy_context_misquoted_but_changed_line_exact():
    search = "class Box:\n    def beta(self, yy):\n        total = 0\n        for i in range(y):"
    replace = "class Box:\n    def beta(self, yy):\n        total = 100\n        for i in range(y):"
    loc, new = render(search, replace)
    assert loc.strategy == "fuzzy"
    assert new[9] == "    def beta(self, y):"  # the file's real line is kept
    assert new[10] == "        total = 100"


def test_fuzzy_refuses_when_changed_line_is_misquoted():
    search = "class Box:\n    def beta(self, y):\n        total = 00\n        for i in range(y):"
    with pytest.raises(LocateError):
        locate(FILE, L(search), L(search.replace("00", "100")))


def test_ambiguous_exact_is_refused():
    lines = ["a", "x", "b", "x", "c"]
    with pytest.raises(LocateError) as e:
        locate(lines, ["x"], ["y"])
    assert e.value.reason == "ambiguous" and e.value.candidates == [1, 3]


def test_ambiguous_indent_shift_is_refused():
    lines = ["def f():", "    x = 1", "def g():", "        x = 1"]
    with pytest.raises(LocateError) as e:
        locate(lines, ["  x = 1"], ["  x = 2"])
    assert e.value.reason == "ambiguous"


def test_not_found():
    with pytest.raises(LocateError) as e:
        locate(FILE, ["completely invented line()"], ["x"])
    assert e.value.reason == "not_found"


def test_empty_search_rules():
    assert locate([], [], ["x"]).strategy == "empty"
    with pytest.raises(LocateError) as e:
        locate(FILE, [], ["x"])
    assert e.value.reason == "empty_search"
    loc = locate(FILE, [], ["x"], at_eof=True)
    assert loc.insert_only and loc.start == len(FILE)
    loc = locate(FILE, [], ["    pass"], anchor="def gamma(self):")
    assert loc.insert_only and loc.start == 16


def test_anchor_breaks_a_tie_as_apply_patch_defines():
    lines = ["def f():", "    return 0", "def g():", "    return 0"]
    loc = locate(lines, ["    return 0"], ["    return 1"], anchor="def g():")
    assert loc.start == 3


def test_tabs_in_file_spaces_from_model():
    lines = ["func main() {", "\tif x {", "\t\treturn", "\t}", "}"]
    s = ["    if x {", "        return", "    }"]
    r = ["    if x {", "        log()", "        return", "    }"]
    loc = locate(lines, s, r)
    assert loc.strategy == "indent" and (loc.start, loc.end) == (1, 4)
    assert loc.render(lines, s, r) == ["\tif x {", "\t\tlog()", "\t\treturn", "\t}"]


def test_fence_lines_inside_search_are_spurious():
    s = ["```python", "    if x:", "        return 1", "```"]
    r = ["```python", "    if x:", "        return 5", "```"]
    loc, new = render("\n".join(s), "\n".join(r))
    assert loc.strategy == "blank_lines" and new[4] == "        return 5" and len(new) == len(FILE)


def test_elision_changed_piece_must_be_unique_after_the_one_before():
    lines = ["def f():", "    if a:", "        return x", "    return x", "", "def g():", "    return x"]
    with pytest.raises(LocateError) as e:
        locate(lines, ["def f():", "...", "    return x"], ["def f():", "...", "    return y"])
    assert e.value.reason == "ambiguous"
    # an unchanged closing piece only marks the end of the kept code: its first occurrence does
    loc = locate(lines, ["def f():", "...", "    return x"], ["def f(a):", "...", "    return x"])
    assert loc.strategy == "elision"
    assert loc.render(lines, ["def f():", "...", "    return x"], ["def f(a):", "...", "    return x"])[0] == "def f(a):"


def test_unicode_match_folds_the_models_typography_in_new_lines():
    lines = ['msg = "hello"', "x = 1"]
    s, r = ["msg = “hello”"], ["msg = “hello world” – ok"]
    loc = locate(lines, s, r)
    assert loc.strategy == "unicode" and loc.render(lines, s, r) == ['msg = "hello world" - ok']
    # where the file itself is typographic, the model's new text is kept as written
    lines2 = ["title = “Hi”"]
    loc = locate(lines2, ['title = "Hi"'], ["title = “Hello”"])
    assert loc.render(lines2, ['title = "Hi"'], ["title = “Hello”"]) == ["title = “Hello”"]
