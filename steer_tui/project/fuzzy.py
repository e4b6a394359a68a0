"""Fuzzy file finding: a typed query's characters in order in a path, best matches first, fast
enough per keystroke on 50,000 paths (one regex scan over all the paths joined, then a score for
the few that can rank)."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import compress, islice, repeat

from steer_tui.lang.table import spec_for

SCORE_AT_MOST = 250  # lines scored in Python per keystroke; regex scans pick them (see FuzzyIndex)
NARROW_AT = 20_000  # up to this many paths holding the query's characters are joined and scanned alone
CHUNK = 200_000  # characters of lines read at a time while looking for a query's matching lines
_SEPARATORS = "/_-. "
# Of two paths that match alike, one in a programming language ranks first: `time` opens
# src/pkg/time.py before docs/time.md, which is 8 characters shorter.
CODE_BONUS = 2.0


@dataclass(frozen=True)
class Match:
    """A path that matches a query; `positions`: the indices of the query's characters in it."""

    path: str
    score: float
    positions: tuple[int, ...]


def _gap(ch: str, within_name: bool) -> str:
    # What may stand between one query character and the next, then that character: anything but
    # a line's end (or a '/' within a name) up to its first occurrence. Possessive (no giving
    # back): the first occurrence is the only one worth trying, so an attempt is one linear pass.
    esc = "\\" + ch if ch in "]^\\-[" else re.escape(ch)
    return "[^\n" + ("/" if within_name else "") + esc + "]*+" + re.escape(ch)


def subsequence_regex(query: str, within_name: bool = False) -> str:
    """A regex (text) for `query` (lower case) as a subsequence of one line of the joined paths
    (each line starts with '\\n/'): the match starts at the line's '\\n', so a scan tries each
    line once. `within_name`: all of it after the line's last '/', the match starting at that
    '/' and running to the line's end."""
    if within_name:
        return "/" + "".join(_gap(ch, True) for ch in query) + "[^\n/]*+\n"
    return "\n/" + "".join(_gap(ch, False) for ch in query)


class FuzzyIndex:
    """The paths of a project, kept for fuzzy search. `search(query)` runs on every keystroke.

    The paths are held lower-cased, shortest first, joined into one text with each line starting
    with '\\n/' (so a name always follows a '/'). A query's matching lines are found by one
    `findall` in C whose pattern tries each line once in a linear pass, over:
    - the last query's matching lines, when this query extends it (typing narrows);
    - else the paths holding all of the query's characters (an AND of one bit mask per character);
    - at most CHUNK characters of them at a time while enough match: the lines are shortest
      first, so a one-letter query reads a few thousand lines, not all of them.
    Of those lines at most SCORE_AT_MOST are scored in Python: names holding the query whole (a
    literal scan over every path), then names holding its characters in order, then the rest.
    """

    def __init__(self, paths: list[str]) -> None:
        self.paths = sorted(dict.fromkeys(paths), key=lambda p: (len(p), p))
        self._lower = [p.lower() for p in self.paths]
        self._index: dict[str, list[int]] = {}
        for i, p in enumerate(self._lower):
            self._index.setdefault(p, []).append(i)
        self._text = self._joined(self._lower)
        self._masks: dict[str, int] = {}  # a character: byte i is 1 where path i holds it
        self._kept: tuple[str, str] | None = None  # a query and the joined lines that match it, all of them

    def __len__(self) -> int:
        return len(self.paths)

    @staticmethod
    def _joined(lines) -> str:
        return "\n/" + "\n/".join(lines) + "\n"

    def _mask(self, ch: str) -> int:
        mask = self._masks.get(ch)
        if mask is None:
            held = bytes(map(operator.contains, self._lower, repeat(ch)))
            mask = self._masks[ch] = int.from_bytes(held, "little")
        return mask

    def _pool(self, q: str) -> str:
        """The joined lines `q` can match: the last query's when `q` extends it, else the paths
        holding all of q's characters (all paths when they are most of them)."""
        if self._kept is not None and q.startswith(self._kept[0]):
            return self._kept[1]
        mask = -1
        for ch in set(q):
            mask &= self._mask(ch)
        held = mask.bit_count() if mask > 0 else 0
        if held == 0:
            return ""
        if held > NARROW_AT:
            return self._text
        return self._joined(compress(self._lower, mask.to_bytes(len(self._lower), "little")))

    def _matching(self, q: str) -> tuple[str, str, bool]:
        """(the pool, the joined lines of it that match `q`, whether those are all of them)."""
        if self._kept is not None and self._kept[0] == q:
            return self._kept[1], self._kept[1], True
        pool = self._pool(q)
        if not pool:
            return "", "", True
        line = re.compile(subsequence_regex(q) + "[^\n]*+")
        end = len(pool) if len(pool) <= CHUNK else pool.find("\n", CHUNK)
        lines = line.findall(pool, 0, end)
        while len(lines) < SCORE_AT_MOST and end < len(pool) - 1:
            start, end = end, (len(pool) if len(pool) - end <= CHUNK else pool.find("\n", end + CHUNK))
            lines += line.findall(pool, start, end)
        complete = end >= len(pool) - 1
        text = "".join(lines) + "\n"
        if complete:
            self._kept = (q, text)
        return pool, text, complete

    def search(self, query: str, limit: int = 50) -> list[Match]:
        """The best `limit` matches of `query` (case-insensitive; spaces ignored), best first."""
        q = "".join(query.lower().split())
        if not q or not self.paths:
            return [Match(p, 0.0, ()) for p in self.paths[:limit]]
        pool, text, complete = self._matching(q)
        if len(text) < 3:
            return []
        picked: dict[str, None] = {}

        def pick(pattern: str, within: str) -> bool:
            """Add the lines `pattern` finds in `within`, up to the room left; True: it found all there are."""
            room = SCORE_AT_MOST - len(picked)
            found = 0
            for m in islice(re.finditer(pattern, within), room):
                start = within.rfind("\n", 0, m.start() + 1) + 2  # a match may start at its line's '\\n'
                picked.setdefault(within[start:within.find("\n", m.end() - 1)], None)
                found += 1
            return found < room

        esc = re.escape(q)
        # Names holding the query whole, in every line of the pool (a literal scan, fast); when they
        # are more than there is room for, those starting with it first.
        whole = esc + "[^\n/]*+\n"
        if not pick(whole, pool):
            picked.clear()
            pick("/" + whole, pool)
            pick(whole, pool)
        if len(picked) < SCORE_AT_MOST:
            pick(subsequence_regex(q, within_name=True), text)
        at = 0
        while len(picked) < SCORE_AT_MOST and at < len(text) - 1:  # then any matching line, shortest first
            end = text.index("\n", at + 1)
            picked.setdefault(text[at + 2:end], None)
            at = end
        # A quick score for every candidate (characters placed at their first occurrence), then
        # the best of them placed again preferring the starts of words, as drawn, and ranked by that.
        quick = sorted((-score(line, q, line.rfind("/") + 1, False)[0], len(line), line) for line in picked)
        scored = []
        for _, _, line in islice(quick, 2 * limit):
            s, pos = score(line, q, line.rfind("/") + 1)
            if spec_for(line) is not None:
                s += CODE_BONUS
            for i in self._index.get(line, ()):
                scored.append((-s, len(line), i, pos))
        scored.sort()
        return [Match(self.paths[i], -ns, pos) for ns, _, i, pos in islice(scored, limit)]


