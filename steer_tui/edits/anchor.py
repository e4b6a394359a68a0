"""Anchoring a region rewrite: the span of the region the model's answer restates; code it left out stays.

A model asked to rewrite a region sometimes answers with part of it: the one method it
changed out of a class, the region without its head or tail, or with a run of whole
definitions gone. Taken as written, that deletes the code it left out. Unless the
instruction asks to delete, the answer is anchored instead:

- lines of the region before the first line the answer matches (its head) and after the
  last (its tail) are left out of the span and kept;
- a run of whole definitions missing between matched lines is kept in place;
- if the answer still drops a whole definition (its name gone and most of its body), it
  cannot be anchored: PartialRewrite, with feedback the model can act on.

Definitions are those of steer_tui.lang for a file in a language it knows (but Python); for Python
and unknown files, a header regex and the indentation under it. With the layer's definitions, an
answer that restates only definitions inside the region (one method of a class, impl or struct) is
anchored to those definitions alone, so nothing it did not restate (the class's head) is replaced.

Lines are compared with surrounding whitespace stripped. Pure: no I/O, no state.
"""

from __future__ import annotations

import os.path
import re
from collections import Counter
from functools import lru_cache
from difflib import SequenceMatcher
from typing import Callable, NamedTuple, Sequence

from steer_tui import lang
from steer_tui.edits.locate import _indent
from steer_tui import intent

__all__ = ["PartialRewrite", "anchor_rewrite", "asks_to_delete", "asks_to_repeat", "may_delete", "reindent",
           "strip_echoed_context", "whole_definitions"]

# Words that ask for code to go. Conservative: only these allow a rewrite to drop code.
_DELETE = intent.DELETES  # steer_tui/intent.py
# A definition header in the languages steer sees most (Python, JS/TS, Go, Rust, C-likes).
_DEF = re.compile(
    r"^\s*(?:@\w|(?:async\s+)?def\s|class\s|(?:export\s+)?(?:async\s+)?function\b|func\s|fn\s|pub\s+fn\s|impl\b|struct\s)"
)
_NAME = re.compile(r"^\s*(?:@\w+\s*)?(?:(?:export|pub|async|def|class|function|func|fn|impl|struct)\s+)+(\w+)")
_MIN_RATIO = 0.6  # a changed line at the head or tail must be at least this like the region line it stands for


class _Def(NamedTuple):
    """A definition of the region: lines [start, end) (its decorators, attributes and leading comments
    included), the `line` that names it, its `name`; `attrs`: the lines before `line` that are code,
    not comments (attributes, a template head), as offsets from `start`."""

    start: int
    end: int
    line: int
    name: str | None
    attrs: tuple[int, ...] = ()

    def shifted(self, by: int) -> "_Def":
        """The same definition with its lines counted from `by` (a piece of the region that starts there)."""
        return self._replace(start=self.start - by, end=self.end - by, line=self.line - by)


class PartialRewrite(ValueError):
    """The rewrite leaves out code it cannot be anchored around. message: one line;
    feedback: what to send back to the model."""

    def __init__(self, message: str, feedback: str):
        self.message = message
        self.feedback = feedback
        super().__init__(message)


# What may stand before a verb that starts a clause: the start, a punctuation mark or "then", and
# fillers ("please", "also", "no, just", ", and"). A bare "and" or "or" is not one: it joins names
# as often as clauses ("make add and remove return the new quantity").
_CLAUSE_START = intent.CLAUSE_START  # steer_tui/intent.py


def asks_to_delete(instruction: str | None, lines: list[str] | None = None, path: str | None = None) -> bool:
    """Whether the instruction asks for code to be deleted (then a rewrite may drop code).

    With the file's `lines`, a word that names one of its definitions counts only where it starts a
    clause: "make remove raise KeyError" and "make add and remove return the new quantity" name the
    method `remove` and ask for no deletion, while "remove total_value" and "add a docstring, then
    remove cheapest" do ask. Taken as a verb there, it let an answer that brought back one method of
    a span delete the others; a deletion it misses is refused as a partial rewrite, and "delete"
    says it plainly. `path` tells the file's language (defined_names)."""
    return _asks(_DELETE, instruction, lines, path)


