"""The live diff the file view draws: a virtual list of display rows over the document.

The document's lines are shown in order; every hunk replaces a range of old lines
[start, end) with new lines. A hunk is drawn as its removed rows followed by its added
rows; everything else is a context row. Rows are never materialised: `row(i)` finds
the hunk with a binary search over per-hunk prefix sums (O(log hunks)), and every
update recomputes only the prefix sums from the changed hunk on (O(hunks)). Streaming
growth of a hunk's new text is O(delta): only the new tail of the text is split.

A hunk is keyed by the caller (the session uses the block index while streaming). When
a block completes, `finish()` replaces its streaming hunk with the minimal hunks of
its diff (difflib on the block's lines only, never the file), so per-hunk review acts on
exactly what changed.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable

CONTEXT = "context"
REMOVED = "removed"
ADDED = "added"

# Pair a removed and an added line for intra-line highlights only if they are this
# similar; below it the whole line changed and highlighting pieces would be noise.
_SPAN_MIN_RATIO = 0.4
# How many change records `changed_since` keeps before answering "everything".
_LOG_LIMIT = 256
# Greedy streaming alignment of a rewrite: how far ahead a new line may match an old one.
_LOOKAHEAD = 8


@dataclass(frozen=True, slots=True)
class Row:
    """One display row. Line numbers are 1-based; None where the row has no such line."""

    kind: str  # CONTEXT | REMOVED | ADDED
    text: str
    old_no: int | None
    new_no: int | None
    hunk: int | None = None  # display hunk index (position order), None for context
    spans: tuple[tuple[int, int], ...] = ()  # changed character ranges [start, end) in text
    partial: bool = False  # an added line the model is still writing


@dataclass(eq=False, slots=True)
class Hunk:
    """Old lines [start, end) of the base document are replaced by `new` (+ `tail`)."""

    start: int
    end: int
    new: list[str] = field(default_factory=list)  # complete new lines
    tail: str = ""  # the new line being written (no newline yet)
    key: Hashable = None
    streaming: bool = False
    # Leading new lines equal to the old lines are context while streaming: the
    # model often repeats the first SEARCH lines; `skip` counts those already folded.
    fed: int = 0  # characters of the replacement text consumed so far
    old: list[str] = field(default_factory=list)  # the block's own old lines (streaming only)
    skip: int = 0
    diverged: bool = False
    transform: Callable[[str], str] | None = None  # e.g. re-indent each new line
    span_cache: dict = field(default_factory=dict)
    # Aligned streaming (region rewrites): the hunk is the open piece at old line base + ptr;
    # `pieces` are the changes already closed by a matching line (their own hunks in the list).
    align: bool = False
    base: int = 0
    ptr: int = 0
    pieces: list = field(default_factory=list)
    streamed: list[str] = field(default_factory=list)  # every complete new line, for finish()
    where: dict | None = None  # old line -> its indices in `old` (built on the first far look-up)

    @property
    def tail_text(self) -> str:
        return self.transform(self.tail) if self.transform is not None and self.tail else self.tail

    @property
    def n_old(self) -> int:
        return self.end - self.start

    @property
    def n_new(self) -> int:
        return len(self.new) + (1 if self._show_tail() else 0)

    @property
    def rows(self) -> int:
        return self.n_old + self.n_new

    def _show_tail(self) -> bool:
        if not self.tail:
            return False
        if self.align:
            # A partial line that so far retypes the next old line is shown as that (context)
            # line, not as an added one: only lines that really change turn green.
            # (Within the look-ahead: the line may be the one after a changed one.)
            tail = self.tail_text
            return not any(o.startswith(tail) for o in self.old[self.ptr : self.ptr + 1 + _LOOKAHEAD])
        # While still folding the repeated prefix, a partial line that is a prefix of
        # the next old line is most likely that line being retyped: don't flash it.
        if self.streaming and not self.diverged and self.skip < len(self.old):
            return not self.old[self.skip].startswith(self.tail_text)
        return True


@dataclass(frozen=True, slots=True)
class HunkInfo:
    """A hunk as the session and the view see it (0-based old range, new lines)."""

    index: int
    key: Hashable
    start: int
    end: int
    new: tuple[str, ...]  # complete new lines
    streaming: bool
    partial: str = ""  # the new line still being written (streaming only)


class LiveDiff:
    """Display rows over `lines` (the base document, without newlines) plus hunks."""

    def __init__(self, lines: list[str] | None = None):
        self._lines: list[str] = list(lines or [])
        self._hunks: list[Hunk] = []  # sorted by start, non-overlapping
        self._starts: list[int] = []  # hunk.start per hunk (bisect key for old lines)
        self._row_starts: list[int] = []  # first display row of each hunk
        self._cum_new: list[int] = []  # sum of n_new over hunks[0..k]
        self._cum_old: list[int] = []  # sum of n_old over hunks[0..k]
        self._by_key: dict[Hashable, Hunk] = {}
        self.version = 0
        self._log: list[tuple[int, int, int]] = []  # (version, first row, stop row or -1: to the end)
        self.cursor_row: int | None = None  # where text is being written now (the view follows it)

    # ----------------------------------------------------------------- reading

    @property
    def lines(self) -> list[str]:
        return self._lines

    @property
    def row_count(self) -> int:
        return len(self._lines) + (self._cum_new[-1] if self._cum_new else 0)

    @property
    def hunk_count(self) -> int:
        return len(self._hunks)

    def hunks(self) -> list[HunkInfo]:
        return [self._info(i) for i in range(len(self._hunks))]

    def hunk(self, i: int) -> HunkInfo:
        return self._info(i)

    def hunk_rows(self, i: int) -> tuple[int, int]:
        """Display rows of hunk i as a half-open range (first, stop)."""
        start = self._row_starts[i]
        return start, start + self._hunks[i].rows

    def row(self, i: int) -> Row:
        if not 0 <= i < self.row_count:
            raise IndexError(i)
        k = bisect_right(self._row_starts, i) - 1
        if k >= 0:
            h = self._hunks[k]
            offset = i - self._row_starts[k]
            if offset < h.rows:
                return self._hunk_row(k, h, offset)
            old_idx = i - self._cum_new[k]
            delta = self._cum_new[k] - self._cum_old[k]
        else:
            old_idx, delta = i, 0
        return Row(CONTEXT, self._lines[old_idx], old_idx + 1, old_idx + 1 + delta)

    def rows(self, start: int, stop: int) -> list[Row]:
        return [self.row(i) for i in range(max(0, start), min(stop, self.row_count))]

    def new_lines(self) -> list[str]:
        """The document as it would be with every hunk applied (O(file): for accept, not per delta)."""
        out: list[str] = []
        pos = 0
        for h in self._hunks:
            out.extend(self._lines[pos : h.start])
            out.extend(h.new)
            if h.tail:
                out.append(h.tail_text)
            pos = h.end
        out.extend(self._lines[pos:])
        return out

    def changed_since(self, version: int) -> tuple[int, int] | None:
        """Rows that may differ from what the view drew at `version`: (first, stop) or None.

        `stop` is `row_count` when rows shifted (a line was added or removed).
        """
        if version >= self.version:
            return None
        if not self._log or self._log[0][0] > version + 1:
            return 0, self.row_count
        first, stop = None, 0
        for v, f, s in self._log:
            if v <= version:
                continue
            first = f if first is None else min(first, f)
            stop = self.row_count if s < 0 else max(stop, s)
        if first is None:
            return None
        return first, max(first, min(stop, self.row_count))

    # ----------------------------------------------------------------- updates

    def reset(self, lines: list[str], hunks: Iterable[tuple[int, int, list[str]]] = ()) -> None:
        """New base document (after accept or an external change), with finished hunks."""
        self._lines = list(lines)
        self._hunks = []
        self._by_key = {}
        for n, (start, end, new) in enumerate(sorted(hunks, key=lambda h: (h[0], h[1]))):
            h = Hunk(start, end, list(new), key=("h", n))
            self._hunks.append(h)
            self._by_key[h.key] = h
        self._check_order()
        self._recompute(0)
        self.cursor_row = None
        self._touch(0, -1)

    def clear(self) -> None:
        """Drop every hunk (reject all, or a redirect starting over)."""
        if not self._hunks:
            return
        self._hunks, self._by_key = [], {}
        self._recompute(0)
        self.cursor_row = None
        self._touch(0, -1)

    def add(self, key: Hashable, start: int, end: int, transform: Callable[[str], str] | None = None,
            *, align: bool = False) -> int:
        """A block was located at old lines [start, end): a streaming hunk with no new text yet.

        `transform` is applied to every new line (the session re-indents with it).
        `align` (region rewrites, whose text restates the whole range): streamed lines are
        aligned greedily against the old lines, so unchanged lines stay context and only
        the lines that change are drawn removed/added while the block streams.
        Raises ValueError if it overlaps an existing hunk. Returns its hunk index.
        """
        if key in self._by_key:
            raise ValueError(f"hunk {key!r} exists")
        if not 0 <= start <= end <= len(self._lines):
            raise ValueError(f"range {start}:{end} outside the document")
        k = bisect_right(self._starts, start)
        if k > 0 and (self._hunks[k - 1].end > start or self._hunks[k - 1].start == self._hunks[k - 1].end == start == end):
            raise ValueError("overlaps another edit")
        if k < len(self._hunks) and (self._hunks[k].start < end or (start == end and self._hunks[k].start == start)):
            raise ValueError("overlaps another edit")
        for o in self._hunks:
            # An aligned rewrite owns its whole region, also the lines it has not reached yet.
            if o.align and o.base < end and start < o.base + len(o.old) or (o.align and start == end == o.base):
                raise ValueError("overlaps another edit")
        h = Hunk(start, end, key=key, streaming=True, old=self._lines[start:end], transform=transform)
        if align:
            # The open piece starts empty at the region's first line; old lines not yet
            # reached by the stream are context until the alignment passes them.
            h.align, h.base, h.end = True, start, start
        self._hunks.insert(k, h)
        self._by_key[key] = h
        self._recompute(k)
        self.cursor_row = self._row_starts[k]
        self._touch(self._row_starts[k], -1)
        return k

    def update(self, key: Hashable, replace_so_far: str) -> bool:
        """The block's replacement text is now `replace_so_far` (usually an extension of the last)."""
        h = self._by_key[key]
        if len(replace_so_far) < h.fed or not replace_so_far.startswith(h.tail, h.fed - len(h.tail)):
            # Not an append (the parser revised its text): start this hunk's text over.
            self._restart(h)
        return self.append(key, replace_so_far[h.fed :])

    def append(self, key: Hashable, delta: str) -> bool:
        """More replacement text for the block. O(len(delta) + current line). Returns whether rows changed."""
        if not delta:
            return False
        h = self._by_key[key]
        h.fed += len(delta)
        if h.align:
            return self._append_aligned(h, delta)
        k = self._find(h)
        rows_before = h.rows
        first_changed = None
        parts = (h.tail + delta).split("\n")
        h.tail = parts.pop()
        tf = h.transform
        for line in parts:
            if tf is not None:
                line = tf(line)
            if not h.diverged and h.skip < len(h.old) and line == h.old[h.skip]:
                # A repeated leading line: fold it into context by moving the hunk start.
                h.skip += 1
                h.start += 1
                self._starts[k] = h.start
                first_changed = self._row_starts[k] if first_changed is None else first_changed
                continue
            h.diverged = True
            h.new.append(line)
        if parts:
            h.span_cache.clear()
        if h.rows != rows_before or first_changed is not None:
            self._recompute(k)
            self._touch(self._row_starts[k] if first_changed is None else first_changed, -1)
        else:
            row = self._row_starts[k] + h.rows - 1
            self._touch(row, row + 1)
        self.cursor_row = self._row_starts[k] + max(0, h.rows - 1)
        return True

    def finish(self, key: Hashable, replace: str | None = None) -> list[int]:
        """The block is complete: replace its streaming hunk by the minimal hunks of its diff.

        `replace` is the block's final text (its lines are taken as they are: no transform, no
        folding); without it, what streamed is final. Returns the indices of the resulting hunks
        (none if the block changes nothing).
        """
        h = self._by_key[key]
        if h.align:
            base, old = h.base, h.old
            streamed = h.streamed + ([h.tail_text] if h.tail else [])
            self._drop_pieces(h)
        k = self._find(h)
        first = self._row_starts[k]
        if not h.align:
            base = h.start - h.skip
            old = h.old
        if replace is not None:
            new = replace.split("\n")
            if new[-1] == "":
                new.pop()
        elif h.align:
            new = streamed
        else:
            new = old[: h.skip] + h.new + ([h.tail_text] if h.tail else [])
        del self._hunks[k]
        del self._by_key[key]
        pieces: list[Hunk] = []
        sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for n, (tag, i1, i2, j1, j2) in enumerate(sm.get_opcodes()):
            if tag != "equal":
                pieces.append(Hunk(base + i1, base + i2, new[j1:j2], key=(key, n)))
        for p in pieces:
            self._by_key[p.key] = p
        self._hunks[k:k] = pieces
        self._recompute(k)
        self._touch(min(first, self._row_starts[k] if k < len(self._row_starts) else first), -1)
        if self.cursor_row is not None and self.cursor_row >= self.row_count:
            self.cursor_row = self.row_count - 1 if self.row_count else None
        return list(range(k, k + len(pieces)))

    def remove(self, key: Hashable) -> None:
        """Drop a hunk (a half-written block on stop, or a rejected hunk)."""
        h = self._by_key[key]
        if h.align:
            self._drop_pieces(h)
        del self._by_key[key]
        k = self._find(h)
        first = self._row_starts[k]
        del self._hunks[k]
        self._recompute(k)
        self._touch(first, -1)

    def settle(self, key: Hashable) -> list[int]:
        """Stop a streaming hunk where it is (Esc): keep what is already a complete change.

        An aligned rewrite keeps its closed pieces (each anchored by matching old lines on
        both sides) as finished hunks; the open piece, still being written, is dropped. Any
        other streaming hunk is half-written as a whole and is dropped. Returns the indices
        of the hunks kept.
        """
        h = self._by_key[key]
        kept = h.pieces if h.align else []
        h.pieces = []  # so remove() takes out only the open piece
        for p in kept:
            p.streaming = False
        self.remove(key)
        if self.cursor_row is not None and self.cursor_row >= self.row_count:
            self.cursor_row = self.row_count - 1 if self.row_count else None
        ids = {id(p) for p in kept}
        return [i for i, x in enumerate(self._hunks) if id(x) in ids]

    def remove_index(self, i: int) -> HunkInfo:
        info = self._info(i)
        self.remove(info.key)
        return info

    def keys(self) -> list[Hashable]:
        return [h.key for h in self._hunks]

    # ----------------------------------------------------------------- internals

    def _info(self, i: int) -> HunkInfo:
        h = self._hunks[i]
        return HunkInfo(i, h.key, h.start, h.end, tuple(h.new), h.streaming, h.tail_text if h.tail else "")

    def _find(self, h: Hunk) -> int:
        # Hunks never overlap, but an empty range may share its start with the next
        # hunk: search around the bisect point by identity.
        k = bisect_right(self._starts, h.start) - 1
        for j in (k, k - 1, k + 1, k - 2):
            if 0 <= j < len(self._hunks) and self._hunks[j] is h:
                return j
        return self._hunks.index(h)

    def _restart(self, h: Hunk) -> None:
        if h.align:
            self._drop_pieces(h)
            h.start = h.end = h.base
            h.ptr = 0
            h.streamed = []
        k = self._find(h)
        h.start -= h.skip
        h.new, h.tail, h.fed, h.skip, h.diverged = [], "", 0, 0, False
        h.span_cache.clear()
        self._recompute(k)
        self._touch(self._row_starts[k], -1)

    def _append_aligned(self, h: Hunk, delta: str) -> bool:
        """Greedy alignment of the new complete lines: O(len(delta) + lines * _LOOKAHEAD)."""
        k = k0 = self._find(h)
        first = self._row_starts[k]
        shifted = False
        parts = (h.tail + delta).split("\n")
        h.tail = parts.pop()
        tf = h.transform
        old, n_old = h.old, len(h.old)
        for line in parts:
            if tf is not None:
                line = tf(line)
            h.streamed.append(line)
            skip = -1
            if h.ptr < n_old:
                if line == old[h.ptr]:
                    skip = 0
                elif line.strip():
                    # A blank line matches only the next old line: blank lines are everywhere,
                    # so a look-ahead match on one would remove real code by accident.
                    stop = min(n_old, h.ptr + 1 + _LOOKAHEAD)
                    for j in range(h.ptr + 1, stop):
                        if old[j] == line:
                            skip = j - h.ptr
                            break
            if skip < 0 and line.strip() and h.ptr < n_old:
                far = self._far_match(h, line)
                if far is not None:
                    # Code the rewrite leaves out (the region's head, whole definitions) stays, as
                    # accept will keep it (steer_tui.edits.anchor): context, not removed.
                    at = h.base + h.ptr
                    if h.new:
                        piece = Hunk(at, at, h.new, key=(h.key, "piece", len(h.pieces)), streaming=True)
                        self._hunks.insert(k, piece)
                        self._by_key[piece.key] = piece
                        h.pieces.append(piece)
                        k += 1
                        h.new = []
                    h.ptr = far + 1
                    h.start = h.end = h.base + h.ptr
                    shifted = True
                    continue
            if skip < 0:
                h.new.append(line)
                continue
            shifted = True
            at = h.base + h.ptr
            if skip and h.ptr == 0 and not h.pieces and not h.new:
                # The region's head, left out: kept (steer_tui.edits.anchor), so context, not removed.
                h.ptr += skip
                at += skip
                skip = 0
            if h.new or skip:
                # Close the open piece: the skipped old lines are removed, the lines
                # written since the last match are added; the matched line is context.
                piece = Hunk(at, at + skip, h.new, key=(h.key, "piece", len(h.pieces)), streaming=True)
                self._hunks.insert(k, piece)
                self._by_key[piece.key] = piece
                h.pieces.append(piece)
                k += 1
                h.new = []
            h.ptr += skip + 1
            h.start = h.end = h.base + h.ptr
        if parts:
            h.span_cache.clear()
        self._recompute(k0)
        if shifted or parts:
            self._touch(first, -1)
        else:
            row = self._row_starts[k] + h.rows - 1
            self._touch(row, row + 1)
        self.cursor_row = self._row_starts[k] + max(0, h.rows - 1)
        return True

    @staticmethod
    def _far_match(h: Hunk, line: str) -> int | None:
        """Where a streamed rewrite line that matched nothing near resumes the region, if the
        old lines it skips are ones a partial rewrite keeps: the region's head (nothing matched
        or written yet), or whole definitions. The line must occur once after the pointer."""
        if h.where is None:
            h.where = {}
            for i, o in enumerate(h.old):
                h.where.setdefault(o, []).append(i)
        hits = [i for i in h.where.get(line, ()) if i > h.ptr]
        if len(hits) != 1:
            return None
        j = hits[0]
        if h.ptr == 0 and not h.pieces and not h.new:
            return j
        from steer_tui.edits.anchor import whole_definitions

        return j if whole_definitions(h.old, h.ptr, j) else None

    def _drop_pieces(self, h: Hunk) -> None:
        """Take the closed pieces of an aligned hunk out of the list (before finish/remove)."""
        if not h.pieces:
            return
        k = self._find(h)
        gone = {id(p) for p in h.pieces}
        lo = k - len(h.pieces)
        assert all(id(p) in gone for p in self._hunks[lo:k])
        first = self._row_starts[lo]
        del self._hunks[lo:k]
        for p in h.pieces:
            self._by_key.pop(p.key, None)
        h.pieces = []
        self._recompute(lo)
        self._touch(first, -1)

    def _recompute(self, k: int) -> None:
        """Prefix sums from hunk k on: O(hunks - k)."""
        n = len(self._hunks)
        del self._starts[k:], self._row_starts[k:], self._cum_new[k:], self._cum_old[k:]
        cum_new = self._cum_new[k - 1] if k else 0
        cum_old = self._cum_old[k - 1] if k else 0
        for j in range(k, n):
            h = self._hunks[j]
            self._starts.append(h.start)
            self._row_starts.append(h.start + cum_new)
            cum_new += h.n_new
            cum_old += h.n_old
            self._cum_new.append(cum_new)
            self._cum_old.append(cum_old)

    def _check_order(self) -> None:
        for a, b in zip(self._hunks, self._hunks[1:]):
            if a.end > b.start:
                raise ValueError("overlapping hunks")

    def _touch(self, first: int, stop: int) -> None:
        self.version += 1
        self._log.append((self.version, first, stop))
        if len(self._log) > _LOG_LIMIT:
            del self._log[: _LOG_LIMIT // 2]

    def _hunk_row(self, k: int, h: Hunk, offset: int) -> Row:
        new_base = h.start + 1 + ((self._cum_new[k - 1] - self._cum_old[k - 1]) if k else 0)
        if offset < h.n_old:
            old_idx = h.start + offset
            spans = self._spans(h, offset)[0] if offset < len(h.new) else ()
            return Row(REMOVED, self._lines[old_idx], old_idx + 1, None, k, spans)
        j = offset - h.n_old
        partial = j >= len(h.new)
        text = h.tail_text if partial else h.new[j]
        spans = self._spans(h, j)[1] if j < h.n_old and not partial else ()
        return Row(ADDED, text, None, new_base + j, k, spans, partial)

    def _spans(self, h: Hunk, j: int) -> tuple[tuple, tuple]:
        """Intra-line changed spans for old line j of the hunk paired with new line j (cached)."""
        got = h.span_cache.get(j)
        if got is None:
            a, b = self._lines[h.start + j], h.new[j] if j < len(h.new) else h.tail_text
            got = intraline(a, b)
            h.span_cache[j] = got
        return got


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def intraline(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Changed character spans in a (removed) and b (added), or none if they barely match.

    Compared word by word (identifiers, runs of spaces, single punctuation) so that a
    renamed identifier is highlighted whole rather than as scattered letters.
    """
    if a == b:
        return (), ()
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    if sm.ratio() < _SPAN_MIN_RATIO:
        return (), ()
    oa, ob = _offsets(ta), _offsets(tb)
    old_spans, new_spans = [], []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old_spans.append((oa[i1], oa[i2]))
        if j2 > j1:
            new_spans.append((ob[j1], ob[j2]))
    return tuple(old_spans), tuple(new_spans)


def _offsets(tokens: list[str]) -> list[int]:
    out, pos = [0], 0
    for t in tokens:
        pos += len(t)
        out.append(pos)
    return out
