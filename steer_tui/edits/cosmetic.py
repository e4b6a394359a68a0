"""Whether a proposed change is cosmetic (whitespace, comments, docstrings alone), and whether an
instruction asks for a change of that kind.

A 1.5B model asked to fix a bug sometimes answers with a changed docstring example or a space
after a comma: an edit, but not the one asked for. Such an answer is judged as one that changes
nothing (a failed attempt, retried), unless the words ask for text, layout or documentation.
"""

from __future__ import annotations

import ast
import copy
import re

from steer_tui import lang
from steer_tui.edits.pydefs import first_line
from steer_tui.edits.pytree import parse_tree
from steer_tui.edits.syntax import is_python
from steer_tui import intent

COSMETIC_REASON = "the edit changes only whitespace, comments or docstrings"

# Words of an instruction that may rightly be answered by a cosmetic change. Broad on purpose: a
# false match only keeps the answer as a proposal, as before this check existed.
_ASKS_FOR_TEXT = intent.ASKS_FOR_TEXT  # steer_tui/intent.py


# Names of code are not words of the request: "Fix bugs in sort_third" asks for no sorting of text.
_NAMES = re.compile(r"`[^`]*`|\b\w*_\w*\b")


def asks_for_text(instruction: str | None) -> bool:
    """The instruction may be answered by a change to whitespace, comments or docstrings alone."""
    return bool(_ASKS_FOR_TEXT.search(_NAMES.sub(" ", instruction or "")))


def cosmetic(path: str | None, old: str, new: str) -> bool:
    """`new` differs from `old` only in whitespace, comments or docstrings: for Python both parse
    to the same tree once docstrings are left out; for another language steer_tui.lang knows both
    have the same tokens once comments are left out; for other files (or a text that does not parse)
    only trailing whitespace differs."""
    if old == new:
        return False
    if is_python(path):
        same = _same_python_code(old, new)
        if same is not None:
            return same
    elif (same := lang.same_code(path, old, new)) is not None:
        return same
    return [line.rstrip() for line in old.splitlines()] == [line.rstrip() for line in new.splitlines()]


def _same_python_code(old: str, new: str) -> bool | None:
    """Both texts parse to the same tree once docstrings are left out (None where one does not
    parse). Read off the shared trees (steer_tui.edits.pytree) top-level statement by statement: one
    whose lines read the same in both is the same code, so only the statements an edit touched are
    compared, each on a copy of its own (dumped without docstrings or positions)."""
    a, b = parse_tree(old), parse_tree(new)
    if a is None or b is None:
        return None
    ours, theirs = _without_docstring(a.body), _without_docstring(b.body)
    if len(ours) != len(theirs):
        return False
    old_lines, new_lines = old.splitlines(), new.splitlines()
    for x, y in zip(ours, theirs):
        if _lines(old_lines, x) == _lines(new_lines, y):
            continue
        if _code_dump(x) != _code_dump(y):
            return False
    return True


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    return body[1:] if body and _is_docstring(body[0]) else body


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _lines(lines: list[str], stmt: ast.stmt) -> list[str]:
    return lines[first_line(stmt) : stmt.end_lineno]


def _code_dump(stmt: ast.stmt) -> str:
    """`stmt` dumped without positions and without the docstrings of what it defines (a copy is
    cut: the shared tree is read by others)."""
    stmt = copy.deepcopy(stmt)
    for node in ast.walk(stmt):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            node.body = _without_docstring(node.body)
    return ast.dump(stmt)
