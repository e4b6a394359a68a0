"""The data the edit engine passes around: edit blocks and the streaming parser's events.

Plain slotted classes rather than dataclasses: importing `dataclasses` (and `inspect`)
costs more than everything else `steer apply` loads. Treat instances as immutable.
"""

from __future__ import annotations

# Block kinds, one per edit format the parser reads.
SEARCH_REPLACE = "search_replace"
APPLY_PATCH = "apply_patch"
UDIFF = "udiff"
REWRITE = "rewrite"


class _Record:
    """Value semantics (==, hash, repr) over __slots__; subclasses write their own __init__."""

    __slots__ = ()

    def eq_key(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.eq_key() == other.eq_key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.eq_key()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({inner})"


class EditBlock(_Record):
    """One change, whatever format it came in.

    `search` and `replace` are whole lines, each ending in "\\n" (or "" for none).
    `line_hint` is a 0-based line number the response suggested (unified-diff `@@`
    headers, the region start of a rewrite); diff hints are never used to pick
    between two matches. `anchor` is the text after an apply_patch `@@` (e.g.
    "def foo():"), `at_eof` marks `*** End of File`, `create` marks `*** Add File`
    (the whole file's content is `replace`). `index` is the block's position in the
    response (set by the parser).
    """

    __slots__ = ("kind", "search", "replace", "path", "line_hint", "anchor", "at_eof", "create", "index")

    def __init__(
        self,
        kind: str,
        search: str,
        replace: str,
        path: str | None = None,
        line_hint: int | None = None,
        anchor: str | None = None,
        at_eof: bool = False,
        create: bool = False,
        index: int | None = None,
    ):
        self.kind = kind
        self.search = search
        self.replace = replace
        self.path = path
        self.line_hint = line_hint
        self.anchor = anchor
        self.at_eof = at_eof
        self.create = create
        self.index = index


class BlockStarted(_Record):
    __slots__ = ("index", "kind", "path")

    def __init__(self, index: int, kind: str, path: str | None):
        self.index = index
        self.kind = kind
        self.path = path


class SearchComplete(_Record):
    """The SEARCH side is final: the block can be located while REPLACE streams.

    For diff formats (apply_patch hunks, unified diffs) the old side interleaves with
    the new one, so this arrives only when the hunk ends, just before BlockComplete.
    """

    __slots__ = ("index", "search")

    def __init__(self, index: int, search: str):
        self.index = index
        self.search = search


class ReplaceDelta(_Record):
    """More REPLACE text: `delta` is appended to what came before (it may end mid-line).

    The concatenation of a block's deltas is a preview; BlockComplete.block is
    authoritative (it can differ when a block is recovered, see parse.py).
    """

    __slots__ = ("index", "delta")

    def __init__(self, index: int, delta: str):
        self.index = index
        self.delta = delta


class BlockComplete(_Record):
    __slots__ = ("index", "block")

    def __init__(self, index: int, block: EditBlock):
        self.index = index
        self.block = block


class BlockDropped(_Record):
    """A started block that will never complete (malformed or cut off); `reason` says why."""

    __slots__ = ("index", "reason")

    def __init__(self, index: int, reason: str):
        self.index = index
        self.reason = reason


Event = BlockStarted | SearchComplete | ReplaceDelta | BlockComplete | BlockDropped


class ParseResult(_Record):
    __slots__ = ("blocks", "problems")

    def __init__(self, blocks: list[EditBlock], problems: list[tuple[int, str]]):
        self.blocks = blocks
        self.problems = problems  # (block index, reason) for each dropped block

    def __hash__(self) -> int:  # lists inside: not hashable
        raise TypeError("unhashable type: 'ParseResult'")
