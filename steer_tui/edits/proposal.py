"""One streamed answer turned into located blocks on the LiveDiff the view draws, delta by delta.

Per delta the work is O(delta): the parser's feed and one hunk of the live diff. A block is
located once, when its SEARCH part is complete (the view marks the target while REPLACE
streams), and placed for good when the block completes. The verdict on the whole answer is
steer_tui.edits.judge's; `judge()` here brings the live diff in line with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from steer_tui.edits import locate as L
from steer_tui.edits.anchor import anchor_rewrite, asks_to_repeat, may_delete, strip_echoed_context
from steer_tui.edits.judge import Verdict, blocks_feedback, judge
from steer_tui.edits.lines import document_lines, join_lines
from steer_tui.edits.livediff import LiveDiff
from steer_tui.edits.blocks import BlockComplete, BlockDropped, BlockStarted, ReplaceDelta, SearchComplete
from steer_tui.edits.parse import StreamParser
from steer_tui.edits.rebase import diff_hunks


@dataclass
class BlockState:
    """One block of the model's answer, as it is tracked."""

    index: int
    kind: str = ""
    status: str = "streaming"  # streaming | located | complete | failed | already_applied | unchanged | partial | dropped
    start: int | None = None  # located old line range (0-based, end exclusive)
    end: int | None = None
    reason: str = ""
    feedback: str = ""
    search: str = ""
    hunk_key: Any = None


