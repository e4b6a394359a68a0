"""An answer that adds code after a return the file already had (code that never runs) is refused."""

from __future__ import annotations

import pytest

from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from steer_tui.edits.unreachable import unreachable_added

OLD = ("def naturalsize(value):\n"
       "    bytes_ = float(value)\n"
       "    if bytes_ < 1000:\n"
       "        return f\"{int(bytes_)} Bytes\"\n"
       "    return f\"{bytes_ / 1000:.1f} kB\"\n")
# "return the not-finite text for inf and nan" as a 1.5B model answered it: the check after the return.
BURIED = OLD + ("\n"
                "    if math.isinf(bytes_) or math.isnan(bytes_):\n"
                "        return _format_not_finite(bytes_)\n")
PLACED = OLD.replace("    if bytes_ < 1000:\n",
                     "    if math.isinf(bytes_) or math.isnan(bytes_):\n"
                     "        return _format_not_finite(bytes_)\n"
                     "    if bytes_ < 1000:\n")
ASK = "naturalsize: return the not-finite text for inf and nan values"


def test_code_added_after_a_kept_return_is_found():
    assert unreachable_added(OLD, BURIED, "filesize.py") == [(7, 5)]


def test_code_added_before_it_is_not():
    assert unreachable_added(OLD, PLACED, "filesize.py") == []


def test_an_early_return_the_edit_writes_itself_is_what_was_asked():
    early = OLD.replace("    bytes_ = float(value)\n", "    return None\n    bytes_ = float(value)\n")
    assert unreachable_added(OLD, early, "filesize.py") == []


def test_dead_code_the_file_already_had_is_not_the_edits():
    old = "def f():\n    return 1\n    print('never')\n"
    new = "def f():\n    return 2\n    print('never')\n"
    assert unreachable_added(old, new, "f.py") == []


def test_a_nested_block_ends_only_itself():
    old = "def f(x):\n    for y in x:\n        if y:\n            continue\n    return x\n"
    new = "def f(x):\n    for y in x:\n        if y:\n            continue\n        log(y)\n    return x\n"
    assert unreachable_added(old, new, "f.py") == []


@pytest.mark.parametrize("path, old, new, line", [
    ("a.js", "function f(x) {\n  return x\n}\n", "function f(x) {\n  return x\n  check(x)\n}\n", 3),
    ("a.ts", "function f(x: number) {\n  throw new Error('no')\n}\n",
     "function f(x: number) {\n  throw new Error('no')\n  console.log(x)\n}\n", 3),
    ("A.java", "class A {\n  int f() {\n    return 1;\n  }\n}\n", "class A {\n  int f() {\n    return 1;\n    // then\n    g();\n  }\n}\n", 5),
    ("a.c", "int f(void) {\n  return 1;\n}\n", "int f(void) {\n  return 1;\n  g();\n}\n", 3),
    ("A.cs", "class A {\n  int F() {\n    return 1;\n  }\n}\n", "class A {\n  int F() {\n    return 1;\n    G();\n  }\n}\n", 4),
    ("a.go", "package a\n\nfunc f() int {\n\treturn 1\n}\n", "package a\n\nfunc f() int {\n\treturn 1\n\tg()\n}\n", 5),
])
def test_other_languages(path, old, new, line):
    assert [at for at, _ in unreachable_added(old, new, path)] == [line]


def test_a_label_after_the_jump_may_be_reached():
    old = "int f(int x) {\n  if (x) goto out;\n  return 1;\nout:\n  return 0;\n}\n"
    new = "int f(int x) {\n  if (x) goto out;\n  return 1;\nout:\n  log(x);\n  return 0;\n}\n"
    assert unreachable_added(old, new, "a.c") == []


def test_a_broken_answer_or_an_unknown_language_is_left_to_other_checks():
    assert unreachable_added(OLD, BURIED + "    if (:\n", "filesize.py") == []
    assert unreachable_added("a\n", "a\nb\n", "notes.txt") == []


def test_the_verdict_refuses_it_and_says_where_the_code_goes():
    lines = document_lines(OLD)[0]
    verdict = judge(parse(f"```python\n{BURIED}```\n", OLD, 0), OLD, lines, "filesize.py", ASK)
    assert verdict.status == "refused"
    assert "line 7" in verdict.reason
    assert "puts `if math.isinf(bytes_) or math.isnan(bytes_):` after `return f\"{bytes_ / 1000:.1f} kB\"`" in verdict.feedback
    placed = judge(parse(f"```python\n{PLACED}```\n", OLD, 0), OLD, lines, "filesize.py", ASK)
    assert placed.status == "proposal" and placed.new_text == PLACED