def may_delete(instruction: str | None, lines: list[str] | None = None, path: str | None = None) -> bool | frozenset[str]:
    """What a rewrite may drop for this instruction: False (nothing); the names of the file's
    definitions a deletion word takes as its object ("delete cheapest", "remove the cheapest and
    total_value methods"; not `Inventory` in "delete remove from Inventory", nor `load` in "remove
    parse_line and do the parsing inside load"), where a definition the answer leaves out that is
    not one of them stays, as without a deletion word; or True (anything: the instruction asks to
    delete and names no definition to delete, "remove the debug prints"). `path` tells the file's
    language (defined_names)."""
    verbs = _requests(_DELETE, instruction, lines, path)
    if not verbs:
        return False
    names = defined_names(tuple(lines), path) if lines else frozenset()
    objects = set()
    for verb in verbs:
        for m in _WORD.finditer(instruction, verb.end()):
            word = m.group(0)
            if _OBJECT_ENDS.search(instruction, verb.end(), m.start()) or not (word in names or word.lower() in _OBJECT_WORDS):
                break
            if word in names:
                objects.add(word)
    return frozenset(objects) or True


_WORD = re.compile(r"\w+")
# A deletion word's object: the names right after it, and these words among them ("the cheapest
# and total_value methods", "the memoize decorator"); any other word or a clause mark ends it
# ("remove pop from Stack", "remove parse_price and make total use it").
_OBJECT_ENDS = re.compile(r"[;:.!?]")
_OBJECT_WORDS = frozenset((
    "the", "a", "an", "this", "that", "it", "and", "or", "both", "whole", "entire", "unused", "old", "dead", "deprecated", "obsolete",
    "method", "methods", "function", "functions", "class", "classes", "def", "decorator", "decorators",
    "helper", "helpers", "property", "definition", "definitions", "constructor", "struct", "impl", "interface",
    "trait", "enum"))


def _asks(words: re.Pattern, instruction: str | None, lines: list[str] | None, path: str | None = None) -> bool:
    """`words` occur in the instruction as a request (asks_to_delete, asks_to_repeat): with the
    file's `lines`, a match that is the name of one of its definitions only where it starts a clause."""
    return bool(_requests(words, instruction, lines, path, first=True))


def _requests(words: re.Pattern, instruction: str | None, lines: list[str] | None, path: str | None = None,
              first: bool = False) -> list[re.Match]:
    """The matches of `words` that count as a request (see _asks); with `first`, at most one."""
    if not instruction:
        return []
    names = None  # the file's definitions, read once a word is found
    found = []
    for m in words.finditer(instruction):
        if names is None:
            names = defined_names(tuple(lines), path) if lines else frozenset()
        before = instruction[: m.start()]
        if m.group(0) in names and (before.endswith("`") or not _CLAUSE_START.search(before)):
            continue
        found.append(m)
        if first:
            break
    return found


@lru_cache(maxsize=4)
def defined_names(lines: tuple[str, ...], path: str | None = None) -> frozenset[str]:
    """The names the lines define (def, class, function, fn, ... headers); with the `path` of a file in
    a language steer_tui.lang knows besides Python, also those of the layer's definitions (a Java
    or TypeScript method has no header the regex knows)."""
    found = frozenset(m.group(1) for ln in lines if (m := _NAME.match(ln)))
    spec = lang.language(path)
    if spec is None or spec.key == "python":
        return found
    return found | {d.name for d in lang.definitions(path, "\n".join(lines)) if d.name}


def _common_indent(lines: list[str]) -> str:
    return os.path.commonprefix([_indent(ln) for ln in lines if ln.strip()])


