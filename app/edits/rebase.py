"""Carrying pending hunks over to a changed text: re-location after an external change, undo or redo, and an
answer built on an earlier one."""

from __future__ import annotations

import difflib

Hunk = tuple[int, int, list[str]]  # old line range [start, end) and its new lines

_CONTEXT = 3


def carry_over(old: list[str], new: list[str], pending: list[Hunk]) -> list[Hunk] | None:
    """The pending hunks (against `old`) moved to where their lines are in `new`, or None when
    one of them no longer fits (its lines are gone or ambiguous): a conflict."""
    moved = []
    for start, end, lines in pending:
        where = relocate(old, new, start, end)
        if where is None:
            return None
        moved.append((where[0], where[1], lines))
    return moved


def relocate(old: list[str], new: list[str], start: int, end: int) -> tuple[int, int] | None:
    """Where old lines [start, end) are in `new`: found with up to 3 lines of context, uniquely."""
    for ctx in (_CONTEXT, 2, 1, 0):
        lo, hi = max(0, start - ctx), min(len(old), end + ctx)
        needle = old[lo:hi]
        if not needle:
            continue
        hits = _find_all(new, needle)
        if len(hits) == 1:
            s = hits[0] + (start - lo)
            return s, s + (end - start)
        if len(hits) > 1:
            return None  # ambiguous with less context too
    if start == end and not old:
        return 0, 0
    return None


def diff_hunks(old: list[str], new: list[str]) -> list[Hunk]:
    """Minimal hunks turning old into new (O(file): only when the applier and the live diff disagree)."""
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def with_earlier(old: list[str], earlier: list[str], later: list[str]) -> list[str]:
    """`later` (an edit of `old` by an answer shown `earlier`, another edit of it) with the hunks of
    `earlier` that `later` does not touch: an answer built on an earlier one that restates only part
    of its region (an addition about one method of several) leaves the rest as `old` has it, and the
    earlier answer's changes there would be lost. Where both changed the same or adjacent lines,
    `later` stands: it was shown the earlier change there."""
    mine = diff_hunks(old, later)
    kept = [h for h in diff_hunks(old, earlier) if not any(h[0] <= e and s <= h[1] for s, e, _ in mine)]
    if not kept:
        return later
    out, at = [], 0
    for start, end, lines in sorted(mine + kept, key=lambda h: (h[0], h[1])):
        out += old[at:start] + lines
        at = end
    return out + old[at:]


def _find_all(hay: list[str], needle: list[str]) -> list[int]:
    """Where `needle` starts in `hay`: at most two hits (two already mean ambiguous)."""
    n = len(needle)
    first = needle[0]
    hits = []
    for i, line in enumerate(hay):
        if line == first and hay[i : i + n] == needle:
            hits.append(i)
            if len(hits) > 1:
                break
    return hits
