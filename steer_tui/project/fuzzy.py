"""Fuzzy file finding: a typed query's characters in order in a path, best matches first, fast
enough per keystroke on 50,000 paths (one regex scan over all the paths joined, then a score for
the few that can rank)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress, islice

SCORE_AT_MOST = 250  # lines scored in Python per keystroke; regex scans pick them (see FuzzyIndex)
NARROW_AT = 20_000  # up to this many paths holding the query's characters are joined and scanned alone
_SEPARATORS = "/_-. "


@dataclass(frozen=True)
class Match:
    """A path that matches a query; `positions`: the indices of the query's characters in it."""

    path: str
    score: float
    positions: tuple[int, ...]


def _gap(ch: str, within_name: bool) -> str:
    # What may stand between one query character and the next: anything but a line's end (or a
    # '/' within a name) up to the first occurrence of the next character. A negated class
    # cannot backtrack past that occurrence, so an attempt stays linear in the line's length.
    esc = re.escape(ch) if ch not in "]^\\-" else "\\" + ch
    return "[^\n" + ("/" if within_name else "") + esc + "]*" + re.escape(ch)


def subsequence_regex(query: str, within_name: bool = False) -> str:
    """A regex (text) for `query` (lower case) as a subsequence within one line of joined paths;
    `within_name`: all of it after the line's last '/', the match running to the line's end."""
    parts = [re.escape(query[0])] + [_gap(ch, within_name) for ch in query[1:]]
    return "".join(parts) + ("[^\n/]*\n" if within_name else "")


class FuzzyIndex:
    """The paths of a project, kept for fuzzy search. `search(query)` runs on every keystroke.

    The paths are held lower-cased and shortest first. A query first keeps the paths that hold
    all its characters: one AND of a bit mask per character (each made once, when a query first
    has it), then the paths the mask keeps are joined into one text, each line starting with '/'
    so a name's start always follows a '/'. Regex scans of that text (in C) pick at most
    SCORE_AT_MOST lines to score in Python, the first found and so the shortest: names that
    start with the query, then names that hold it whole, then names that hold its characters in
    order, then any path that does. A one-letter query that half the paths match scans only
    until it has enough.
    """

    def __init__(self, paths: list[str]) -> None:
        self.paths = sorted(dict.fromkeys(paths), key=lambda p: (len(p), p))
        self._lower = [p.lower() for p in self.paths]
        self._index: dict[str, list[int]] = {}
        for i, p in enumerate(self._lower):
            self._index.setdefault(p, []).append(i)
        self._text = self._joined(self._lower)
        self._masks: dict[str, int] = {}  # a character: bit i set where path i holds it (one byte a path)

    def __len__(self) -> int:
        return len(self.paths)

    @staticmethod
    def _joined(lines) -> str:
        return "/" + "\n/".join(lines) + "\n"

    def _mask(self, ch: str) -> int:
        mask = self._masks.get(ch)
        if mask is None:
            mask = self._masks[ch] = int.from_bytes(bytes(ch in p for p in self._lower), "little")
        return mask

    def search(self, query: str, limit: int = 50) -> list[Match]:
        """The best `limit` matches of `query` (case-insensitive; spaces ignored), best first."""
        q = "".join(query.lower().split())
        if not q:
            return [Match(p, 0.0, ()) for p in self.paths[:limit]]
        mask = -1
        for ch in set(q):
            mask &= self._mask(ch)
        held = mask.bit_count() if mask > 0 else 0
        if held == 0 or not self.paths:
            return []
        if held <= NARROW_AT:
            text = self._joined(compress(self._lower, mask.to_bytes(len(self._lower), "little")))
        else:
            text = self._text  # many: the scans below stop early anyway
        picked: dict[str, None] = {}

        def pick(pattern: str) -> bool:
            """Add the lines `pattern` finds, up to the room left; True when it found all it could."""
            room = SCORE_AT_MOST - len(picked)
            found = 0
            for m in islice(re.finditer(pattern, text), room):
                start = text.rfind("\n", 0, m.start()) + 2
                picked.setdefault(text[start:text.find("\n", m.end() - 1)], None)
                found += 1
            return found < room

        esc = re.escape(q)
        # Names holding the query whole (a literal scan, fast); when they are more than there is
        # room for, those starting with it first.
        if not pick(esc + "[^\n/]*\n"):
            picked.clear()
            pick("/" + esc + "[^\n/]*\n")
            pick(esc + "[^\n/]*\n")
        for pattern in (subsequence_regex(q, within_name=True), subsequence_regex(q)):
            if len(picked) >= SCORE_AT_MOST:
                break
            pick(pattern)
        scored = []
        for line in picked:
            s, pos = score(line, q, line.rfind("/") + 1)
            for i in self._index.get(line, ()):
                scored.append((-s, len(line), i, pos))
        scored.sort()
        return [Match(self.paths[i], -ns, pos) for ns, _, i, pos in islice(scored, limit)]


def _boundary(path: str, i: int) -> bool:
    return i == 0 or path[i - 1] in _SEPARATORS


def score(path: str, q: str, name_at: int) -> tuple[float, tuple[int, ...]]:
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
    positions = _positions(path, q, name_at)
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


def _positions(path: str, q: str, name_at: int) -> tuple[int, ...]:
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
    head = _forward(path, q[:k], 0, first_tail)
    lo = max(name_at, head[-1] + 1 if head else 0)
    tail = _forward(path, q[k:], lo, len(path))
    if head is None or tail is None:  # not a subsequence after all: plain leftmost
        out, pos = [], 0
        for ch in q:
            pos = path.find(ch, pos) + 1
            out.append(pos - 1)
        return tuple(out)
    return tuple(head + tail)


def _forward(path: str, chars: str, lo: int, hi: int) -> list[int] | None:
    """`chars` placed in path[lo:hi] left to right: each at its first occurrence, or at a later
    one that starts a word if the rest still fits after it; None if they do not fit."""
    out: list[int] = []
    pos = lo
    for j, ch in enumerate(chars):
        p = path.find(ch, pos, hi)
        if p == -1:
            return None
        if not _boundary(path, p) and not (j and p == pos):  # a run of consecutive characters stays
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