def reindent(region: list[str], new: list[str]) -> list[str]:
    """A rewrite the model dedented (or over-indented) as a whole gets the region's own
    common indentation back."""
    if not any(x.strip() for x in region) or not any(x.strip() for x in new):
        return new  # no indentation to go by
    want, have = _common_indent(region), _common_indent(new)
    if want == have:
        return new
    return [want + ln[len(have) :] if ln.strip() else "" for ln in new]


def _layer_definitions(path: str | None, region: list[str], context: tuple[Sequence[str], int] | None) -> list[_Def] | None:
    """The definitions of `region` by steer_tui.lang, in file order, an outer one before those inside it;
    None for Python (its regex and indentation hold up) and for a language the layer does not know.
    With `context` (the file's lines, the region's first line in them) the whole file is parsed: a
    run of methods alone does not parse as methods in every language (TypeScript)."""
    spec = lang.language(path)
    if spec is None or spec.key == "python":
        return None
    offset, text = 0, "\n".join(region)
    if context is not None:
        lines, at = context
        if list(lines[at : at + len(region)]) == list(region):
            offset, text = at, "\n".join(lines)
    n = len(region)
    comments = {k for a, b in lang.comment_spans(path, text) for k in range(a, b + 1)}
    lines = text.split("\n")
    out = []
    for d in lang.definitions(path, text):
        if offset <= d.line and d.end - offset <= n:
            start = max(d.start, offset)
            attrs = tuple(k - start for k in range(start, d.line) if k not in comments and lines[k].strip())
            out.append(_Def(start - offset, d.end - offset, d.line - offset, d.name or None, attrs))
    return out


def _definitions(lines: list[str], lo: int, hi: int, nested: bool = False, defs: list[_Def] | None = None) -> list[_Def]:
    """The definitions whose first line is in lines[lo:hi]: `defs` (the layer's) where given; else
    found by their header and the lines after it indented deeper (blank lines inside included).
    Those one after another, or with `nested` also those inside them."""
    if defs is not None:
        out: list[_Def] = []
        for d in defs:
            if lo <= d.start < hi and (nested or not out or d.start >= out[-1].end):
                out.append(d)
        return out
    out = []
    i = lo
    while i < hi:
        if not _DEF.match(lines[i]):
            i += 1
            continue
        head = i
        while i < hi and lines[i].lstrip().startswith("@"):
            i += 1  # decorators belong to the definition below them
        if i >= hi:
            break
        depth = len(_indent(lines[head]))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(_indent(lines[j])) > depth):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1  # trailing blank lines separate definitions; they are not part of one
        header = _header(lines, head, j)
        out.append(_Def(head, j, header, _name(lines[header])))
        i = i + 1 if nested else j
    return out


def whole_definitions(lines: list[str], i1: int, i2: int, defs: list[_Def] | None = None) -> bool:
    """lines[i1:i2] is one or more whole definitions (blank lines between or around them); `defs`:
    the layer's definitions of `lines`, if it knows their language."""
    body = [k for k in range(i1, i2) if lines[k].strip()]
    if not body:
        return False
    k = i1
    found = False
    for d in _definitions(lines, i1, i2, defs=defs):
        if any(lines[x].strip() for x in range(k, d.start)) or d.end > i2:
            return False
        k, found = d.end, True
    return found and not any(lines[x].strip() for x in range(k, i2))


def _best_match(line: str, region_keys: list[str], lo: int, hi: int) -> int | None:
    """The region line in [lo, hi) most like `line` (stripped), if it is like enough and the only best."""
    best, best_k, tie = 0.0, None, False
    for k in range(lo, hi):
        if not region_keys[k]:
            continue
        r = SequenceMatcher(None, line, region_keys[k], autojunk=False).ratio()
        if r > best:
            best, best_k, tie = r, k, False
        elif r == best:
            tie = True
    return best_k if best >= _MIN_RATIO and not tie else None


def _name(line: str) -> str | None:
    m = _NAME.match(line)
    return m.group(1) if m else None


