"""Which module or class constant an instruction names ("set MAX_RETRIES to 5", "the page size"), and its lines.

A constant is any name bound outside a function at the top of a module or a class body (steer_tui.lang's
outline: constants, variables and class members, in every language it knows). Asked to change
one, the region is its own statement, not the file: rewriting a 200-line module to change one line was
cut off at the answer cap and refused. A name bound in several places (`DEFAULT_NAME` in two classes)
counts only where the instruction names the place too ("in Store", "Store.DEFAULT_NAME"); otherwise it
names nothing, so a region is never a guess between two statements.
"""

from __future__ import annotations

import re
from functools import lru_cache

from steer_tui import lang

_KINDS = frozenset({"constant", "variable", "member"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPOKEN_MAX = 4  # words of a name said in words ("the default page size" -> DEFAULT_PAGE_SIZE)


@lru_cache(maxsize=2)  # a turn asks for its region twice (Session.scoped, then its view): one parse
def constants(path: str | None, text: str) -> dict[str, list[tuple[int, int, str]]]:
    """Name -> every (start, end, parent class or "") where a constant of that name is bound, its
    comment lines directly above included; empty for a language with no outline of constants. No
    `path` is Python, as for prompts.definitions. The same dict for the same text: not to be changed."""
    try:
        syms, _ = lang.outline(path if path is not None else "module.py", text)
    except (ValueError, UnicodeError):
        return {}
    lines = text.splitlines()
    out: dict[str, list[tuple[int, int, str]]] = {}
    for s in syms:
        if s.kind in _KINDS:
            out.setdefault(s.name, []).append((_with_comment(lines, s.line), s.end, s.parent))
    return out


def _with_comment(lines: list[str], start: int) -> int:
    """`start`, or the first of the comment lines directly above it (at its indentation)."""
    indent = len(lines[start]) - len(lines[start].lstrip()) if start < len(lines) else 0
    while start > 0:
        above = lines[start - 1]
        if not above.strip().startswith(("#", "//")) or len(above) - len(above.lstrip()) != indent:
            break
        start -= 1
    return start


def named(instruction: str, names: list[str], table: dict[str, list[tuple[int, int, str]]]) -> list[tuple[int, int]]:
    """The spans of the constants among `names` (words of the instruction: prompts._named's code-like
    tiers, or what `spoken` found) that it names without doubt. Empty when none is."""
    words = set(_WORD.findall(instruction))
    spans = []
    for name in dict.fromkeys(names):
        places = table.get(name, [])
        if len(places) > 1:  # bound in several classes: only the one the instruction names counts
            places = [p for p in places if p[2] and p[2] in words]
        if len(places) == 1:
            spans.append(places[0][:2])
    return spans


def spoken(instruction: str, table: dict[str, list[tuple[int, int, str]]]) -> list[str]:
    """Constants said in words: consecutive words of the instruction that make up a capitalised
    constant's whole name, case and underscores aside ("change the page size" -> PAGE_SIZE, "the
    default pool size" -> DEFAULT_POOLSIZE); the longest run wins where runs overlap."""
    words = [w.lower() for w in _WORD.findall(instruction)]
    # Only names in capitals: a lower-case one said in words is as likely plain speech ("make the
    # pool block" is not the member `_pool_block`).
    by_key = {name.lower().replace("_", ""): name for name in table if name.isupper()}
    found: list[str] = []
    i = 0
    while i < len(words):
        for n in range(min(_SPOKEN_MAX, len(words) - i), 1, -1):  # a single word is too loose a match
            name = by_key.get("".join(words[i:i + n]))
            if name is not None:
                found.append(name)
                i += n
                break
        else:
            i += 1
    return found


def paragraph(table: dict[str, list[tuple[int, int, str]]], span: tuple[int, int]) -> tuple[int, int]:
    """`span` widened by the constants bound right before and after it, with no blank line between
    (the block of constants it stands in): what a deletion of it is asked of, whole statements only."""
    spans = sorted((a, b) for places in table.values() for a, b, _ in places)
    start, end = span
    grew = True
    while grew:
        grew = False
        for a, b in spans:
            if b == start or a == end:
                start, end, grew = min(a, start), max(b, end), True
    return start, end
