"""steer_tui.edits.cosmetic: which changes are whitespace, comments or docstrings alone, and which
instructions ask for such a change."""

import pytest

from steer_tui.edits.cosmetic import COSMETIC_REASON, asks_for_text, cosmetic
from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse

CODE = '''def below(l: list, t: int):
    """True if every number is below t.
    >>> below([1, 2], 3)
    True
    """
    for e in l:
        if e >= t:
            return True  # the bug
    return False
'''


@pytest.mark.parametrize("new", [
    CODE.replace("(l: list, t: int)", "(l: list,t: int)"),  # a space
    CODE.replace("    return False\n", "    return False   \n"),  # trailing whitespace
    CODE.replace("    True\n    \"\"\"", "    False\n    \"\"\""),  # a docstring example
    CODE.replace("  # the bug", ""),  # a comment
    CODE.replace("    for e in l:", "    # look at each\n    for e in l:"),  # a comment line
    CODE.replace('    """True if every number is below t.\n    >>> below([1, 2], 3)\n    True\n    """\n', ""),  # no docstring
    "'''A module docstring.'''\n" + CODE,
])
def test_whitespace_comments_and_docstrings_are_cosmetic(new):
    assert cosmetic("f.py", CODE, new)


@pytest.mark.parametrize("new", [
    CODE.replace("return True  # the bug", "return False"),
    CODE.replace("e >= t", "e > t"),
    CODE.replace("    return False\n", "    return False\n\n\nX = 'a b'\n"),
    CODE.replace("for e in l:", "for e in sorted(l):"),
    CODE + "\n    x = (\n",  # no longer parses: not judged cosmetic here (the syntax check refuses it)
    CODE,  # no change at all is not a cosmetic change
])
def test_code_changes_are_not_cosmetic(new):
    assert not cosmetic("f.py", CODE, new)


def test_a_string_that_is_not_a_docstring_is_code():
    old = 'def f():\n    x = 1\n    "a note"\n    return x\n'
    assert not cosmetic("f.py", 'def f():\n    return "a b"\n', 'def f():\n    return "ab"\n')
    assert not cosmetic("f.py", old, old.replace('"a note"', '"another"'))


def test_files_of_no_known_language_count_trailing_whitespace_alone():
    lua = "function f(a,b)\n  return a + b\nend\n"  # steer_tui.lang has no Lua
    assert cosmetic("f.lua", lua, lua.replace("b\n", "b   \n"))
    assert not cosmetic("f.lua", lua, lua.replace("a,b", "a, b"))  # no parser here: inner spaces may matter
    assert not cosmetic("f.lua", lua, lua.replace("a + b", "a - b"))


@pytest.mark.parametrize("instruction, asks", [
    ("Fix bugs in below_threshold.", False),
    ("make cheapest return None when there are no items", False),
    ("rename total to subtotal", False),
    ("add a docstring to parse_line", True),
    ("fix the typo in the comment", True),
    ("reformat this to pep8", True),
    ("use double quotes everywhere", True),
    ("add a doctest example", True),
    ("explain the loop", True),
    # Words of a docstring's sections or of what it is for: a text-only answer may be right.
    ("add usage info to parse_line", True),
    ("make cheapest raise ValueError when empty", False),
    # A name in the words is code, not a request: sort_third asks for no sorting.
    ("Fix bugs in sort_third.", False),
    ("fix `format_price`", False),
    ("sort the imports in format_price's module", True),
    ("mark parse_row as deprecated", True),
    ("document the args in Google style", True),
])
def test_which_instructions_ask_for_text(instruction, asks):
    assert asks_for_text(instruction) is asks


def _rewrite(code: str) -> str:
    return f"```python\n{code}```\n"


def test_the_verdict_on_a_cosmetic_answer_is_no_change_unless_asked():
    new = CODE.replace("    True\n    \"\"\"", "    False\n    \"\"\"")
    lines = document_lines(CODE)[0]
    answer = parse(_rewrite(new), CODE, 0)
    fixed = judge(answer, CODE, lines, "f.py", "Fix bugs in below.")
    assert fixed.status == "nothing" and fixed.reason == COSMETIC_REASON
    documented = judge(answer, CODE, lines, "f.py", "correct the doctest in below")
    assert documented.status == "proposal" and documented.new_text == new