def anchor_rewrite(
    region: list[str], new: list[str], allow_delete: bool | frozenset[str] = False, *,
    path: str | None = None, context: tuple[Sequence[str], int] | None = None,
) -> tuple[int, int, list[str], list[tuple[int, int]]]:
    """(start, end, lines, kept): the rewrite `new` of `region` replaces region[start:end]
    by `lines` (re-indented to that span, with the runs of whole definitions it left out
    in place); `kept` lists the region runs [i1, i2) the answer left out and that stay.
    Raises PartialRewrite when it drops a whole definition that cannot be anchored.
    `allow_delete` (may_delete): True takes the answer as the whole region; a set of names lets
    only the definitions of those names go, the rest anchored as without it. `path` tells the
    language (steer_tui.lang finds the definitions where it knows it); `context`: the file's lines
    and the region's first line in them, to parse the region where it stands."""
    return _anchor(region, new, allow_delete, _layer_definitions(path, region, context),
                   lambda: _defines(path, new))


def _defines(path: str | None, lines: list[str]) -> bool:
    """`lines` hold a definition (by the layer, else by the regex)."""
    found = _layer_definitions(path, lines, None)
    return bool(found if found is not None else _definitions(lines, 0, len(lines)))


def _anchor(region: list[str], new: list[str], allow_delete: bool | frozenset[str],
            defs: list[_Def] | None, defines: Callable[[], bool] = lambda: True,
            ) -> tuple[int, int, list[str], list[tuple[int, int]]]:
    """anchor_rewrite with the region's definitions (`defs`: the layer's, or None for the regex);
    `defines`: whether the answer holds a definition."""
    whole = (0, len(region), reindent(region, new), [])
    if allow_delete is True or not any(x.strip() for x in region) or not any(x.strip() for x in new):
        return whole
    deletable = allow_delete or frozenset()
    rk = [x.strip() for x in region]
    nk = [x.strip() for x in new]
    ops = SequenceMatcher(None, rk, nk, autojunk=False).get_opcodes()
    if not any(tag == "equal" and any(rk[i1:i2]) for tag, i1, i2, _j1, _j2 in ops):
        # Nothing in common: a new version of the whole region, not a part of it; but one that
        # defines nothing and never names the region's definitions is no version of them (a file's
        # import line and a comment written for a function): it would delete them.
        if not defines():
            _refuse_if_dropped(region, new, 0, len(region), [], deletable, defs)
        return whole
    if defs:
        (a, b), restated = _restated(defs, rk, nk, deletable)
        if len(restated) > 1 and (each := _anchor_each(region, new, allow_delete, defs, restated)) is not None:
            return each
        if (a, b) != (0, len(region)):
            return _anchor_within(region, new, allow_delete, defs, a, b)

    start, end = _left_out_ends(ops, rk, nk, len(region))
    if defs and ops[0][0] == "replace" and _attrs_left_out(defs, ops[0], rk, nk):
        start = ops[0][2]
    middle = _left_out_between(ops, region, rk, nk, start, end, deletable, defs)
    # A head or tail left out that holds definitions the instruction asks to delete: those go, and
    # the others in it stay in place.
    if deletable and start and whole_definitions(region, 0, start, defs):
        if (stay := _unnamed(region, 0, start, deletable, defs)) != [(0, start)]:
            middle, start = stay + middle, 0
    if deletable and end < len(region) and whole_definitions(region, end, len(region), defs):
        if (stay := _unnamed(region, end, len(region), deletable, defs)) != [(end, len(region))]:
            middle, end = middle + stay, len(region)
    kept = ([(0, start)] if start else []) + middle + ([(end, len(region))] if end < len(region) else [])
    if not kept:
        _refuse_if_dropped(region, new, 0, len(region), [], deletable, defs)
        return whole
    span = region[start:end]
    lines = reindent(span, new) if any(x.strip() for x in span) else new
    if middle:
        lines = _put_back(ops, lines, region, middle)
    _refuse_if_dropped(region, lines, start, end, kept, deletable, defs)
    return start, end, lines, kept


