"""Does a proposed file still parse, and which hunk breaks it: Python by its compiler, other languages by steer_tui.lang."""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from pathlib import PurePath
from typing import Callable, Sequence

from steer_tui.edits.pytree import parse_tree

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
# Each hunk is tried alone against the original: O(hunks x file). Past this many hunks only
# the error's line points at one.
MAX_TRIED_HUNKS = 64


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """The proposal does not parse: why, where (1-based line of the new text), which hunk, in what language."""

    message: str
    line: int | None
    hunk: int | None  # index into the hunks given (file order), None when no single one is to blame
    language: str = "Python"

    def describe(self) -> str:
        where = f" at line {self.line}" if self.line else ""
        which = f" (hunk {self.hunk + 1})" if self.hunk is not None else ""
        return f"the edit breaks the {self.language} syntax{where}{which}: {self.message}"


def is_python(path: str | PurePath | None) -> bool:
    return PurePath(str(path or "")).suffix.lower() in PYTHON_SUFFIXES


def parse_error(text: str) -> SyntaxError | None:
    """The error that stops `text` from parsing as Python, or None if it parses."""
    if parse_tree(text) is not None:  # the shared parse: a turn's other checks read the same tree
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not errors
            ast.parse(text)
    except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes; absurd nesting
        return SyntaxError(str(exc) or type(exc).__name__)
    return None


def parses(text: str) -> bool:
    return parse_error(text) is None


def _apply(lines: list[str], hunks: Sequence[tuple[int, int, Sequence[str]]]) -> list[str]:
    out: list[str] = []
    pos = 0
    for start, end, new in sorted(hunks, key=lambda h: (h[0], h[1])):
        out.extend(lines[pos:start])
        out.extend(new)
        pos = max(pos, end)
    out.extend(lines[pos:])
    return out


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def check(path: str | PurePath | None, old_text: str, new_text: str,
          hunks: Sequence[tuple[int, int, Sequence[str]]] = ()) -> SyntaxProblem | None:
    """A SyntaxProblem when the edit from `old_text` to `new_text` breaks `path`'s syntax; else None.

    Python: `old_text` parsed and `new_text` does not (the compiler's verdict, stricter than
    any grammar's). Another language steer_tui.lang knows: `new_text` has syntax errors that
    `old_text` did not have (a file that had errors is blamed only for more). An unknown
    language is never judged.

    `hunks`: the proposal as (start, end, new lines) against old_text's lines (0-based, end
    exclusive), in any order; the hunk named is the first (in file order) that breaks the
    parse when applied alone, else the first whose addition to the ones before it does.
    """
    if old_text == new_text:
        return None
    if not is_python(path):
        return _check_other(path, old_text, new_text, hunks)
    if parse_error(old_text) is not None:
        return None
    err = parse_error(new_text)
    if err is None:
        return None
    message = err.msg or str(err) or "invalid syntax"
    line = err.lineno if isinstance(err.lineno, int) and err.lineno > 0 else None
    return SyntaxProblem(message, line, blame(old_text, hunks))


def _check_other(path, old_text: str, new_text: str,
                 hunks: Sequence[tuple[int, int, Sequence[str]]]) -> SyntaxProblem | None:
    from steer_tui import lang  # tree-sitter is loaded by the first file not in Python, not at start-up

    spec = lang.language(path)
    if spec is None:
        return None
    found = lang.introduced_errors(path, old_text, new_text)
    if not found:
        return None

    def breaks(text: str) -> bool:
        return bool(lang.introduced_errors(path, old_text, text))

    return SyntaxProblem(found[0].message, found[0].line + 1, blame(old_text, hunks, breaks), spec.name)


def blame(old_text: str, hunks: Sequence[tuple[int, int, Sequence[str]]],
          breaks: Callable[[str], bool] | None = None) -> int | None:
    """Index (in the order given) of the hunk that breaks the parse of old_text, or None.
    `breaks(text)`: whether a text breaks it (default: it does not parse as Python)."""
    if breaks is None:
        breaks = lambda text: not parses(text)  # noqa: E731
    if not hunks:
        return None
    lines = old_text.splitlines()
    order = sorted(range(len(hunks)), key=lambda i: (hunks[i][0], hunks[i][1]))
    if len(order) == 1:
        return order[0]
    tried = order[:MAX_TRIED_HUNKS]
    for i in tried:
        if breaks(_text(_apply(lines, [hunks[i]]))):
            return i
    # No hunk breaks it alone: the first whose addition to those before it does.
    for k in range(1, len(tried) + 1):
        if breaks(_text(_apply(lines, [hunks[i] for i in tried[:k]]))):
            return tried[k - 1]
    return None
