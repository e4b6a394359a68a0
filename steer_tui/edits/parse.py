"""Streaming parser for model responses: SEARCH/REPLACE, apply_patch, unified diff, region rewrite.

Feed it chunks of any size; it works line by line and keeps only the current partial
line, so each feed costs O(len(chunk)). Events come out as soon as they are certain:
a marker line is only acted on once its newline arrives, and a partial REPLACE line
is shown only when its first character proves it cannot be a marker or fence line.
"""

from __future__ import annotations

import re

from steer_tui.edits.blocks import (
    APPLY_PATCH,
    REWRITE,
    SEARCH_REPLACE,
    UDIFF,
    BlockComplete,
    BlockDropped,
    BlockStarted,
    EditBlock,
    Event,
    ParseResult,
    ReplaceDelta,
    SearchComplete,
)

__all__ = ["StreamParser", "parse", "parse_response", "ParseError"]

# Marker direction is not trusted: models write `>>>>>>> SEARCH` and `<<<<<<< REPLACE` too.
_SR_START = re.compile(r"^\s*[<>]{5,9}\s*(?:SEARCH|ORIGINAL|FIND)\s*:?\s*$")
_SR_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_SR_END = re.compile(r"^\s*[<>]{5,9}\s*(?:REPLACE|UPDATED|REPLACEMENT)\s*:?\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
# Line numbers are only hints (models get them wrong, even "-0" or "--3"): any numbers will do.
_UDIFF_HUNK = re.compile(r"^@@\s*-+\s*(\d+)(?:,\s*(\d+))?\s+\+\s*(\d+)(?:,\s*(\d+))?\s*@@(.*)$")
_UDIFF_BARE_HUNK = re.compile(r"^@@\s*(?:\.\.\.\s*)?@@\s*$")
_PATH_LINE = re.compile(r"^[\s#*>`-]*(?:(?:file|path)\s*:\s*)?`?([\w.][\w./\\+-]*\.[\w]+|[\w.-]+/[\w./+-]+)`?\**\s*:?\s*$", re.I)
_DIFF_PATH = re.compile(r"^(?:---|\+\+\+)\s+(?:[ab]/)?(\S+)")

# First characters that can begin a line the parser acts on while inside a block
# (SEARCH/REPLACE markers, fences). A partial line starting otherwise is plain code.
_MARKERISH = frozenset("<>=`~")

_TEXT, _SR_SEARCH, _SR_REPLACE, _SR_BROKEN = "text", "sr_search", "sr_replace", "sr_broken"
_PATCH, _PATCH_ADD, _UDIFF_FILE, _UDIFF_HUNK_ST = "patch", "patch_add", "udiff_file", "udiff_hunk"
_RW_WAIT, _RW_BODY, _RW_DONE = "rewrite_wait", "rewrite_body", "rewrite_done"


class ParseError(ValueError):
    """A response with malformed or cut-off blocks (parse_response(strict=True))."""

    def __init__(self, problems: list[tuple[int, str]]):
        self.problems = problems
        super().__init__("; ".join(f"block {i + 1}: {r}" for i, r in problems))


def _lines_text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _fence_of(line: str) -> tuple[str, int, str] | None:
    m = _FENCE.match(line)
    if not m:
        return None
    return m.group(1)[0], len(m.group(1)), m.group(2).strip()


def _opens_block(f: tuple[str, int, str] | None) -> bool:
    """`f` (a line's _fence_of) opens a code block inside a fenced rewrite: a fence with a language."""
    return f is not None and bool(f[2]) and not f[2].startswith(f[0][0])


def _open_blocks(text: str) -> int:
    """How many code blocks `text` leaves open at its end, counted as a fenced rewrite counts
    them: a fence with a language opens one (_opens_block), a bare fence closes the last."""
    depth = 0
    for line in text.splitlines():
        f = _fence_of(line)
        if _opens_block(f):
            depth += 1
        elif f is not None and not f[2] and depth:
            depth -= 1
    return depth


def _closes(fence: tuple[str, int], line: str) -> bool:
    f = _fence_of(line)
    return f is not None and f[0] == fence[0] and f[1] >= fence[1] and not f[2]


class _Hunk:
    """A diff hunk being read: old side (context + '-') and new side (context + '+')."""

    __slots__ = ("search", "replace", "blanks", "index", "hint", "anchor", "at_eof", "path")

    def __init__(self, index: int, path: str | None, hint: int | None, anchor: str | None):
        self.search: list[str] = []
        self.replace: list[str] = []
        self.blanks = 0  # unprefixed blank lines, held: context if the hunk goes on
        self.index = index
        self.hint = hint
        self.anchor = anchor
        self.at_eof = False
        self.path = path


class StreamParser:
    """Incremental parser. `feed(chunk)` and `finish()` return the new events.

    region_text: the text of a region the model was asked to rewrite in full; with it a
    response that is plain code (fenced or not) becomes one `rewrite` block whose
    search is region_text. region_start (0-based line) pins where that region is.
    """

    def __init__(self, region_text: str | None = None, region_start: int | None = None):
        self._pieces: list[str] = []  # the current partial line, in pieces
        # The partial line: False undecided, True code (being streamed), None held (maybe a marker).
        self._partial_code: bool | None = False
        self._partial_sent = 0  # chars of the partial line already sent as ReplaceDelta
        self._cr_held = False  # the partial line's last "\r" was not sent yet
        self._state = _RW_WAIT if region_text is not None else _TEXT
        self._region = region_text
        self._region_start = region_start
        self._region_first = next((ln.strip() for ln in (region_text or "").split("\n") if ln.strip()), None)
        self._fence: tuple[str, int] | None = None  # open markdown fence outside blocks
        self._block_fence: tuple[str, int] | None = None  # fence the current block sits in
        self._index = 0  # next block index
        self._cur = -1  # index of the open block
        self._open = False  # a block has been started and not completed/dropped
        self._kind = ""
        self._path: str | None = None
        self._path_candidate: str | None = None
        self._search: list[str] = []
        self._replace: list[str] = []
        self._hunk: _Hunk | None = None
        self._file_path: str | None = None  # apply_patch / udiff current file
        self._held_minus: str | None = None  # udiff "--- " line waiting for a "+++ " line
        self._held: list[str] = []  # rewrite: lines before we know if they are prose or code
        self._held_prose = False  # the held lines were found to be prose (stays so: prose does not become code)
        self._rw_fenced = False
        # Code blocks opened (```bash) inside a fenced rewrite and not closed yet: a Markdown file's
        # own example, whose closing fence is not the answer's; and where the last one closed.
        self._rw_depth = 0
        self._rw_inner_closed: int | None = None
        self._rw_pending_first = False  # inside a rewrite fence, before its first line
        self._after_hunk = False  # the previous line ended an unfenced diff hunk
        self.blocks: list[EditBlock] = []
        self.problems: list[tuple[int, str]] = []
        self._finished = False

    # ------------------------------------------------------------------ feeding

    def feed(self, chunk: str) -> list[Event]:
        if self._finished:
            raise RuntimeError("feed() after finish()")
        out: list[Event] = []
        start = 0
        find = chunk.find
        while True:
            nl = find("\n", start)
            if nl < 0:
                break
            piece = chunk[start:nl]
            if self._pieces:
                self._pieces.append(piece)
                line = "".join(self._pieces)
                self._pieces.clear()
            else:
                line = piece
            sent = self._partial_sent
            self._partial_code = False
            self._partial_sent = 0
            self._cr_held = False
            if line.endswith("\r"):
                line = line[:-1]
            self._line(line, out, sent)
            start = nl + 1
        if start < len(chunk):
            rest = chunk[start:]
            self._pieces.append(rest)
            if self._state in (_SR_REPLACE, _RW_BODY) and self._open:
                self._stream_partial(rest, out)
        return out

    def finish(self, truncated: bool = False) -> list[Event]:
        """End of response. truncated=True (stopped, cut off): any open block is dropped."""
        if self._finished:
            return []
        # An unterminated last line ends as if its newline had come.
        out = self.feed("\n") if self._pieces else []
        self._finished = True
        if truncated:
            if self._open:
                self._drop(out, "the response was cut off before this block ended")
            self._hunk = None
            return out
        st = self._state
        if st in (_SR_SEARCH, _SR_REPLACE):
            if not self._recover_fenced(out):
                where = "no ======= line" if st == _SR_SEARCH else "no >>>>>>> REPLACE line"
                self._drop(out, f"the block never ended ({where})")
        elif st == _PATCH or st == _PATCH_ADD:
            if self._hunk is not None or st == _PATCH_ADD:
                self._drop(out, "the patch never ended (no *** End Patch line); it may be cut off")
            self._hunk = None
        elif st == _UDIFF_HUNK_ST:
            self._release_minus(out)
            self._end_hunk(out)
        elif st == _RW_WAIT:
            if self._held and _is_prose(self._held):
                # Prose and no code: never a rewrite (it would replace the region with the sentence).
                self._held = []
                self.problems.append((self._index, NO_CODE_BLOCK))
            elif self._held:
                self._start_rewrite(out, fenced=False)
                self._end_rewrite(out)
        elif st == _RW_BODY:
            if (self._rw_fenced and not self._rw_depth and self._rw_inner_closed is not None
                    and _open_blocks(self._region or "") and not any(x.strip() for x in self._replace[self._rw_inner_closed + 1:])):
                # The region leaves a block of its own open (it ends inside one, or a line of its
                # code looks like an opening fence): the fence taken for that block's close was
                # the answer's own.
                del self._replace[self._rw_inner_closed:]
            self._end_rewrite(out)  # an unclosed fence at a normal end: the code is all there
        return out

    def result(self) -> ParseResult:
        return ParseResult(list(self.blocks), list(self.problems))

    # --------------------------------------------------------- partial lines

    def _stream_partial(self, rest: str, out: list[Event]) -> None:
        # Show REPLACE text while its line is still being written, but only once the
        # line's first non-blank character proves it is not a marker or fence line.
        state = self._partial_code
        if state is None:  # held: the line may be a marker; wait for its newline
            return
        if state is False:
            if not rest.strip():
                return  # still only indentation (checked on the new piece alone: O(chunk))
            line = "".join(self._pieces)
            stripped = line.lstrip()
            if stripped[0] in _MARKERISH:
                self._partial_code = None
                return
            self._partial_code = True
            rest = line
        # A "\r" may be the first half of "\r\n": never show it until more text follows.
        if self._cr_held:
            rest = "\r" + rest
            self._cr_held = False
        if rest.endswith("\r"):
            rest = rest[:-1]
            self._cr_held = True
        if rest:
            out.append(ReplaceDelta(self._cur, rest))
            self._partial_sent += len(rest)

    def _replace_delta(self, out: list[Event], text: str) -> None:
        if text:
            out.append(ReplaceDelta(self._cur, text))

    # ------------------------------------------------------------ block life

    def _start(self, out: list[Event], kind: str, path: str | None) -> None:
        self._cur = self._index
        self._index += 1
        self._open = True
        self._kind = kind
        self._path = path
        out.append(BlockStarted(self._cur, kind, path))

    def _complete(self, out: list[Event], block: EditBlock) -> None:
        self._open = False
        self.blocks.append(block)
        out.append(BlockComplete(block.index, block))

    def _drop(self, out: list[Event], reason: str, problem: bool = True) -> None:
        """Ends the open block without completing it. problem=False: a retraction that
        says nothing bad about the response (the next block replaces it)."""
        if not self._open:
            return
        self._open = False
        if problem:
            self.problems.append((self._cur, reason))
        out.append(BlockDropped(self._cur, reason))

    # ------------------------------------------------------------ dispatch

    def _line(self, line: str, out: list[Event], sent: int) -> None:
        st = self._state
        if st == _TEXT:
            if self._after_hunk:
                self._after_hunk = False
                if line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")):
                    # A diff line right after an unprefixed one: a context line lost its
                    # leading space, and the rest of the hunk would be silently lost.
                    self._start(out, UDIFF, self._file_path)
                    self._drop(out, "a line in the diff has no ' ', '-' or '+' prefix (context lines start with a space)")
                    return
            self._text_line(line, out)
        elif st == _SR_REPLACE:
            self._sr_replace_line(line, out, sent)
        elif st == _SR_SEARCH:
            self._sr_search_line(line, out)
        elif st == _SR_BROKEN:
            if _SR_END.match(line):
                self._state = _TEXT
            elif _SR_START.match(line):
                self._state = _TEXT
                self._text_line(line, out)
        elif st == _PATCH or st == _PATCH_ADD:
            self._patch_line(line, out)
        elif st == _UDIFF_HUNK_ST or st == _UDIFF_FILE:
            self._udiff_line(line, out)
        elif st == _RW_BODY:
            self._rewrite_line(line, out, sent)
        elif st == _RW_WAIT:
            self._rewrite_wait_line(line, out)
        # _RW_DONE: the rewrite is over; the rest is prose.

    # ------------------------------------------------------------ prose

    def _text_line(self, line: str, out: list[Event]) -> None:
        stripped = line.strip()
        if not stripped:
            return
        c = stripped[0]
        if c in "<>" and _SR_START.match(line):
            self._search = []
            self._replace = []
            self._block_fence = self._fence
            self._start(out, SEARCH_REPLACE, self._path_candidate)
            self._state = _SR_SEARCH
            return
        if c in "`~":
            f = _fence_of(line)
            if f is not None:
                if self._fence is None:
                    self._fence = (f[0], f[1])
                elif f[0] == self._fence[0] and f[1] >= self._fence[1] and not f[2]:
                    self._fence = None
                return
        if c == "*":
            if stripped.startswith("*** Begin Patch"):
                self._state = _PATCH
                self._file_path = None
                self._block_fence = self._fence
                return
            if stripped.startswith(("*** Update File:", "*** Add File:")):
                # The model forgot `*** Begin Patch`; the file header is unambiguous.
                self._state = _PATCH
                self._file_path = None
                self._block_fence = self._fence
                self._patch_line(line, out)
                return
        if c == "-" and line.startswith("--- "):
            self._held_minus = line
            return
        if c == "+" and line.startswith("+++ ") and self._held_minus is not None:
            self._held_minus = None
            self._file_path = _diff_path(line)
            self._block_fence = self._fence
            self._state = _UDIFF_FILE
            return
        self._held_minus = None
        if c == "@" and (_UDIFF_HUNK.match(line) or _UDIFF_BARE_HUNK.match(line)):
            self._file_path = None
            self._block_fence = self._fence
            self._state = _UDIFF_FILE
            self._udiff_line(line, out)
            return
        m = _PATH_LINE.match(line)
        if m:
            self._path_candidate = m.group(1)

    # ------------------------------------------------------- SEARCH/REPLACE

    def _sr_search_line(self, line: str, out: list[Event]) -> None:
        c = line.lstrip()[:1]
        if c == "=" and _SR_DIVIDER.match(line):
            out.append(SearchComplete(self._cur, _lines_text(self._search)))
            self._state = _SR_REPLACE
            return
        if c in ("<", ">"):
            if _SR_END.match(line):
                self._drop(out, "the block has no ======= line between SEARCH and REPLACE")
                self._state = _TEXT
                return
            if _SR_START.match(line):
                self._drop(out, "a new SEARCH marker came before this block's ======= line")
                self._state = _TEXT
                self._text_line(line, out)
                return
        self._search.append(line)

    def _sr_replace_line(self, line: str, out: list[Event], sent: int) -> None:
        c = line.lstrip()[:1]
        if c in ("<", ">"):
            if _SR_END.match(line):
                self._finish_sr(out, self._replace)
                return
            if _SR_START.match(line):
                if not self._recover_fenced(out):
                    self._drop(out, "a new SEARCH marker came before this block's >>>>>>> REPLACE line")
                self._state = _TEXT
                self._text_line(line, out)
                return
        elif c == "=" and _SR_DIVIDER.match(line):
            self._drop(out, "the block has two ======= lines; it is ambiguous which part is SEARCH")
            self._state = _SR_BROKEN
            return
        self._replace.append(line)
        self._replace_delta(out, line[sent:] + "\n")

    def _finish_sr(self, out: list[Event], replace: list[str]) -> None:
        block = EditBlock(
            SEARCH_REPLACE, _lines_text(self._search), _lines_text(replace), path=self._path, index=self._cur
        )
        self._complete(out, block)
        self._state = _TEXT
        self._fence = self._block_fence
        # The path stays: models name the file once before several blocks for it.

    def _recover_fenced(self, out: list[Event]) -> bool:
        """A block inside a fence whose fence closed where `>>>>>>> REPLACE` should be:
        the model forgot the marker. The fence end is unambiguous, so the block ends there."""
        if self._state != _SR_REPLACE or self._block_fence is None:
            return False
        for i, line in enumerate(self._replace):
            if _closes(self._block_fence, line):
                self._finish_sr(out, self._replace[:i])
                self._fence = None  # that line closed the enclosing fence
                return True
        return False

    # ------------------------------------------------------------ apply_patch

    def _patch_line(self, line: str, out: list[Event]) -> None:
        if line.startswith("***"):
            s = line.strip()
            if s.startswith("*** End Patch"):
                self._end_file(out)
                self._state = _TEXT
                return
            if s.startswith("*** Begin Patch"):
                return
            if s.startswith("*** End of File"):
                if self._hunk is not None:
                    self._hunk.at_eof = True
                return
            for head in ("*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:"):
                if s.startswith(head):
                    self._end_file(out)
                    path = s[len(head):].strip() or None
                    self._state = _PATCH
                    if head == "*** Update File:":
                        self._file_path = path
                    elif head == "*** Add File:":
                        self._file_path = path
                        self._state = _PATCH_ADD
                        self._replace = []
                        self._start(out, APPLY_PATCH, path)
                        out.append(SearchComplete(self._cur, ""))
                    else:
                        what = "deleting" if head == "*** Delete File:" else "moving"
                        self._start(out, APPLY_PATCH, path)
                        self._drop(out, f"{what} files is not supported; only edit a file's content")
                    return
        if self._block_fence is not None and _closes(self._block_fence, line):
            # The fence closed without `*** End Patch`: the patch is over all the same.
            self._end_file(out)
            self._state = _TEXT
            self._fence = None
            return
        if self._state == _PATCH_ADD:
            text = line[1:] if line.startswith("+") else line
            self._replace.append(text)
            self._replace_delta(out, text + "\n")
            return
        if line.startswith("@@"):
            self._end_hunk(out)
            m = _UDIFF_HUNK.match(line)
            if m:  # a unified-diff header inside apply_patch: numbers are hints, text the anchor
                hint, anchor = max(int(m.group(1)) - 1, 0), m.group(5).strip()
            else:
                hint, anchor = None, line[2:].strip()
                if anchor.endswith("@@"):
                    anchor = anchor[:-2].strip()
            self._hunk = _Hunk(-1, self._file_path, hint, anchor or None)
            return
        if self._hunk is None:
            if not line.strip():
                return
            self._hunk = _Hunk(-1, self._file_path, None, None)
        self._hunk_line(line, out, strict_prefix=False)

    def _end_file(self, out: list[Event]) -> None:
        """Ends the patch's current file: its open hunk, or the content of an `*** Add File`."""
        self._end_hunk(out)
        if self._state == _PATCH_ADD:
            block = EditBlock(
                APPLY_PATCH, "", _lines_text(self._replace), path=self._file_path, create=True, index=self._cur
            )
            self._complete(out, block)

    # ------------------------------------------------------------ diff hunks

    def _hunk_line(self, line: str, out: list[Event], strict_prefix: bool) -> bool:
        """Adds a line to the open hunk. Returns False if the line does not belong to it."""
        h = self._hunk
        assert h is not None
        if not line or (not line.strip() and not line.startswith((" ", "+", "-"))):
            h.blanks += 1
            return True
        c = line[0]
        if c == "\\":  # "\ No newline at end of file": the file's final newline is kept anyway
            return True
        if c not in " +-":
            if strict_prefix:
                return False
            # apply_patch written by a model that dropped a context line's leading space.
            text = line
            c = " "
        else:
            text = line[1:]
        if not self._open:
            h.index = self._index
            self._start(out, self._hunk_kind(), h.path)
        if h.blanks:
            for _ in range(h.blanks):
                h.search.append("")
                h.replace.append("")
            self._replace_delta(out, "\n" * h.blanks)
            h.blanks = 0
        if c == " ":
            h.search.append(text)
            h.replace.append(text)
            self._replace_delta(out, text + "\n")
        elif c == "-":
            h.search.append(text)
        else:
            h.replace.append(text)
            self._replace_delta(out, text + "\n")
        return True

    def _hunk_kind(self) -> str:
        return APPLY_PATCH if self._state in (_PATCH, _PATCH_ADD) else UDIFF

    def _end_hunk(self, out: list[Event]) -> None:
        h = self._hunk
        self._hunk = None
        if h is None or not self._open:
            return
        kind = self._kind
        search = _lines_text(h.search)
        out.append(SearchComplete(self._cur, search))
        block = EditBlock(
            kind, search, _lines_text(h.replace), path=h.path, line_hint=h.hint,
            anchor=h.anchor, at_eof=h.at_eof, index=self._cur,
        )
        self._complete(out, block)

    # ------------------------------------------------------------ unified diff

    def _release_minus(self, out: list[Event]) -> None:
        held, self._held_minus = self._held_minus, None
        if held is not None and self._hunk is not None and held.strip() != "---":
            self._hunk_line(held, out, strict_prefix=True)

    def _udiff_line(self, line: str, out: list[Event]) -> None:
        if self._held_minus is not None:
            if line.startswith("+++ "):
                self._held_minus = None
                self._end_hunk(out)
                self._file_path = _diff_path(line)
                self._state = _UDIFF_FILE
                return
            self._release_minus(out)
        if line.startswith("@@"):
            m = _UDIFF_HUNK.match(line)
            if m or _UDIFF_BARE_HUNK.match(line):
                self._end_hunk(out)
                hint = max(int(m.group(1)) - 1, 0) if m else None
                anchor = m.group(5).strip() if m else None
                self._hunk = _Hunk(-1, self._file_path, hint, anchor or None)
                self._state = _UDIFF_HUNK_ST
                return
        if line.startswith("--- ") or line.rstrip() == "---":
            # Maybe the next file's header, maybe a removed line "-- ...": the next line says.
            self._held_minus = line
            return
        if line.startswith(("diff --git", "index ", "new file mode", "deleted file mode", "similarity ")):
            self._end_hunk(out)
            self._state = _UDIFF_FILE
            return
        if self._state == _UDIFF_FILE and self._hunk is None and self._file_path and line[:1] in (" ", "-", "+"):
            # A file header straight followed by hunk lines, no `@@`: models do that.
            self._hunk = _Hunk(-1, self._file_path, None, None)
            self._state = _UDIFF_HUNK_ST
        if self._block_fence is not None and _closes(self._block_fence, line):
            self._end_hunk(out)
            self._state = _TEXT
            self._fence = None
            return
        if self._state == _UDIFF_HUNK_ST and self._hunk is not None:
            # Inside a ```diff fence the fence bounds the diff, so a line without a prefix is
            # a context line whose leading space the model dropped. Unfenced, it ends the diff.
            if self._hunk_line(line, out, strict_prefix=self._block_fence is None):
                return
            self._after_hunk = True
        # Anything else ends the diff; the line is prose (or another block).
        self._end_hunk(out)
        self._state = _TEXT
        self._text_line(line, out)

    # ------------------------------------------------------------ region rewrite

    def _rewrite_wait_line(self, line: str, out: list[Event]) -> None:
        stripped = line.strip()
        if not stripped:
            if self._held:
                self._held.append(line)
            return
        if (stripped[0] in "<>" and _SR_START.match(line)) or stripped.startswith(
            ("*** Begin Patch", "*** Update File:")
        ) or _UDIFF_HUNK.match(line):
            # Edit blocks after all: parse normally (prose held so far is dropped).
            self._held = []
            self._state = _TEXT
            self._text_line(line, out)
            return
        if self._held_minus is not None and line.startswith("+++ "):
            self._held = []
            self._state = _TEXT
            self._text_line(line, out)
            return
        if line.startswith("--- "):
            self._held_minus = line
        f = _fence_of(line)
        if f is not None:
            # A fence: whatever came before was prose. The fence body is the rewrite,
            # unless its first line turns out to be an edit-block marker.
            self._held = []
            self._fence = (f[0], f[1])
            self._block_fence = self._fence
            self._rw_fenced = True
            self._state = _RW_BODY
            self._rw_pending_first = True
            return
        self._held.append(line)
        nonblank = sum(1 for h in self._held if h.strip())
        if stripped == self._region_first or line[:1] in " \t":
            self._start_rewrite(out, fenced=False)
        elif nonblank >= 3 and not self._held_prose:
            # Three lines of unindented code start streaming; three lines of prose wait for the
            # fence, or are refused at the end (no code block).
            self._held_prose = _is_prose(self._held)
            if not self._held_prose:
                self._start_rewrite(out, fenced=False)

    def _start_rewrite(self, out: list[Event], fenced: bool) -> None:
        self._rw_fenced = fenced
        self._rw_depth, self._rw_inner_closed = 0, None
        self._replace = []
        self._start(out, REWRITE, None)
        out.append(SearchComplete(self._cur, self._region or ""))
        held, self._held = self._held, []
        while held and not held[-1].strip():
            held.pop()
        self._state = _RW_BODY
        self._rw_pending_first = False
        for h in held:
            self._replace.append(h)
            self._replace_delta(out, h + "\n")

    def _rewrite_line(self, line: str, out: list[Event], sent: int) -> None:
        if self._rw_pending_first:
            # First line inside the fence: a marker means edit blocks, not a rewrite.
            stripped = line.strip()
            if (stripped[:1] in ("<", ">") and _SR_START.match(line)) or stripped.startswith(
                ("*** Begin Patch", "*** Update File:", "--- ", "@@")
            ):
                self._state = _TEXT
                self._text_line(line, out)
                return
            if not stripped:
                return  # a blank first line: wait for one that decides
            self._rw_pending_first = False
            self._start_rewrite(out, fenced=True)
        if self._rw_fenced:
            f = _fence_of(line) if self._block_fence is not None else None
            if _opens_block(f) and f[0] == self._block_fence[0]:
                self._rw_depth += 1  # a block of the file's own opens (```bash in a README)
            elif f is not None and _closes(self._block_fence, line):
                if not self._rw_depth:
                    self._fence = None
                    self._end_rewrite(out)
                    return
                self._rw_depth -= 1  # ... and closes: the answer goes on
                self._rw_inner_closed = len(self._replace)
        else:
            f = _fence_of(line)
            if f is not None and not f[2]:
                self._end_rewrite(out)  # a bare fence after unfenced code: the code is over
                return
            if f is not None and f[2]:
                # An opening fence with a language after unfenced "code": what we took
                # for code was prose. Start over with the fenced block.
                self._drop(out, "prose taken for code; the rewrite follows in a fence", problem=False)
                self._fence = (f[0], f[1])
                self._block_fence = self._fence
                self._rw_fenced = True
                self._rw_pending_first = True
                return
        self._replace.append(line)
        self._replace_delta(out, line[sent:] + "\n")

    def _end_rewrite(self, out: list[Event]) -> None:
        if not self._open:
            self._state = _RW_DONE
            return
        replace = list(self._replace)
        while replace and not replace[-1].strip():
            replace.pop()
        block = EditBlock(
            REWRITE, self._region or "", _lines_text(replace), line_hint=self._region_start, index=self._cur
        )
        self._complete(out, block)
        self._state = _RW_DONE


NO_CODE_BLOCK = "it has no code block, only prose"


def _is_prose(lines: list[str]) -> bool:
    """Unfenced lines that are a sentence, not code: they do not compile as Python and no line ends
    the way C-like code does. (Unfenced code that starts with the region's first line, or is
    indented, was taken for code as it streamed and never gets here.)"""
    text = "\n".join(lines).strip()
    if not text:
        return False
    if any(ln.rstrip().endswith((";", "{", "}")) for ln in lines):
        return False
    try:
        compile(text + "\n", "<answer>", "exec")
    except (SyntaxError, ValueError):
        return True
    return False


def _diff_path(line: str) -> str | None:
    m = _DIFF_PATH.match(line)
    if not m or m.group(1) == "/dev/null":
        return None
    return m.group(1)


def parse(text: str, region_text: str | None = None, region_start: int | None = None) -> ParseResult:
    """Parses a whole response: the same code path as streaming, fed in one chunk."""
    p = StreamParser(region_text, region_start)
    p.feed(text)
    p.finish()
    return p.result()


def parse_response(
    text: str, region_text: str | None = None, region_start: int | None = None, strict: bool = False
) -> list[EditBlock]:
    """The complete blocks of a response. strict=True raises ParseError if any block was dropped."""
    result = parse(text, region_text, region_start)
    if strict and result.problems:
        raise ParseError(result.problems)
    return result.blocks