def _restated(defs: list[_Def], rk: list[str], nk: list[str],
              deletable: frozenset[str]) -> tuple[tuple[int, int], list[_Def]]:
    """((a, b), restated): the lines [a, b) of the region the answer restates, by its definitions:
    the run of sibling definitions that holds every region line the answer has unchanged, starting
    at the region's top level and going into the one definition holding them all while the answer
    leaves out the line that names it (a method restated without its class: the class's head is not
    part of the rewrite, and a line the answer adds before the method belongs to the method, not to
    the class's head). Definitions the instruction asks to delete among those siblings join the
    run, to go. The whole region where a restated line stands outside every definition of a level.
    `restated`: the definitions of the run the answer restates lines of, where none is to be deleted.

    Only lines the region has once count: the line matcher pairs a `}` or `return n;` of the answer
    with the first one of the region, often in a method the answer does not restate."""
    counts, shown = Counter(rk), set(nk)
    matched = [i for i, key in enumerate(rk) if key and counts[key] == 1 and key in shown]
    span, parent, restated = (0, len(rk)), None, []
    while True:
        level = _children(defs, parent)
        holding = [d for d in level if any(d.start <= i < d.end for i in matched)]
        if not holding or any(not any(d.start <= i < d.end for d in holding) for i in matched):
            return span, restated
        run = holding + [d for d in level if d.name in deletable]
        span, restated = (min(d.start for d in run), max(d.end for d in run)), holding if run == holding else []
        if len(run) > 1 or holding[0].line in matched:
            return span, restated
        parent = holding[0]


def _attrs_left_out(defs: list[_Def], op: tuple, rk: list[str], nk: list[str]) -> bool:
    """The region's first lines that the answer's first lines replace (`op`) hold an attribute or a
    template head of a definition that no line of the answer is like: the answer left it out, and
    its new lines (a doc comment) go after it (taken as changed lines, `#[derive(...)]` or
    `template <typename T>` gave way to a comment)."""
    _tag, i1, i2, j1, j2 = op
    attrs = {d.start + k for d in defs for k in d.attrs}
    return any(i in attrs and _best_match(rk[i], nk, j1, j2) is None for i in range(i1, i2))


def _children(defs: list[_Def], parent: _Def | None) -> list[_Def]:
    """The definitions directly inside `parent` (None: the region's top level), in file order."""
    inner = [d for d in defs if d is not parent and (parent is None or parent.start <= d.start and d.end <= parent.end)]
    return [d for d in inner if not any(o is not d and o.start <= d.start and d.end <= o.end for o in inner)]


def _anchor_each(region: list[str], new: list[str], allow_delete: bool | frozenset[str], defs: list[_Def],
                 restated: list[_Def]) -> tuple[int, int, list[str], list[tuple[int, int]]] | None:
    """An answer that restates several sibling definitions, each anchored to its own: the line matcher
    over the whole run pairs a `}` or a blank line of one with those of another and loses its place.
    The answer's lines go to the definition whose line (one the region has once) they restate, a
    line between two such to the earlier one up to the first blank line after it; None where the
    answer's order is not the definitions' (a move: the run is anchored as a whole)."""
    rk = [x.strip() for x in region]
    counts = Counter(rk)
    owner: dict[int, int] = {}
    for j, line in enumerate(new):
        key = line.strip()
        if key and counts[key] == 1:
            i = rk.index(key)
            owner[j] = next((k for k, d in enumerate(restated) if d.start <= i < d.end), -1)
    order = [owner[j] for j in sorted(owner)]
    if -1 in order or order != sorted(order) or set(order) != set(range(len(restated))):
        return None
    cuts = [0]
    for k in range(1, len(restated)):
        last = max(j for j, o in owner.items() if o == k - 1)
        first = min(j for j, o in owner.items() if o == k)
        cuts.append(next((j for j in range(last + 1, first) if not new[j].strip()), first))
    cuts.append(len(new))
    out: list[str] = []
    for k, d in enumerate(restated):
        piece = new[cuts[k]:cuts[k + 1]]
        while k and piece and not piece[0].strip():
            piece = piece[1:]  # the blank lines between two definitions are the region's own
        while k < len(restated) - 1 and piece and not piece[-1].strip():
            piece = piece[:-1]
        inner = [x.shifted(d.start) for x in defs if d.start <= x.start and x.end <= d.end]
        s, e, lines, _kept = _anchor(region[d.start:d.end], piece, allow_delete, inner)
        if k:
            out += region[restated[k - 1].end:d.start]
        out += region[d.start:d.start + s] + lines + region[d.start + e:d.end]
    a, b = restated[0].start, restated[-1].end
    kept = [(0, a)] if a else []
    kept += [(x.end, y.start) for x, y in zip(restated, restated[1:]) if x.end < y.start]
    return a, b, out, kept + ([(b, len(region))] if b < len(region) else [])


