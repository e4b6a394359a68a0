"""The data the edit engine passes around: edit blocks and the streaming parser's events."""

from __future__ import annotations

from dataclasses import dataclass

# Block kinds, one per edit format the parser reads.
SEARCH_REPLACE = "search_replace"
APPLY_PATCH = "apply_patch"
UDIFF = "udiff"
REWRITE = "rewrite"


@dataclass(frozen=True, slots=True)
class EditBlock:
    """One located-and-replaced change, whatever format it came in.

    `search` and `replace` are whole lines, each ending in "\\n" (or "" for none).
    `line_hint` is a 0-based line number the response suggested (unified-diff `@@`
    headers, the region start of a rewrite); diff hints are never used to pick
    between two matches, only for feedback. `anchor` is the text after an
    apply_patch `@@` (e.g. "def foo():"), `at_eof` marks `*** End of File`,
    `create` marks `*** Add File` (the whole file's content is `replace`).
    """

    kind: str
    search: str
    replace: str
    path: str | None = None
    line_hint: int | None = None
    anchor: str | None = None
    at_eof: bool = False
    create: bool = False
    index: int | None = None  # position in the response (set by the parser)


@dataclass(frozen=True, slots=True)
class BlockStarted:
    index: int
    kind: str
    path: str | None


@dataclass(frozen=True, slots=True)
class SearchComplete:
    """The SEARCH side is final: the block can be located while REPLACE streams.

    For diff formats (apply_patch hunks, unified diffs) the old side interleaves with
    the new one, so this arrives only when the hunk ends, just before BlockComplete.
    """

    index: int
    search: str


@dataclass(frozen=True, slots=True)
class ReplaceDelta:
    """More REPLACE text: `delta` is appended to what came before (it may end mid-line).

    The concatenation of a block's deltas is a preview; BlockComplete.block is
    authoritative (it can differ when a block is recovered, see parse.py).
    """

    index: int
    delta: str


@dataclass(frozen=True, slots=True)
class BlockComplete:
    index: int
    block: EditBlock


@dataclass(frozen=True, slots=True)
class BlockDropped:
    """A started block that will never complete (malformed or cut off); `reason` says why."""

    index: int
    reason: str


Event = BlockStarted | SearchComplete | ReplaceDelta | BlockComplete | BlockDropped


@dataclass(frozen=True, slots=True)
class ParseResult:
    blocks: list[EditBlock]
    problems: list[tuple[int, str]]  # (block index, reason) for each dropped block
