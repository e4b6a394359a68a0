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
    kept = [h for h in diff_hunks(old, earlier) if not _touch(h, mine)]
    return _made(old, mine + kept) if kept else later


def merge_apart(old: list[str], earlier: list[str], later: list[str]) -> list[str] | None:
    """Two edits of `old` made apart (neither was shown the other) as one, or None where they
    clash: both change a line, insert at one place, or one inserts inside or at the edge of lines
    the other turns into more or fewer (their order would be a guess). A change both made is made
    once; other changes side by side keep their places (an insertion just before a line changed
    in place stays before what replaces it)."""
    mine = diff_hunks(old, later)
    theirs = [h for h in diff_hunks(old, earlier) if h not in mine]
    if any(_clash(h, m) for h in theirs for m in mine):
        return None
    return _made(old, mine + theirs)


def _made(old: list[str], hunks: list[Hunk]) -> list[str]:
    """`old` with `hunks` (none overlapping) made."""
    out, at = [], 0
    for start, end, lines in sorted(hunks, key=lambda h: (h[0], h[1])):
        out += old[at:start] + lines
        at = end
    return out + old[at:]


def _clash(a: Hunk, b: Hunk) -> bool:
    """`a` and `b` (hunks of one text) cannot both be made without guessing their order."""
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] == b[0]
    if a[0] == a[1]:
        return _inserts_into(a[0], b)
    if b[0] == b[1]:
        return _inserts_into(b[0], a)
    return a[0] < b[1] and b[0] < a[1]


def _inserts_into(at: int, hunk: Hunk) -> bool:
    """An insertion at line `at` falls inside `hunk`'s lines, or at an edge of a hunk that grows
    (whose own new lines may be an insertion there: difflib joins the two)."""
    start, end, lines = hunk
    return start < at < end or (at in (start, end) and len(lines) != end - start)


def _touch(hunk: Hunk, others: list[Hunk]) -> bool:
    """`hunk` changes lines on or next to one of `others`'."""
    return any(hunk[0] <= e and s <= hunk[1] for s, e, _ in others)


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