def _anchor_within(region: list[str], new: list[str], allow_delete: bool | frozenset[str], defs: list[_Def],
                   a: int, b: int) -> tuple[int, int, list[str], list[tuple[int, int]]]:
    """The answer anchored to region[a:b] (what it restates, _restated); the lines around it stay."""
    inner = [d.shifted(a) for d in defs if a <= d.start and d.end <= b]
    start, end, lines, kept = _anchor(region[a:b], new, allow_delete, inner)
    runs = [(0, a)] + [(i1 + a, i2 + a) for i1, i2 in kept] + [(b, len(region))]
    merged: list[tuple[int, int]] = []
    for i1, i2 in runs:
        if i1 >= i2:
            continue
        if merged and merged[-1][1] == i1:
            merged[-1] = (merged[-1][0], i2)
        else:
            merged.append((i1, i2))
    return start + a, end + a, lines, merged


def _left_out_ends(ops: list, rk: list[str], nk: list[str], n: int) -> tuple[int, int]:
    """(start, end): the region lines before the answer's first matched line and after its last
    are left out, not deleted (`ops`: the opcodes of the region's stripped lines `rk` against the
    answer's `nk`; `n`: the region's length)."""
    start, end = 0, n
    tag, i1, i2, j1, j2 = ops[0]
    if tag == "delete":
        start = i2
    elif tag == "replace" and i2 - i1 > j2 - j1:
        k = _best_match(nk[j1], rk, i1, i2) if nk[j1] else None
        if k is not None:
            start = k
    # The tail, the same way from the end.
    tag, i1, i2, j1, j2 = ops[-1]
    if tag == "delete" and i1 >= start:
        end = i1
    elif tag == "replace" and i2 - i1 > j2 - j1 and i1 >= start:
        k = _best_match(nk[j2 - 1], rk, i1, i2) if nk[j2 - 1] else None
        if k is not None:
            end = k + 1
    return start, end


def _left_out_between(ops: list, region: list[str], rk: list[str], nk: list[str], start: int, end: int,
                      deletable: frozenset[str], defs: list[_Def] | None = None) -> list[tuple[int, int]]:
    """Between matched lines: the runs of whole definitions the answer left out, which stay where
    they are (but those the instruction names for deletion)."""
    middle: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in ops[1:-1]:
        if not (start <= i1 and i2 <= end):
            continue
        if tag == "delete" and whole_definitions(region, i1, i2, defs):
            middle += _unnamed(region, i1, i2, deletable, defs)
        elif tag == "replace" and i2 - i1 > j2 - j1 and nk[j1]:
            # Definitions gone just before a changed line: the changed line stands for the
            # region line it is most like; the whole definitions before that one stay.
            k = _best_match(nk[j1], rk, i1, i2)
            if k is not None and k > i1 and whole_definitions(region, i1, k, defs):
                middle += _unnamed(region, i1, k, deletable, defs)
    return middle