class ProposalBuilder:
    """Feeds one answer's deltas through a StreamParser and keeps `live` showing its blocks.

    `region`: the 0-based end-exclusive line range a rewrite restates (None: edits anywhere);
    `instruction` decides whether a rewrite may delete code; `path` names the open file in feedback.
    """

    def __init__(self, live: LiveDiff, region: tuple[int, int] | None = None, instruction: str | None = None,
                 path: str = ""):
        self.live = live
        self.region = region
        self.instruction = instruction
        self.path = path
        self.blocks: dict[int, BlockState] = {}
        self.noop_blocks = 0  # complete blocks whose SEARCH == REPLACE (a small model's loop)
        self._chunks: list[str] = []
        self._parser = self._new_parser()

    def _new_parser(self) -> StreamParser:
        if self.region is None:
            return StreamParser()
        return StreamParser(region_text(self.live.lines, self.region), self.region[0])

    @property
    def raw_text(self) -> str:
        """The answer so far (for the raw view)."""
        if len(self._chunks) > 1:
            self._chunks[:] = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    # ------------------------------------------------------------ streaming

    def feed(self, delta: str) -> None:
        self._chunks.append(delta)
        for ev in self._parser.feed(delta):
            self._on_parse_event(ev)

    def finish(self) -> None:
        """The answer ended: the parser's last events, and blocks that never completed go."""
        for ev in self._parser.finish():
            self._on_parse_event(ev)
        self.drop_partial()

    def truncate(self) -> None:
        """The answer was cut off: a partial answer never applies."""
        self._parser.finish(truncated=True)
        self.drop_partial()
        self.live.clear()

    def restart(self) -> None:
        """The answer starts over (a steered successor replaces it): an empty proposal, a new parser."""
        self.drop_partial()
        self.live.clear()
        self._chunks = []
        self.blocks = {}
        self._parser = self._new_parser()

    def drop_partial(self, keep_closed: bool = False) -> None:
        """Drop the blocks that never completed (SEARCH located, REPLACE half-written).

        keep_closed (Esc, a lost connection): a half-written region rewrite keeps the changes
        the streaming alignment has already closed (anchored by matching lines on both
        sides); only its open piece goes. A half-written SEARCH/REPLACE block goes whole.
        """
        for b in self.blocks.values():
            if b.status == "located":
                kept = []
                try:
                    if keep_closed:
                        kept = self.live.settle(b.hunk_key)
                    else:
                        self.live.remove(b.hunk_key)
                except KeyError:
                    pass
                b.status = "partial" if kept else "dropped"

    def _on_parse_event(self, ev) -> None:
        match ev:
            case ReplaceDelta():
                b = self.blocks.get(ev.index)
                if b is not None and b.status == "located":
                    self.live.append(b.hunk_key, ev.delta)
            case BlockStarted():
                self.blocks[ev.index] = BlockState(ev.index, ev.kind)
            case SearchComplete():
                self._on_search(ev.index, ev.search)
            case BlockComplete():
                self._on_block(ev.index, ev.block)
            case BlockDropped():
                b = self.blocks.get(ev.index)
                if b is not None:
                    if b.status == "located":
                        self.live.remove(b.hunk_key)
                    b.status, b.reason = "failed", ev.reason
                    b.feedback = f"Block {ev.index + 1} was malformed: {ev.reason}."

    def _on_search(self, index: int, search: str) -> None:
        """SEARCH is final: locate it now so the view marks the target while REPLACE streams."""
        b = self.blocks.setdefault(index, BlockState(index))
        b.search = search
        where = self._locate_block(b, search, None)
        if where is not None:
            self._place(b, where[0], where[1], where[2])

    def _place(self, b: BlockState, start: int, end: int, transform=None) -> bool:
        key = ("b", b.index, start, end)
        try:
            # A rewrite restates its whole region: align it as it streams (unchanged lines stay context).
            self.live.add(key, start, end, transform, align=b.kind == "rewrite")
        except ValueError as exc:
            b.status, b.reason = "failed", f"it changes the same lines as another block ({exc})"
            b.feedback = f"Block {b.index + 1} changes the same lines as another block; merge them into one block."
            return False
        b.status, b.start, b.end, b.hunk_key = "located", start, end, key
        return True

    def _locate_block(self, b: BlockState, search: str, block) -> tuple | None:
        """(start, end, transform, location) for the block, or None with b marked failed."""
        if b.kind == "rewrite" and self.region is not None:
            start, end = self.region
            return start, end, None, None
        lines = self.live.lines
        try:
            if block is None:
                loc = L.locate(lines, L.split_lines(search))
            else:
                loc = L.locate(lines, L.split_lines(block.search), L.split_lines(block.replace),
                               anchor=block.anchor, at_eof=block.at_eof)
        except L.LocateError as exc:
            b.status = "failed"
            b.reason = exc.message or exc.reason
            # While streaming, no fuzzy "closest lines" search: the applier writes the feedback
            # at the end of the answer, and this runs between deltas.
            closest = exc.closest or ("" if block is None else _closest(lines, block.search))
            b.feedback = _feedback_for(b.index, b.reason, closest)
            return None
        return loc.start, loc.end, _adapter(loc), loc

    def _on_block(self, index: int, block) -> None:
        """The block is complete: place it for good with the locator's full answer."""
        b = self.blocks.setdefault(index, BlockState(index, getattr(block, "kind", "")))
        b.kind = b.kind or block.kind
        if block.search == block.replace:
            self.noop_blocks += 1
        streaming_key = b.hunk_key if b.status == "located" else None
        if getattr(block, "create", False):
            if streaming_key is not None:
                self.live.remove(streaming_key)
            b.status, b.reason = "failed", "it creates a new file; steer edits only the open file"
            b.feedback = f"Block {index + 1} creates a file. Edit only {self.path}."
            return
        b.status, b.reason, b.feedback = "streaming", "", ""
        found = self._locate_block(b, block.search, block)
        if found is None:
            if streaming_key is not None:
                self.live.remove(streaming_key)
            self._check_already_applied(b, block)
            return
        start, end, _, loc = found
        search, replace = L.split_lines(block.search), L.split_lines(block.replace)
        try:
            new = self._rewrite_lines(start, end, replace) if loc is None else loc.render(self.live.lines, search, replace)
        except (L.LocateError, ValueError) as exc:
            # A misquoted line the block changes, or a rewrite that drops code it cannot be
            # anchored around: refused, with the reason the applier gives.
            if streaming_key is not None:
                self.live.remove(streaming_key)
            b.status, b.reason = "failed", getattr(exc, "message", str(exc))
            b.feedback = f"Block {index + 1}: {getattr(exc, 'feedback', '') or b.reason + '.'}"
            return
        if streaming_key is not None and (b.start, b.end) != (start, end):
            # The full block located elsewhere than its SEARCH alone: move the hunk.
            self.live.remove(streaming_key)
            streaming_key = None
        if streaming_key is None:
            if not self._place(b, start, end):
                return
            streaming_key = b.hunk_key
        made = self.live.finish(streaming_key, "".join(x + "\n" for x in new))
        b.status = "complete" if made else "unchanged"

    def _rewrite_lines(self, start: int, end: int, replace: list[str]) -> list[str]:
        """The region's new lines as accept will write them: a rewrite that restates only part
        of the region is anchored to that part (steer_tui.edits.anchor); the rest stays. Raises
        PartialRewrite (a ValueError) when it drops code it cannot be anchored around."""
        region = self.live.lines[start:end]
        if not asks_to_repeat(self.instruction, self.live.lines, self.path):
            replace = strip_echoed_context(self.live.lines, start, end, replace, self.path)
        a, b, lines, _kept = anchor_rewrite(region, replace, may_delete(self.instruction, self.live.lines, self.path),
                                            path=self.path, context=(self.live.lines, start))
        return region[:a] + L.Location(a, b, "region").render(region, region[a:b], lines) + region[b:]

    def _check_already_applied(self, b: BlockState, block) -> None:
        """Not found as written: if the replacement is already in the file, the edit was made."""
        replace = L.split_lines(block.replace)
        if not any(x.strip() for x in replace) or block.replace == block.search:
            return
        try:
            L.locate(self.live.lines, replace)
        except L.LocateError:
            return
        b.status, b.reason = "already_applied", "already applied"

    # ------------------------------------------------------------ the end of the answer

    def judge(self, text: str) -> Verdict:
        """The applier's verdict on the whole answer for `text` (the live diff's original text).

        The live diff was built block by block; the applier applies the blocks in order. If both
        agree (the usual case) the live diff stays as drawn; otherwise it is rebuilt once from the
        applier's result, so what is accepted is what `steer apply` does. Anything but a proposal
        leaves the live diff empty (an answer applies all or nothing).
        """
        verdict = judge(self._parser.result(), text, self.live.lines, self.path, self.instruction)
        if verdict.status != "proposal":
            self.live.clear()
            return verdict
        if join_lines(self.live.new_lines(), document_lines(text)[1]) != verdict.new_text:
            self.live.reset(self.live.lines, diff_hunks(self.live.lines, document_lines(verdict.new_text)[0]))
        return verdict

    def feedback(self) -> str:
        """What a refusal of this answer tells the model: every failed block's reason."""
        return blocks_feedback([(b.index, b.reason, b.feedback) for b in self.blocks.values() if b.status == "failed"])