def _boundary(path: str, i: int) -> bool:
    return i == 0 or path[i - 1] in _SEPARATORS


def score(path: str, q: str, name_at: int, word_starts: bool = True) -> tuple[float, tuple[int, ...]]:
    """How well `q` (lower case, a subsequence of `path`, lower case) matches, and where.

    The query found whole in the file name ranks first (its start most), then the query's
    characters in the name, then in the folders; characters at the start of a name or after
    a separator, and runs of consecutive characters, add; a longer path takes a little off."""
    name = path[name_at:]
    stem_end = name.rfind(".")
    stem = name[:stem_end] if stem_end > 0 else name
    n = len(q)
    at = name.find(q)
    if at != -1:
        positions = tuple(range(name_at + at, name_at + at + n))
        s = 100.0 + 10 * n
        if at == 0:
            s += 40
            if stem == q or name == q:
                s += 40
        elif name[at - 1] in _SEPARATORS:
            s += 25
        return s - 0.2 * len(path), positions
    positions = _positions(path, q, name_at, word_starts)
    s = 0.0
    prev = -2
    for p in positions:
        if p >= name_at:
            s += 4
        if _boundary(path, p):
            s += 8
        if p == prev + 1:
            s += 6
        elif prev >= 0:
            s -= min(3.0, 0.1 * (p - prev))
        prev = p
    if positions and positions[0] >= name_at:
        s += 15  # all of it in the file name
    at = path.find(q)
    if at != -1:  # whole in the folders
        s += 3 * n + (10 if _boundary(path, at) else 0)
    return s - 0.2 * len(path), positions


def _positions(path: str, q: str, name_at: int, word_starts: bool = True) -> tuple[int, ...]:
    """Where `q`'s characters fall: as many of its last characters as fit in the file name, the
    rest in the folders in front of them; each part placed left to right, preferring word starts."""
    # How many of q's last characters the name can hold (matched from the right: the most).
    end = len(path)
    k = len(q)
    first_tail = len(path)
    while k > 0:
        p = path.rfind(q[k - 1], name_at, end)
        if p == -1:
            break
        first_tail = end = p
        k -= 1
    head = _forward(path, q[:k], 0, first_tail, word_starts)
    lo = max(name_at, head[-1] + 1 if head else 0)
    tail = _forward(path, q[k:], lo, len(path), word_starts)
    if head is None or tail is None:  # not a subsequence after all: plain leftmost
        out, pos = [], 0
        for ch in q:
            pos = path.find(ch, pos) + 1
            out.append(pos - 1)
        return tuple(out)
    return tuple(head + tail)


def _forward(path: str, chars: str, lo: int, hi: int, word_starts: bool = True) -> list[int] | None:
    """`chars` placed in path[lo:hi] left to right: each at its first occurrence, or at a later
    one that starts a word if the rest still fits after it; None if they do not fit."""
    out: list[int] = []
    pos = lo
    for j, ch in enumerate(chars):
        p = path.find(ch, pos, hi)
        if p == -1:
            return None
        if word_starts and p and path[p - 1] not in _SEPARATORS and not (j and p == pos):  # a run of consecutive characters stays
            b = p
            while True:
                b = path.find(ch, b + 1, hi)
                if b == -1 or not _fits(path, chars[j + 1:], b + 1, hi):
                    break
                if _boundary(path, b):
                    p = b
                    break
        out.append(p)
        pos = p + 1
    return out


def _fits(path: str, rest: str, start: int, limit: int) -> bool:
    pos = start
    for ch in rest:
        pos = path.find(ch, pos, limit)
        if pos == -1:
            return False
        pos += 1
    return True