def _put_back(ops: list, lines: list[str], region: list[str], middle: list[tuple[int, int]]) -> list[str]:
    """The answer's `lines` with each kept run of `region` put back after the answer's line that
    stands for the last region line before it (a matched line, or the last line of a changed run)."""
    at = {}
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("equal", "replace"):
            for d in range(i2 - i1):
                at[i1 + d] = j1 + d if tag == "equal" else j2 - 1
    out, pos = [], 0
    for i1, i2 in middle:
        j = max((at[i] for i in at if i < i1), default=-1) + 1
        j = max(j, pos)
        out += lines[pos:j] + region[i1:i2]
        pos = j
    return out + lines[pos:]


def _header(region: list[str], d1: int, d2: int) -> int:
    """The line of the definition region[d1:d2] that names it: the first after its decorators."""
    return next((k for k in range(d1, d2) if not region[k].lstrip().startswith("@")), d1)


def _unnamed(region: list[str], i1: int, i2: int, names: frozenset[str],
             defs: list[_Def] | None = None) -> list[tuple[int, int]]:
    """region[i1:i2], whole definitions, as the runs that stay: without the definitions named in
    `names` (each run a definition not named, with the blank lines before it; the whole run when
    none is named)."""
    found = _definitions(region, i1, i2, defs=defs)
    gone = [d.name in names for d in found]
    if not any(gone):
        return [(i1, i2)]
    out, k = [], i1
    for d, goes in zip(found, gone):
        if not goes:
            out.append((k, d.end))
        k = d.end
    return out


def _refuse_if_dropped(region: list[str], lines: list[str], start: int, end: int, kept: list[tuple[int, int]],
                       deletable: frozenset[str] = frozenset(), defs: list[_Def] | None = None) -> None:
    """A definition in region[start:end] whose name the answer never mentions and most of
    whose body it lacks is dropped: refuse rather than delete it (unless it is `deletable`)."""
    text = "\n".join(lines)
    have = {x.strip() for x in lines if x.strip()}
    going: list[tuple[int, int]] = []  # definitions asked to be deleted: what is inside them goes too
    for d in _definitions(region, start, end, nested=True, defs=defs):
        d1, d2, header, name = d.start, d.end, d.line, d.name
        if any(k1 <= d1 and d2 <= k2 for k1, k2 in kept + going):
            continue
        if name in deletable:
            going.append((d1, d2))
            continue
        if name is None or re.search(rf"\b{re.escape(name)}\b", text):
            continue
        body = [region[k].strip() for k in range(header, d2) if region[k].strip()]
        if sum(1 for x in body if x in have) * 2 >= len(body):
            continue
        first = region[header].strip()
        raise PartialRewrite(
            f"the rewrite leaves out `{first}` (lines {d1 + 1}-{d2} of the region) without being asked to delete it",
            f"Your rewrite of the region leaves out `{first}` and the rest of that definition, so it would "
            "delete code that the instruction did not ask to delete. Reply with the whole region "
            "rewritten: every line of it, changed or not, in order.",
        )


# How many file lines each side of the region an echo is looked for in: the line next to it (a
# module docstring) up to the rest of the class around a method the model wrote back whole.
ECHO_LINES = 400
# Words that ask for lines to be repeated: then an answer that restates the lines around the
# region may mean it.
_REPEAT = intent.REPEATS  # steer_tui/intent.py


def asks_to_repeat(instruction: str | None, lines: list[str] | None = None, path: str | None = None) -> bool:
    """The instruction asks for lines to be copied or repeated (then an echo may be meant); with the
    file's `lines`, "make copy return a deep copy" names the method `copy` and asks for no repeat."""
    return _asks(_REPEAT, instruction, lines, path)


