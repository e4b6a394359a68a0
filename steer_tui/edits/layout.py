"""Lines an answer changed only in their whitespace, beside its real change, put back as they were.

A small model that rewrites a region sometimes loses the alignment of continuation lines (48 spaces
under an open parenthesis come back as one) while it makes the change it was asked for elsewhere in
the region. Those lines still parse, so no check refuses the answer, and the proposal would touch
lines the change has nothing to do with. Each such line is put back when doing so leaves the code
the same (steer_tui.edits.cosmetic.cosmetic: the same Python tree, the same tokens in another
language); a re-indent that means something (a statement moved out of a block) is kept.
"""

from __future__ import annotations

import difflib

from steer_tui.edits.cosmetic import cosmetic

MAX_CHECKS = 12  # one at a time beyond this many lines costs more parses than it is worth


def restore_layout(path: str | None, old: str, new: str) -> str:
    """`new` with each line that differs from its counterpart in `old` only in whitespace put back
    as `old` has it, where that changes no code; `new` itself when there is none."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    spots = _spots(a, b)
    if not spots:
        return new
    whole = _put_back(b, spots)
    if cosmetic(path, new, whole):
        return whole
    if len(spots) > MAX_CHECKS:
        return new
    kept = [(j, line) for j, line in spots if cosmetic(path, new, _put_back(b, [(j, line)]))]
    if not kept:
        return new
    out = _put_back(b, kept)
    return out if cosmetic(path, new, out) else new


def _spots(a: list[str], b: list[str]) -> list[tuple[int, str]]:
    """(line index in `b`, `a`'s line) for each line replaced one for one by a line with the same
    words in other whitespace."""
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for x, y in zip(range(i1, i2), range(j1, j2)):
            if a[x] != b[y] and a[x].split() == b[y].split() and a[x].strip():
                out.append((y, _with_ending(a[x], b[y])))
    return out


def _with_ending(line: str, like: str) -> str:
    """`line` with the line ending `like` has (the last line of a text may have none)."""
    body = line.rstrip("\r\n")
    return body + like[len(like.rstrip("\r\n")):]


def _put_back(b: list[str], spots: list[tuple[int, str]]) -> str:
    lines = list(b)
    for j, line in spots:
        lines[j] = line
    return "".join(lines)
