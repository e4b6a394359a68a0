"""Whether a proposed change is cosmetic (whitespace, comments, docstrings alone), and whether an
instruction asks for a change of that kind.

A 1.5B model asked to fix a bug sometimes answers with a changed docstring example or a space
after a comma: an edit, but not the one asked for. Such an answer is judged as one that changes
nothing (a failed attempt, retried), unless the words ask for text, layout or documentation.
"""

from __future__ import annotations

import ast
import re

from steer_tui import lang
from steer_tui.edits.syntax import is_python, parse_tree
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
        a, b = _code_tree(old), _code_tree(new)
        if a is not None and b is not None:
            return a == b
    elif (same := lang.same_code(path, old, new)) is not None:
        return same
    return [line.rstrip() for line in old.splitlines()] == [line.rstrip() for line in new.splitlines()]


def _code_tree(text: str) -> str | None:
    """The parsed tree of `text` without its docstrings, dumped without positions; None if it does not parse."""
    tree = parse_tree(text)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                node.body = node.body[1:]
    return ast.dump(tree)