def strip_echoed_context(lines: list[str], start: int, end: int, new: list[str], path: str | None = None) -> list[str]:
    """`new`, the rewrite of lines[start:end], without the file lines around that region that it
    restates: a small model asked to rewrite a function often opens its answer with the line above
    it (the module docstring, the rest of its class) and closes with the line below; taken as
    written, those lines are doubled.

    Only an exact echo goes: the answer's first non-blank lines equal (whitespace stripped) the
    last non-blank lines before the region, in order, and the next answer line is the region's
    own first line; the same at the end. Not when the region itself starts (ends) with those
    lines. Callers skip it when the instruction asks for a copy (asks_to_repeat). `path` tells the
    file's language (the file's first definition, _preamble)."""
    before, region, after = lines[max(0, start - ECHO_LINES) : start], lines[start:end], lines[end : end + ECHO_LINES]
    # In a language of braces the lines around a definition are often the same text as its own ends
    # (a method's `}` and its class's `}` below it): there the indentation tells an echo of the line
    # below from the region's own last line. Python's blocks have no such closing lines.
    spec = lang.language(path)
    keep = str.rstrip if spec is not None and spec.key != "python" else str.strip
    new = _strip_preamble(_preamble(lines, start, path), region, _strip_head(before, region, new, keep))
    return _strip_head(after[::-1], region[::-1], new[::-1], keep)[::-1]


def _preamble(lines: list[str], start: int, path: str | None = None) -> list[str]:
    """The file's opening lines before its first definition (module docstring, imports), where that
    definition comes before line `start`; else empty (a definition opens the file, or none is
    above `start`). The first definition is steer_tui.lang's in a language it knows besides Python
    (the header regex knows no `interface`, `pub enum` or `final class`)."""
    spec = lang.language(path)
    if spec is not None and spec.key != "python":
        first = next(iter(lang.definitions(path, "\n".join(lines))), None)
        return lines[: first.start] if first is not None and first.start < start else []
    for i in range(start):
        if _DEF.match(lines[i]) and not lines[i][:1].isspace():
            return lines[:i]
    return []


def _strip_preamble(preamble: list[str], region: list[str], new: list[str]) -> list[str]:
    """`new` without a leading copy of the file's opening lines: asked to rewrite a class further down
    a file, a small model opens its answer with the module's docstring and imports (a second copy
    mid-file). Only where every answer line before the region's first line is one of a run of the
    preamble's non-blank lines, in order, and the region does not itself open with them."""
    context = [x.strip() for x in preamble if x.strip()]
    body = [x.strip() for x in region if x.strip()]
    shown = [(i, x.strip()) for i, x in enumerate(new) if x.strip()]
    if not context or not body:
        return new
    k = next((j for j, (_i, x) in enumerate(shown) if x == body[0]), 0)
    echo = [x for _i, x in shown[:k]]
    if not k or body[:k] == echo or not any(context[j : j + k] == echo for j in range(len(context) - k + 1)):
        return new
    lead = next(i for i, x in enumerate(region) if x.strip())
    return region[:lead] + new[shown[k][0]:]


def _strip_head(before: list[str], region: list[str], new: list[str], norm=str.strip) -> list[str]:
    """`new` without a leading echo of the non-blank lines at the end of `before` (see above); lines
    are compared as `norm` leaves them (indentation aside, unless it keeps it)."""
    context = [norm(x) for x in before if x.strip()]
    body = [norm(x) for x in region if x.strip()]
    if not context or not body:
        return new
    shown = [(i, norm(x)) for i, x in enumerate(new) if x.strip()]
    # The echo ends where the answer reaches the region's first line: k answer lines before it
    # that equal the last k context lines (at the first place the answer reaches that line).
    for k in range(1, min(len(context), len(shown) - 1) + 1):
        if shown[k][1] != body[0] or [x for _i, x in shown[:k]] != context[-k:]:
            continue
        if body[:k] == context[-k:]:
            return new
        # The blank lines between the echo and the region's first line are the region's own.
        lead = next(i for i, x in enumerate(region) if x.strip())
        return region[:lead] + new[shown[k][0]:]
    return new
