"""Document text ("\\n" newlines) as lines and back, and the unified diff of two texts."""

from __future__ import annotations

import difflib


def split_lines(text: str) -> list[str]:
    """Text whose lines each end in a newline (the last one may not) to a list of lines."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def document_lines(text: str) -> tuple[list[str], bool]:
    """Lines without newlines, and whether the text ended with one (an empty text counts as
    ending with one: what is written into it gets a final newline)."""
    return split_lines(text), not text or text.endswith("\n")


def join_lines(lines: list[str], final_newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def unified_diff(path: str, old: str, new: str) -> str:
    """`diff -u` of old and new, marking a last line without a newline as diff does."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
