"""Lines an answer changed only in whitespace beside its real change are put back; a re-indent that
changes the code, a string's spaces, and a file of no known language keep the answer's lines."""

from __future__ import annotations

from steer_tui.edits.judge import judge
from steer_tui.edits.layout import restore_layout
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse

MODEL = (
    "class User:\n"
    "    def unread(self):\n"
    "        query = select(Message).where(Message.recipient == self,\n"
    "                                      Message.timestamp > self.last_read)\n"
    "        return count(query)\n"
    "\n"
    "    def launch(self, name, *args):\n"
    "        job = queue.enqueue(f'tasks.{name}', self.id,\n"
    "                            *args)\n"
    "        return job\n"
)
NEW_METHOD = "\n    def token_valid(self):\n        return self.token is not None\n"
# As a 1.5B model answered "add a method" over a whole class: the new method, and two continuation
# lines that lost their alignment.
ANSWER = (MODEL.replace("\n                                      Message.timestamp", "\n Message.timestamp")
          .replace("\n                            *args)", "\n *args)") + NEW_METHOD)
WANTED = MODEL + NEW_METHOD


def test_continuation_lines_that_lost_their_alignment_are_put_back():
    assert restore_layout("models.py", MODEL, ANSWER) == WANTED


def test_a_re_indent_that_changes_the_code_is_kept():
    old = "def any_big(xs):\n    for x in xs:\n        if x > 9:\n            return True\n        return False\n"
    new = "def any_big(xs):\n    for x in xs:\n        if x > 9:\n            return True\n    return False\n"
    assert restore_layout("f.py", old, new) == new


def test_spaces_inside_a_string_are_code():
    old = "GREETING = 'hello  world'\nx = 1\n"
    new = "GREETING = 'hello world'\nx = 2\n"
    assert restore_layout("f.py", old, new) == new


def test_only_the_lines_that_change_nothing_are_put_back_when_one_re_indent_matters():
    old = ("def f(xs):\n    total = add(1,\n                2)\n    for x in xs:\n        if x:\n"
           "            return x\n        return None\n")
    new = ("def f(xs):\n    total = add(1,\n 2)\n    for x in xs:\n        if x:\n"
           "            return x\n    return None\n")
    want = ("def f(xs):\n    total = add(1,\n                2)\n    for x in xs:\n        if x:\n"
            "            return x\n    return None\n")
    assert restore_layout("f.py", old, new) == want


def test_javascript_lines_re_indented_beside_a_change_are_put_back():
    old = "function f(a,\n           b) {\n  return a - b;\n}\n"
    new = "function f(a,\n  b) {\n  return a + b;\n}\n"
    assert restore_layout("f.js", old, new) == "function f(a,\n           b) {\n  return a + b;\n}\n"


def test_a_file_of_no_known_language_keeps_the_answer():
    old = "key:\n    value: 1\nother: 2\n"
    new = "key:\n  value: 1\nother: 3\n"
    assert restore_layout("conf.unknownext", old, new) == new


def test_the_verdict_proposes_the_change_without_the_lost_alignment_unless_layout_is_asked_for():
    lines = document_lines(MODEL)[0]
    answer = parse(f"```python\n{ANSWER}```\n", MODEL, 0)
    verdict = judge(answer, MODEL, lines, "models.py", "add a User method token_valid")
    assert verdict.status == "proposal" and verdict.new_text == WANTED
    asked = judge(answer, MODEL, lines, "models.py", "add a User method token_valid and reformat the class")
    assert asked.status == "proposal" and asked.new_text == ANSWER