def region_text(lines: list[str], region: tuple[int, int]) -> str:
    """The region's lines as the parser compares them ("" for an empty region: a new file)."""
    body = lines[region[0] : region[1]]
    return "\n".join(body) + "\n" if body else ""


_TOLERANT = ("whitespace", "unicode", "fuzzy", "blank_lines", "indent")


def _adapter(loc) -> Callable[[str], str] | None:
    """How streamed REPLACE lines are shown before the block completes: the locator's
    indentation shift (the final lines come from Location.render at BlockComplete)."""
    add, remove = getattr(loc, "indent_add", ""), getattr(loc, "indent_remove", "")
    rstrip = getattr(loc, "strategy", "exact") in _TOLERANT
    if not (add or remove or rstrip):
        return None

    def adapt(line: str) -> str:
        if rstrip:
            line = line.rstrip()
        if add and line.strip():
            return add + line
        if remove and line.startswith(remove):
            return line[len(remove):]
        return line

    return adapt


def _closest(lines: list[str], search: str) -> str:
    """The file lines most like SEARCH, with a little context, for refusal feedback."""
    try:
        got = L.closest_lines(lines, L.split_lines(search), context=2)
    except Exception:
        return ""
    if not got:
        return ""
    start, end, _ = got
    return "\n".join(lines[start:end])


def _feedback_for(index: int, reason: str, closest: str) -> str:
    text = f"Block {index + 1}: {reason}."
    if closest:
        text += f" The closest lines in the file are:\n```\n{closest}\n```"
    return text
