"""Tolerant locator: finds where a block's SEARCH lines are in a file, uniquely, or says why not.

Strategies run in order; the first that finds anything decides. One match wins; two or
more is a refusal (LocateError, reason "ambiguous"), never a guess:

1. exact            the lines as written
2. whitespace       trailing whitespace ignored
3. indent           a uniform indentation shift (the replacement is re-indented to match)
4. blank_lines      spurious blank lines at the start/end of SEARCH dropped, then 1-3
5. unicode          typographic punctuation folded to ASCII (quotes, dashes, spaces), then 2-4
6. elision          SEARCH split at `...` lines; pieces located in order, the gaps kept;
                    a piece the block changes must be unique after the piece before
7. fuzzy            line alignment scored with rapidfuzz; unchanged context lines may be
                    misquoted, but every line the block removes or rewrites must match
                    (after 2-5), >= 3 lines with 60% quoted right, indentation consistent,
                    the score high and clearly above any other place.

Lines are plain strings without newline characters. A Location's `render()` builds the
new lines for file[start:end] from the block's own diff (SEARCH against REPLACE, see
block_ops): lines the block keeps unchanged are taken from the file, not from the model,
so tolerant matches never rewrite bytes the model did not mean to (trailing whitespace,
tabs, blank lines). Where the model's intent for a line is not certain (it changes a line
SEARCH misquotes; blank lines SEARCH has and the file does not, read two ways) render()
refuses with LocateError "uncertain" rather than guess.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from steer_tui.edits.lines import split_lines

__all__ = ["Location", "LocateError", "block_ops", "locate", "find_unique", "closest_lines", "Views", "split_lines", "is_elision"]

_AMBIGUOUS_LIMIT = 2

# Typographic characters models substitute for ASCII (and the reverse).
_FOLD = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u00ab": '"', "\u00bb": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
        "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u202f": " ", "\u3000": " ",
        "\u200b": "", "\ufeff": "", "\u2026": "...",
    }
)

# A whole line that stands for "code left out here": `...`, `# ...`, `// ... existing code ...`.
_ELISION = re.compile(
    r"^\s*(?:#|//|/\*|--|;|<!--|\*|%)?\s*(?:\.\.\.|\u2026)"
    r"(?:\s*[\w ,'-]{0,60}?\s*(?:\.\.\.|\u2026)?)?\s*(?:\*/|-->)?\s*$"
)


def is_elision(line: str) -> bool:
    """A line that only says "code left out here"."""
    return ("..." in line or "\u2026" in line) and _ELISION.match(line) is not None


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


class Location:
    """Where a block matched: file lines [start, end) (0-based, end exclusive).

    mapping: for each SEARCH line, the file line it matched (None: a spurious line with no
    file line); None means "one to one from start". indent_add / indent_remove: a uniform
    indentation shift (file indent = add + model indent, or model indent = remove + file
    indent). pieces: for an elision, the located pieces (Location, search piece, replace
    piece). insert_only: an empty SEARCH, insert at start. strip_new: the match ignored
    trailing whitespace, so new lines are rstripped (the model's may be noise).
    tab_unit / tab_offset: the file indents with tabs where the model wrote spaces.
    """

    __slots__ = ("start", "end", "strategy", "score", "mapping", "indent_add", "indent_remove",
                 "pieces", "insert_only", "strip_new", "tab_unit", "tab_offset", "fold_new")

    def __init__(
        self,
        start: int,
        end: int,
        strategy: str,
        score: float = 1.0,
        mapping: list[int | None] | None = None,
        indent_add: str = "",
        indent_remove: str = "",
        pieces: list[tuple["Location", list[str], list[str]]] | None = None,
        insert_only: bool = False,
        strip_new: bool = False,
        tab_unit: int = 0,
        tab_offset: int = 0,
    ):
        self.start = start
        self.end = end
        self.strategy = strategy
        self.score = score
        self.mapping = mapping
        self.indent_add = indent_add
        self.indent_remove = indent_remove
        self.pieces = pieces if pieces is not None else []
        self.insert_only = insert_only
        self.strip_new = strip_new
        # The file indents with tabs where the model wrote spaces: model width
        # = tab_unit * file tabs + tab_offset (tab_unit 0: not the case).
        self.tab_unit = tab_unit
        self.tab_offset = tab_offset
        self.fold_new = False  # fold typographic punctuation in new lines (see _try_folded)

    def __repr__(self) -> str:
        return f"Location({self.start}, {self.end}, {self.strategy!r}, score={self.score:.2f})"

    def render(self, lines: list[str], search: list[str], replace: list[str]) -> list[str]:
        """The new lines that take the place of lines[start:end]."""
        if self.pieces:
            out: list[str] = []
            pos = self.start
            for loc, s_piece, r_piece in self.pieces:
                out.extend(lines[pos : loc.start])
                out.extend(loc.render(lines, s_piece, r_piece))
                pos = loc.end
            out.extend(lines[pos : self.end])
            return out
        if self.insert_only:
            return self._adapt(replace)
        if self.strategy == "exact" and self.mapping is None:
            return list(replace)
        if self.mapping is None:
            return self._render(lines, search, replace, list(range(self.start, self.start + len(search))))
        return self._render_phantoms(lines, search, replace, self.mapping)

    def _render_phantoms(self, lines, search, replace, mapping) -> list[str]:
        """SEARCH has blank (or fence) lines at its ends that the file does not have there
        (mapping None: phantoms). A phantom is either the model's copy of a blank line REPLACE
        has at the same end (both go), or a line REPLACE drops (nothing happens): the block
        is read three ways (see _phantom_reading and _pair_phantoms) and applied only where
        the readings that change fewest lines agree; otherwise the intent is not certain."""
        if replace and not any(x.strip() for x in replace):
            # REPLACE is blank lines only: its leading and trailing runs are the same lines,
            # so whether they are the file's or the phantoms' cannot be told.
            raise LocateError(
                "uncertain",
                "SEARCH has blank lines the file does not have there and REPLACE is only blank lines, "
                "so which blank lines should stay is not certain",
            )
        free, free_ops = self._phantom_reading(lines, search, replace, mapping, anchored=False)
        anchored, _ = self._phantom_reading(lines, search, replace, mapping, anchored=True)
        s, r, m = _pair_phantoms(search, replace, mapping)
        readings = [anchored, self._render(lines, s, r, m)]
        # (Free and anchored readings that differ only in which of the file's blank lines stay
        # are one reading: the anchored one keeps the blank lines next to the phantoms.)
        if free != anchored and [x.strip() for x in free] != [x.strip() for x in anchored]:
            if _crosses(search, replace, mapping, free_ops):
                raise LocateError(
                    "uncertain",
                    "SEARCH has blank lines the file does not have there, and REPLACE's blank lines at "
                    "that end could be the file's or copies of those: which is not certain",
                )
            readings.append(free)
        span = lines[self.start : self.end]
        costs = []
        for out in readings:
            ops = SequenceMatcher(None, span, out, autojunk=False).get_opcodes()
            costs.append(sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in ops if tag != "equal"))
        # A block is meant to change something: of the readings that do, those that change
        # fewest of the file's lines must agree.
        low = min((c for c in costs if c), default=0)
        best = [out for out, c in zip(readings, costs) if c == low]
        if any(out != best[0] for out in best):
            raise LocateError(
                "uncertain",
                "SEARCH has blank lines the file does not have there, and whether REPLACE's blank "
                "lines at that end are the file's or copies of those is not certain",
            )
        return best[0]

    def _phantom_reading(self, lines, search, replace, mapping, anchored: bool):
        """(new lines, diff): the block's diff with phantoms matching nothing; a REPLACE blank
        line left over in the same change as a phantom at that end is the phantom's copy.
        `anchored`: REPLACE's blank lines at each end pair only with SEARCH's real blank
        lines at that end (innermost first), never with lines further in."""
        n = len(search)
        keyed = [f"\x00phantom {k}" if m is None else x for k, (x, m) in enumerate(zip(search, mapping))]
        rkeyed = list(replace)
        if anchored:
            for side, seq in ((0, keyed), (0, rkeyed), (1, keyed), (1, rkeyed)):
                idx = range(len(seq)) if side == 0 else range(len(seq) - 1, -1, -1)
                # the blank run at this end (after the phantoms), numbered from its inner end
                run = []
                for k in idx:
                    if seq[k].startswith("\x00phantom"):
                        continue
                    if not _spurious(seq[k]) or seq[k].startswith("\x00"):
                        break
                    run.append(k)
                for d, k in enumerate(reversed(run)):
                    seq[k] = f"\x00edge {side} {d}"
        ops = block_ops(keyed, rkeyed, self.tolerant())
        skip: set[int] = set()
        for (tag, i1, i2, j1, j2), front in ((ops[0], True), (ops[-1], False)):
            if tag == "equal" or (front and i1 != 0) or (not front and i2 != n):
                continue
            ks = range(i1, i2) if front else range(i2 - 1, i1 - 1, -1)
            js = range(j1, j2) if front else range(j2 - 1, j1 - 1, -1)
            ph = 0
            for k in ks:
                if mapping[k] is not None:
                    break
                ph += 1
            for j in js:
                if ph == 0 or not _spurious(replace[j]) or j in skip:
                    break
                skip.add(j)
                ph -= 1
        return self._render(lines, search, replace, mapping, ops, skip), ops

    def _render(self, lines, search, replace, mapping, ops=None, skip=frozenset()) -> list[str]:
        out = []
        if ops is None:
            ops = block_ops(search, replace, self.tolerant())
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                # Unchanged lines: keep the file's own bytes (whitespace, quotes) as they are.
                for k in range(i1, i2):
                    m = mapping[k]
                    if m is not None:
                        out.append(lines[m])
                continue
            for k in range(i1, i2):
                # A line the block removes or rewrites must be the file's line: a misquoted
                # one leaves the model's intent for that line uncertain, so refuse.
                m = mapping[k]
                if m is not None and _key_strip(search[k]) != _key_strip(lines[m]):
                    raise LocateError(
                        "uncertain",
                        f"the edit changes line {m + 1} but SEARCH quotes it as `{search[k].strip()}` "
                        f"where the file has `{lines[m].strip()}`",
                    )
            out.extend(self._adapt([replace[j] for j in range(j1, j2) if j not in skip]))
        return out

    def tolerant(self) -> bool:
        """Whether the match ignored trailing whitespace (then so does pairing SEARCH with REPLACE)."""
        return self.strip_new or self.fold_new or self.strategy == "region"

    def _adapt(self, new: list[str]) -> list[str]:
        if self.strip_new:
            new = [ln.rstrip() for ln in new]
        if self.fold_new:
            new = [ln.translate(_FOLD) for ln in new]
        if self.tab_unit:
            return [_to_tabs(ln, self.tab_unit, self.tab_offset) for ln in new]
        if self.indent_add:
            return [self.indent_add + ln if ln.strip() else ln for ln in new]
        if self.indent_remove:
            p = self.indent_remove
            out = []
            for ln in new:
                if ln.startswith(p):
                    out.append(ln[len(p) :])
                else:
                    ind = _indent(ln)
                    # Less indented than the shift: drop what indentation there is.
                    out.append(ln[len(ind) :] if p.startswith(ind) else ln)
            return out
        return list(new)


def _key_strip(line: str) -> str:
    return line.translate(_FOLD).strip()


def block_ops(search: list[str], replace: list[str], tolerant: bool = False) -> list[tuple[str, int, int, int, int]]:
    """The block's own diff, SEARCH against REPLACE: which lines the model keeps and which it
    changes. `tolerant`: lines that differ only in trailing whitespace (or typographic
    punctuation) are the same line too, since the model's copy of those bytes is
    unreliable. Of two such diffs keeping as many lines, the one that pairs lines written
    identically first wins (of two lines alike but for their whitespace, the one the model
    copied exactly is the one it keeps).

    The lines both sides open and close with are kept first, as they stand: SEARCH `['', 'x = 1',
    '', 'return x']` against REPLACE `['', 'return x']` deletes `x = 1` and the blank line after
    it, not the first blank line (which the file may hold as a line of spaces, kept as it is);
    a longest-match diff alone paired REPLACE's blank line with the later one."""
    n = min(len(search), len(replace))
    p = 0  # written identically: a line alike but for its whitespace is left to the diff's preference
    while p < n and search[p] == replace[p]:
        p += 1
    q = 0
    while q < n - p and search[-1 - q] == replace[-1 - q]:
        q += 1
    if not p and not q:
        return _middle_ops(search, replace, tolerant)
    ops = [("equal", 0, p, 0, p)] if p else []
    for tag, i1, i2, j1, j2 in _middle_ops(search[p : len(search) - q], replace[p : len(replace) - q], tolerant):
        ops.append((tag, i1 + p, i2 + p, j1 + p, j2 + p))
    if q:
        ops.append(("equal", len(search) - q, len(search), len(replace) - q, len(replace)))
    return [op for op in ops if op[1] < op[2] or op[3] < op[4]]


def _middle_ops(search: list[str], replace: list[str], tolerant: bool) -> list[tuple[str, int, int, int, int]]:
    """block_ops between the lines both sides open and close with."""
    ops = SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
    if not tolerant or all(tag == "equal" for tag, *_ in ops):
        return ops
    s_key = [ln.translate(_FOLD).rstrip() for ln in search]
    r_key = [ln.translate(_FOLD).rstrip() for ln in replace]
    exact_first = []
    for tag, i1, i2, j1, j2 in ops:
        if tag != "replace":
            exact_first.append((tag, i1, i2, j1, j2))
            continue
        for t, a1, a2, b1, b2 in SequenceMatcher(None, s_key[i1:i2], r_key[j1:j2], autojunk=False).get_opcodes():
            exact_first.append((t, i1 + a1, i1 + a2, j1 + b1, j1 + b2))
    loose = SequenceMatcher(None, s_key, r_key, autojunk=False).get_opcodes()

    def kept(o):
        return sum(i2 - i1 for tag, i1, i2, _j1, _j2 in o if tag == "equal")

    return exact_first if kept(exact_first) >= kept(loose) else loose


def _crosses(search: list[str], replace: list[str], mapping: list[int | None], ops) -> bool:
    """Whether the diff pairs a blank line at an end of REPLACE where SEARCH has phantoms
    with a SEARCH line beyond a line with text: then that blank line may as well be the
    phantoms' copy, and the two readings of the block are equally good."""
    n, total = len(search), len(replace)
    pair = {}
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for d in range(i2 - i1):
                pair[j1 + d] = i1 + d
    if mapping and mapping[0] is None:
        j = 0
        while j < total and _spurious(replace[j]):
            i = pair.get(j)
            if i is not None and any(search[k].strip() and mapping[k] is not None for k in range(i)):
                return True
            j += 1
    if mapping and mapping[-1] is None:
        j = total - 1
        while j >= 0 and _spurious(replace[j]):
            i = pair.get(j)
            if i is not None and any(search[k].strip() and mapping[k] is not None for k in range(i + 1, n)):
                return True
            j -= 1
    return False


def _pair_phantoms(
    search: list[str], replace: list[str], mapping: list[int | None]
) -> tuple[list[str], list[str], list[int | None]]:
    """SEARCH's phantom lines at each end paired off with REPLACE's blank lines at the same end."""

    def lead(xs, pred):
        k = 0
        while k < len(xs) and pred(xs[k]):
            k += 1
        return k

    a = min(lead(mapping, lambda m: m is None), lead(replace, _spurious))
    b = min(lead(mapping[::-1], lambda m: m is None), lead(replace[::-1], _spurious))
    if a + b > len(replace):
        b = len(replace) - a
    return search[a : len(search) - b], replace[a : len(replace) - b], mapping[a : len(mapping) - b]


class LocateError(Exception):
    """SEARCH could not be placed. reason: not_found | ambiguous | empty_search | bad_elision |
    uncertain (placed, but a line the block changes is misquoted: Location.render raises it)."""

    def __init__(self, reason: str, message: str, closest: str = "", candidates: list[int] | None = None):
        self.reason = reason
        self.message = message
        self.closest = closest
        self.candidates = candidates or []
        super().__init__(message)


def _to_tabs(line: str, unit: int, offset: int) -> str:
    ind = _indent(line)
    if not line.strip() or ind.strip(" "):
        return line  # blank, or already has tabs: leave it
    q, rem = divmod(len(ind) - offset, unit)
    if q < 0:
        return line[len(ind) :]
    return "\t" * q + " " * rem + line[len(ind) :]


def _tab_shift(file_lines: list[str], s: list[str]) -> tuple[int, int] | None:
    """(unit, offset) if the file indents with tabs, the model with spaces, and every
    non-blank line's space count is unit * tabs + offset."""
    pairs = []
    for f, m in zip(file_lines, s):
        if not f.strip() and not m.strip():
            continue
        fi, mi = _indent(f), _indent(m)
        if fi.strip("\t") or mi.strip(" "):
            return None
        pairs.append((len(fi), len(mi)))
    if not pairs or not any(t for t, _ in pairs):
        return None
    for unit in (4, 2, 8, 3):
        off = pairs[0][1] - unit * pairs[0][0]
        if all(w == unit * t + off for t, w in pairs):
            return unit, off
    return None


class _Ambiguous(Exception):
    def __init__(self, starts: list[int], strategy: str):
        self.starts = starts
        self.strategy = strategy


# ---------------------------------------------------------------- matching


def _find(lines: list[str], s: list[str], limit: int = _AMBIGUOUS_LIMIT, lo: int = 0) -> list[int]:
    """Starts of exact occurrences of s in lines[lo:], at most `limit` of them."""
    n = len(s)
    total = len(lines)
    if n == 0 or total - lo < n:
        return []
    # Scan for the longest SEARCH line (likely the rarest) with list.index, which runs in C.
    j = max(range(n), key=lambda k: len(s[k].strip()))
    anchor = s[j]
    found: list[int] = []
    pos = lo + j
    stop = total - n + j + 1
    index = lines.index
    while pos < stop:
        try:
            k = index(anchor, pos, stop)
        except ValueError:
            break
        st = k - j
        if lines[st : st + n] == s:
            found.append(st)
            if len(found) >= limit:
                break
        pos = k + 1
    return found


def _uniform_shift(file_lines: list[str], s: list[str]) -> tuple[str, str] | None:
    """(add, remove) if every non-blank line differs only by one indentation prefix."""
    add = remove = None
    for f, m in zip(file_lines, s):
        if not f.strip() and not m.strip():
            continue
        fi, mi = _indent(f), _indent(m)
        if add is None and remove is None:
            if fi.endswith(mi) and len(fi) > len(mi):
                add = fi[: len(fi) - len(mi)]
            elif mi.endswith(fi) and len(mi) > len(fi):
                remove = mi[: len(mi) - len(fi)]
            else:
                return None
            continue
        if add is not None:
            if fi != add + mi:
                return None
        elif mi != remove + fi:
            return None
    if add is None and remove is None:
        return None
    return add or "", remove or ""


class Views:
    """Normalised copies of a list of lines, made only when a strategy needs them. An
    applier that edits the lines through splice() keeps the copies valid across blocks."""

    __slots__ = ("lines", "_cache")

    def __init__(self, lines: list[str]):
        self.lines = lines
        self._cache: dict[str, list[str]] = {}

    def get(self, key: str) -> list[str]:
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = _normalised(self.lines, key)
        return v

    def splice(self, start: int, end: int, new: list[str]) -> None:
        self.lines[start:end] = new
        for key, v in self._cache.items():
            v[start:end] = _normalised(new, key)


_NORMS = {
    "rstrip": str.rstrip,
    "strip": str.strip,
    "fold_rstrip": lambda ln: ln.translate(_FOLD).rstrip(),
    "fold_strip": lambda ln: ln.translate(_FOLD).strip(),
}


def _normalised(lines: list[str], key: str) -> list[str]:
    """lines normalised as Views.get(key) normalises the file's: SEARCH and file compare alike."""
    fn = _NORMS[key]
    return [fn(ln) for ln in lines]


def _check_indent_twin(
    views: Views, s: list[str], at: int, lo: int, first_after: bool, key: str, s_norm: list[str]
) -> None:
    """SEARCH matching one place as written is suspect if the same lines also sit at another
    indentation somewhere else: models often quote a block dedented or over-indented, and
    the quote then matches a copy at that other depth by coincidence. Both readings are
    plausible, so that is ambiguous."""
    if first_after:
        return
    twins = [
        st for st in _find(views.get(key), s_norm, 8, lo)
        if st != at and _uniform_shift(views.lines[st : st + len(s)], s) is not None
    ]
    if twins:
        raise _Ambiguous([at] + twins, "exact, and with the indentation shifted,")


def _try_levels(views: Views, s: list[str], fold: bool, lo: int = 0, first_after: bool = False) -> Location | None:
    """Exact / whitespace / indent matching of s (optionally with punctuation folded).
    Returns the unique match, None if nothing matched, raises _Ambiguous for several."""
    lines = views.lines
    n = len(s)
    limit = 1 if first_after else _AMBIGUOUS_LIMIT
    if not fold:
        found = _find(lines, s, limit, lo)
        if found:
            if len(found) > 1:
                raise _Ambiguous(found, "exact")
            _check_indent_twin(views, s, found[0], lo, first_after, "strip", _normalised(s, "strip"))
            return Location(found[0], found[0] + n, "exact")
        key_r, key_s, name = "rstrip", "strip", None
    else:
        key_r, key_s, name = "fold_rstrip", "fold_strip", "unicode"
    s_r, s_s = _normalised(s, key_r), _normalised(s, key_s)
    found = _find(views.get(key_r), s_r, limit, lo)
    if found:
        if len(found) > 1:
            raise _Ambiguous(found, name or "whitespace")
        _check_indent_twin(views, s, found[0], lo, first_after, key_s, s_s)
        return Location(found[0], found[0] + n, name or "whitespace", strip_new=True)
    # Indentation: same stripped content, and one uniform prefix added or removed.
    stripped = views.get(key_s)
    hits: list[tuple[int, tuple[str, str]]] = []
    for st in _find(stripped, s_s, 64, lo):
        window = lines[st : st + n]
        shift = _uniform_shift(window, s)
        if shift is not None:
            hits.append((st, shift))
        else:
            tabs = _tab_shift(window, s)
            if tabs is not None:
                hits.append((st, tabs))
        if hits and (first_after or len(hits) >= _AMBIGUOUS_LIMIT):
            break
    if len(hits) > 1:
        raise _Ambiguous([h[0] for h in hits], name or "indent")
    if hits:
        st, shift = hits[0]
        if isinstance(shift[0], int):
            return Location(st, st + n, name or "indent", strip_new=True, tab_unit=shift[0], tab_offset=shift[1])
        add, remove = shift
        return Location(st, st + n, name or "indent", indent_add=add, indent_remove=remove, strip_new=True)
    return None


_FENCE_LINE = re.compile(r"^\s*(?:`{3,}|~{3,})[\w+.#-]*\s*$")


def _spurious(line: str) -> bool:
    """Lines models add around a block: blank lines, markdown fences."""
    return not line.strip() or (line.lstrip()[:1] in "`~" and _FENCE_LINE.match(line) is not None)


_FOLD_CHARS = frozenset(chr(c) for c in _FOLD)


def _typographic(lines: list[str]) -> bool:
    return any(not ln.isascii() and any(ch in _FOLD_CHARS for ch in ln) for ln in lines)


def _try_folded(views: Views, s: list[str], lo: int, first_after: bool) -> Location | None:
    loc = _try_levels(views, s, fold=True, lo=lo, first_after=first_after)
    if loc is not None and not _typographic(views.lines[loc.start : loc.end]):
        # The file has plain ASCII there: the model's curly quotes and dashes are its own
        # noise, so its new lines get them folded too (a “ in code is a syntax error).
        loc.fold_new = True
    return loc


def _trimmed(s: list[str]) -> tuple[list[str], int, int]:
    a, b = 0, len(s)
    while a < b and _spurious(s[a]):
        a += 1
    while b > a and _spurious(s[b - 1]):
        b -= 1
    return s[a:b], a, len(s) - b


def _with_mapping(
    lines: list[str], search: list[str], loc: Location, lead: int, trail: int, strategy: str | None = None
) -> Location:
    """loc matched SEARCH without its `lead`/`trail` blank or fence lines. Those that match
    the file lines next to the match are real and join it; the rest are spurious (None)."""
    n = len(search)
    st, en = loc.start, loc.end
    front: list[int | None] = [None] * lead
    k = lead - 1
    while k >= 0 and st - 1 >= 0 and lines[st - 1].strip() == search[k].strip():
        st -= 1
        front[k] = st
        k -= 1
    back: list[int | None] = [None] * trail
    k = 0
    while k < trail and en < len(lines) and lines[en].strip() == search[n - trail + k].strip():
        back[k] = en
        en += 1
        k += 1
    loc.mapping = front + list(range(loc.start, loc.end)) + back
    loc.start, loc.end = st, en
    assert len(loc.mapping) == n
    if strategy:
        loc.strategy = strategy
    return loc


def _basic(views: Views, s: list[str], lo: int = 0, first_after: bool = False) -> Location | None:
    """Strategies 1-5 for one list of lines."""
    loc = _try_levels(views, s, fold=False, lo=lo, first_after=first_after)
    if loc is not None:
        return loc
    t, lead, trail = _trimmed(s)
    if t and (lead or trail):
        loc = _try_levels(views, t, fold=False, lo=lo, first_after=first_after)
        if loc is not None:
            return _with_mapping(views.lines, s, loc, lead, trail, "blank_lines")
    loc = _try_folded(views, s, lo, first_after)
    if loc is not None:
        return loc
    if t and (lead or trail):
        loc = _try_folded(views, t, lo, first_after)
        if loc is not None:
            return _with_mapping(views.lines, s, loc, lead, trail, "unicode")
    return None


# ---------------------------------------------------------------- elision


def _split_elisions(lines: list[str]) -> list[list[str]]:
    pieces: list[list[str]] = [[]]
    for ln in lines:
        if is_elision(ln):
            pieces.append([])
        else:
            pieces[-1].append(ln)
    return pieces


def _locate_elided(views: Views, s: list[str], r: list[str]) -> Location | None:
    s_pieces = _split_elisions(s)
    if len(s_pieces) == 1:
        return None
    r_pieces = _split_elisions(r)
    if len(r_pieces) != len(s_pieces):
        raise LocateError(
            "bad_elision",
            f"SEARCH leaves code out with {len(s_pieces) - 1} `...` line(s) but REPLACE has "
            f"{len(r_pieces) - 1}; use the same `...` lines in both, or quote the lines in full",
        )
    # A leading/trailing `...` (nothing before/after it) only says "more code here".
    if not any(x.strip() for x in s_pieces[0]):
        if any(x.strip() for x in r_pieces[0]):
            raise LocateError("bad_elision", "REPLACE adds lines before a leading `...`; quote where they go")
        s_pieces, r_pieces = s_pieces[1:], r_pieces[1:]
    if s_pieces and not any(x.strip() for x in s_pieces[-1]):
        if any(x.strip() for x in r_pieces[-1]):
            raise LocateError("bad_elision", "REPLACE adds lines after a trailing `...`; quote where they go")
        s_pieces, r_pieces = s_pieces[:-1], r_pieces[:-1]
    if not s_pieces:
        return None
    if any(not any(x.strip() for x in p) for p in s_pieces):
        raise LocateError("bad_elision", "two `...` lines with nothing between them in SEARCH")
    located: list[tuple[Location, list[str], list[str]]] = []
    pos = 0
    for i, (sp, rp) in enumerate(zip(s_pieces, r_pieces)):
        # A piece the block leaves as it is only marks where the kept code ends: the result
        # is the same wherever it is, so its first occurrence will do. A piece that changes
        # must be unique (in the file for the first, after the piece before for the rest).
        try:
            loc = _basic(views, sp, lo=pos, first_after=(sp == rp))
        except _Ambiguous as amb:
            which = "the first part" if i == 0 else f"the part after `...` number {i}"
            raise LocateError(
                "ambiguous",
                f"{which} of SEARCH matches {len(amb.starts)} or more places (lines "
                f"{', '.join(str(x + 1) for x in amb.starts)}); quote more lines so it matches once",
                candidates=amb.starts,
            ) from None
        if loc is None:
            return None
        located.append((loc, sp, rp))
        pos = loc.end
    first, last = located[0][0], located[-1][0]
    return Location(first.start, last.end, "elision", pieces=located)


# ---------------------------------------------------------------- fuzzy

_FUZZY_MIN_MEAN = 85.0
_FUZZY_MIN_LINE = 50.0
_FUZZY_MARGIN = 8.0
_FUZZY_MIN_LINES = 3  # non-blank SEARCH lines
_FUZZY_MIN_EXACT = 0.6  # share of them that must match exactly (after whitespace/punctuation)


def _fuzzy_candidates(views: Views, ss: list[str]) -> dict[int, float]:
    """Window starts scored by mean line similarity (0-100); ss: SEARCH normalised "fold_strip"."""
    from rapidfuzz import fuzz, process  # imported here: only refusals and fuzzy matches pay for it

    fs = views.get("fold_strip")
    n, total = len(ss), len(fs)
    if n == 0 or total < n:
        return {}
    starts: set[int] = set()
    order = sorted((i for i in range(n) if ss[i]), key=lambda i: -len(ss[i]))[:8]
    for i in order:
        for _choice, _score, j in process.extract(ss[i], fs, scorer=fuzz.ratio, score_cutoff=60, limit=50):
            st = j - i
            if 0 <= st <= total - n:
                starts.add(st)
    scores: dict[int, float] = {}
    for st in starts:
        tot = 0.0
        counted = 0
        for i in range(n):
            a, b = ss[i], fs[st + i]
            if not a and not b:
                continue  # blank against blank proves nothing
            counted += 1
            tot += 100.0 if a == b else fuzz.ratio(a, b)
        scores[st] = tot / counted if counted else 0.0
    return scores


def _locate_fuzzy(views: Views, s: list[str], r: list[str]) -> Location | None:
    from rapidfuzz import fuzz

    ss = _normalised(s, "fold_strip")
    scores = _fuzzy_candidates(views, ss)
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best_start, best = ranked[0]
    if best < _FUZZY_MIN_MEAN:
        return None
    if len(ranked) > 1 and best - ranked[1][1] < _FUZZY_MARGIN:
        raise _Ambiguous([best_start, ranked[1][0]], "fuzzy")
    n = len(s)
    window = views.lines[best_start : best_start + n]
    fs = views.get("fold_strip")[best_start : best_start + n]
    # Lines the block removes or rewrites must be quoted right; only context may be off.
    changed: set[int] = set()
    for tag, i1, i2, _j1, _j2 in block_ops(s, r, tolerant=True):  # as render() will pair them
        if tag != "equal":
            changed.update(range(i1, i2))
    exact = nonblank = 0
    for i in range(n):
        if i in changed and ss[i] != fs[i]:
            return None
        if ss[i] != fs[i] and fuzz.ratio(ss[i], fs[i]) < _FUZZY_MIN_LINE:
            return None
        if ss[i]:
            nonblank += 1
            exact += ss[i] == fs[i]
    # Enough real evidence: a few lines, most of them quoted right.
    if nonblank < _FUZZY_MIN_LINES or exact < _FUZZY_MIN_EXACT * nonblank:
        return None
    loc = Location(best_start, best_start + n, "fuzzy", score=best / 100.0, strip_new=True)
    # Indentation of the lines quoted right must agree with the file up to one uniform
    # shift; otherwise the model's indentation is unreliable and new lines could land at
    # the wrong depth (fatal in Python), so refuse rather than guess.
    pairs = [(f, m) for f, m, a, b in zip(window, s, fs, ss) if a == b and a]
    if any(_indent(f) != _indent(m) for f, m in pairs):
        shift = _uniform_shift([p[0] for p in pairs], [p[1] for p in pairs])
        if shift is None:
            return None
        loc.indent_add, loc.indent_remove = shift
    return loc


def find_unique(lines: list[str], search: list[str], views: Views | None = None) -> Location | None:
    """Strategies 1-5 only; None when there is no match or more than one."""
    if not any(x.strip() for x in search):
        return None
    if views is None or views.lines is not lines:
        views = Views(lines)
    try:
        return _basic(views, search)
    except _Ambiguous:
        return None


def closest_lines(lines: list[str], search: list[str], context: int = 0) -> tuple[int, int, float] | None:
    """(start, end, score 0-1) of the file window most like `search`, for feedback."""
    if not search or not lines:
        return None
    views = Views(lines)
    scores = _fuzzy_candidates(views, _normalised(search[: min(len(search), len(lines))], "fold_strip"))
    if not scores:
        return None
    st, sc = max(scores.items(), key=lambda kv: kv[1])
    n = min(len(search), len(lines))
    return max(0, st - context), min(len(lines), st + n + context), sc / 100.0


# ---------------------------------------------------------------- entry point


def _ambiguous_error(amb: _Ambiguous) -> LocateError:
    where = ", ".join(f"{x + 1}" for x in amb.starts)
    more = " or more" if len(amb.starts) >= _AMBIGUOUS_LIMIT else ""
    return LocateError(
        "ambiguous",
        f"SEARCH matches {len(amb.starts)}{more} places in the file (starting at lines {where}, "
        f"by {amb.strategy} match); add a few more lines around the change so it matches exactly one",
        candidates=amb.starts,
    )


def _anchor_line(lines: list[str], anchor: str) -> int | None:
    a = anchor.strip()
    hits = [i for i, ln in enumerate(lines) if ln.strip() == a]
    if len(hits) != 1:
        hits = [i for i, ln in enumerate(lines) if ln.strip().startswith(a)]
    return hits[0] if len(hits) == 1 else None


def locate(
    lines: list[str],
    search: list[str],
    replace: list[str] | None = None,
    *,
    anchor: str | None = None,
    at_eof: bool = False,
    views: Views | None = None,
) -> Location:
    """Finds `search` (a list of lines) in `lines`; raises LocateError when it cannot.
    `views` (optional, over the same list) reuses normalised copies across calls."""
    replace = replace if replace is not None else []
    if not any(x.strip() for x in search):
        return _locate_empty(lines, anchor, at_eof)
    if views is None or views.lines is not lines:
        views = Views(lines)
    try:
        loc = _basic(views, search)
        if loc is not None:
            return loc
        loc = _locate_elided(views, search, replace)
        if loc is not None:
            return loc
        loc = _locate_fuzzy(views, search, replace)
        if loc is not None:
            return loc
    except _Ambiguous as amb:
        resolved = _resolve_by_format(views, search, amb, anchor, at_eof)
        if resolved is not None:
            return resolved
        raise _ambiguous_error(amb) from None
    raise LocateError("not_found", "SEARCH does not match any lines in the file")


def _resolve_by_format(
    views: Views, search: list[str], amb: _Ambiguous, anchor: str | None, at_eof: bool
) -> Location | None:
    """apply_patch defines its own tie-breaks: `@@ anchor` means the first match after the
    anchor line; `*** End of File` means the match at the end of the file."""
    lines = views.lines
    if anchor:
        a = _anchor_line(lines, anchor)
        if a is not None:
            try:
                return _basic(views, search, lo=a, first_after=True)
            except _Ambiguous:
                return None
    if at_eof:
        n = len(search)
        end = len(lines)
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        try:
            loc = _basic(views, search, lo=max(0, end - n - 2))
        except _Ambiguous:
            return None
        if loc is not None and loc.end >= end:
            return loc
    return None


def _locate_empty(lines: list[str], anchor: str | None, at_eof: bool) -> Location:
    if not any(ln.strip() for ln in lines):
        # Empty file: the block creates its content.
        return Location(0, len(lines), "empty")
    if anchor:
        a = _anchor_line(lines, anchor)
        if a is None:
            raise LocateError("not_found", f"the @@ line `{anchor.strip()}` does not match exactly one line of the file")
        return Location(a + 1, a + 1, "anchor", insert_only=True)
    if at_eof:
        return Location(len(lines), len(lines), "end_of_file", insert_only=True)
    raise LocateError(
        "empty_search",
        "SEARCH is empty but the file is not; quote the lines to change, or the lines just "
        "before the place where the new code goes (and repeat them in REPLACE)",
    )
