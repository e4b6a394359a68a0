"""All-or-nothing application of a response's blocks to a text, with feedback a model can act on.

Blocks apply in order, each to the result of the ones before (as models write them).
If any block cannot be placed, nothing is applied and ApplyError says which block,
why, and which real lines of the file come closest. A block whose SEARCH is gone but
whose REPLACE is already there is "already applied" and skipped; if every block is,
the response changes nothing. The text's final newline (or its absence) is kept.

Decisions worth knowing:
- An empty SEARCH creates content only in an empty file; elsewhere it needs an
  apply_patch `@@ anchor` (insert after that unique line) or `*** End of File` (append).
  Otherwise it is refused: "append somewhere" is a guess.
- A REPLACE that brings a placeholder comment (`# ... existing code ...`) which SEARCH
  does not have is refused: applying it would delete real code.
- "Already applied" needs positive evidence: the lines the block adds (>= 10 chars) are
  found, uniquely, where SEARCH would be. A pure deletion is never "already applied".
- In a response naming several files, only the blocks for the target apply (the others
  are reported as other_file); with one name or none, every block is for the target.
"""

from __future__ import annotations

import os.path
from difflib import SequenceMatcher

from steer_tui.edits.anchor import PartialRewrite, anchor_rewrite, strip_echoed_context
from steer_tui.edits.blocks import APPLY_PATCH, REWRITE, UDIFF, EditBlock, ParseResult, _Record
from steer_tui.edits.locate import (
    Location, LocateError, Views, closest_lines, find_unique, is_elision, locate, split_lines,
)
from steer_tui.edits.parse import parse

__all__ = [
    "ApplyError", "ApplyResult", "BlockReport", "apply_blocks", "apply_response", "raise_if_malformed", "select_blocks",
]

_KIND_NAMES = {
    "search_replace": "SEARCH/REPLACE block",
    APPLY_PATCH: "apply_patch hunk",
    UDIFF: "diff hunk",
    REWRITE: "rewritten region",
}


class BlockReport(_Record):
    """What happened to one block. status: applied | already_applied | unchanged | other_file.
    Lines are 0-based, end exclusive, in the text as it was when the block applied (after
    the blocks before it); new_end is where the block's new lines end."""

    __slots__ = ("index", "kind", "status", "strategy", "start", "end", "new_end")

    def __init__(self, index, kind, status, strategy=None, start=None, end=None, new_end=None):
        self.index = index
        self.kind = kind
        self.status = status
        self.strategy = strategy
        self.start = start
        self.end = end
        self.new_end = new_end


class ApplyResult:
    __slots__ = ("new_text", "blocks")

    def __init__(self, new_text: str, blocks: list[BlockReport] | None = None):
        self.new_text = new_text
        self.blocks = blocks if blocks is not None else []

    @property
    def already_applied(self) -> list[int]:
        return [b.index for b in self.blocks if b.status == "already_applied"]

    @property
    def changes(self) -> list[BlockReport]:
        return [b for b in self.blocks if b.status == "applied"]

    def __repr__(self) -> str:
        return f"ApplyResult(blocks={self.blocks!r})"


class ApplyError(Exception):
    """Nothing was applied. block_index is 0-based (-1: the response as a whole).

    reason: no_blocks | malformed | not_found | ambiguous | empty_search | bad_elision |
    uncertain | partial_rewrite | placeholder | other_file | file_exists. message is one
    line; feedback is the text to send back to the model (what failed, the closest real
    lines, what to do)."""

    def __init__(self, block_index: int, reason: str, message: str, feedback: str):
        self.block_index = block_index
        self.reason = reason
        self.message = message
        self.feedback = feedback
        super().__init__(message)


def _longest_stripped(lines: list[str]) -> tuple[int, str]:
    """(index, stripped text) of the longest line."""
    best, key = -1, ""
    for i, x in enumerate(lines):
        t = x.strip()
        if len(t) > len(key):
            best, key = i, t
    return best, key


def _is_applied_already(lines: list[str], s: list[str], r: list[str], found: Location | None) -> bool:
    """REPLACE is in the file where SEARCH would be: the block was applied before."""
    evidence, insertion = _added_evidence(s, r)
    if not evidence:
        return False
    if found is None:
        # SEARCH is gone; its replacement is there, exactly once.
        return find_unique(lines, r) is not None
    if insertion:
        # SEARCH is still there because the block only adds lines: applied already if the
        # added lines already surround that very place.
        there = find_unique(lines, r)
        return there is not None and there.start <= found.start and there.end >= found.end
    return False


def _is_placeholder(line: str) -> bool:
    """`# ... existing code ...`, `// ...`: a comment standing for code left out. A bare
    `...` is not counted: in Python it is real code (Ellipsis)."""
    t = line.strip()
    return is_elision(line) and t not in ("...", "\u2026")


def _placeholders(lines: list[str]) -> int:
    return sum(1 for x in lines if ("..." in x or "\u2026" in x) and _is_placeholder(x))


def _added_evidence(s: list[str], r: list[str]) -> tuple[bool, bool]:
    """(whether the lines the block adds are evidence enough, whether it only inserts lines),
    from one diff of SEARCH and REPLACE."""
    ops = SequenceMatcher(None, s, r, autojunk=False).get_opcodes()
    # Positive evidence only: the lines the block adds or rewrites must be there, and be
    # enough text to tell "already made" from "a common line that happens to exist". (A
    # pure deletion leaves no trace to recognise; it is never reported as already applied.)
    added = sum(len(x.strip()) for tag, _i1, _i2, j1, j2 in ops if tag in ("replace", "insert") for x in r[j1:j2])
    insertion = len(r) > len(s) and all(tag in ("equal", "insert") for tag, *_ in ops)
    return added >= 10, insertion


def _path_parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in path.replace("\\", "/").split("/") if p and p != ".")


def select_blocks(blocks: list[EditBlock], target: str | None) -> tuple[list[EditBlock], list[EditBlock]]:
    """Splits a multi-file response into (blocks for target, blocks for other files).

    With one file named (or none), every block is for the target, whatever its name: the
    caller said which file to edit. With several, a block is ours when its path is a
    suffix of the target's (src/a.py for /repo/src/a.py); a block naming no file is kept."""
    named = {b.path for b in blocks if b.path}
    if len(named) <= 1 or target is None:
        return list(blocks), []
    tparts = _path_parts(os.path.abspath(target))

    def ours(b: EditBlock) -> bool:
        if not b.path:
            return True
        parts = _path_parts(b.path)
        return 0 < len(parts) <= len(tparts) and tuple(tparts[-len(parts) :]) == parts

    mine = [b for b in blocks if ours(b)]
    if not any(b.path for b in mine):
        raise ApplyError(
            -1,
            "other_file",
            f"the response edits {', '.join(sorted(named))}, none of which is {target}",
            f"Your edits name the files {', '.join(sorted(named))}, but the file being edited is "
            f"{target}. Edit only {target}. Nothing was changed.",
        )
    return mine, [b for b in blocks if not ours(b)]


class _Buffer:
    """The text being edited, held as one string (fast exact search with str.find, cheap
    splices) or as a list of lines (for the tolerant strategies), converted on demand."""

    __slots__ = ("final_nl", "_work", "_lines", "_mark", "_views")

    def __init__(self, text: str):
        self.final_nl = text.endswith("\n") or not text
        self._work: str | None = text if self.final_nl else text + "\n"  # every line ends in "\n"
        self._lines: list[str] | None = None
        # (offset, line number) known in the current string: blocks usually come top to
        # bottom, so line numbers are counted from the previous block, not from the top.
        self._mark = (0, 0)
        self._views: Views | None = None  # normalised copies of _lines, kept across blocks

    def in_text_form(self) -> bool:
        return self._work is not None

    def work(self) -> str:
        if self._work is None:
            lines = self._lines or []
            self._work = "\n".join(lines) + "\n" if lines else ""
        return self._work

    def lines(self) -> list[str]:
        if self._lines is None:
            parts = self.work().split("\n")
            parts.pop()  # after the last "\n" (or the whole of an empty text)
            self._lines = parts
        return self._lines

    def views(self) -> Views:
        # Views made over an earlier list of lines (before a splice_chars) are stale.
        if self._views is None or self._views.lines is not self.lines():
            self._views = Views(self.lines())
        return self._views

    def find_exact(self, needle: str, limit: int = 2) -> list[int]:
        """Char offsets where needle (whole lines) occurs starting at a line start."""
        work = self.work()
        hits: list[int] = []
        pos = work.find(needle)
        while pos >= 0:
            if pos == 0 or work[pos - 1] == "\n":
                hits.append(pos)
                if len(hits) >= limit:
                    break
            pos = work.find(needle, pos + 1)
        return hits

    def unique_line(self, key: str) -> int:
        """Offset of the start of the only line that is key (give or take leading
        whitespace), or -1 if there is not exactly one."""
        work = self.work()
        # Searching for key + "\n" skips most mere substrings at C speed. (A copy of the
        # line with trailing whitespace is not seen here; the exact SEARCH still matched.)
        needle = key + "\n"
        found = -1
        pos = work.find(needle)
        while pos >= 0:
            start = work.rfind("\n", 0, pos) + 1
            if not work[start:pos].strip():
                if found >= 0:
                    return -1
                found = start
            pos = work.find(needle, pos + 1)
        return found

    def line_of(self, offset: int) -> int:
        at, line = self._mark
        if offset < at:
            at, line = 0, 0
        return line + self.work().count("\n", at, offset)

    def splice_chars(self, a: int, b: int, new: str) -> int:
        """Replaces chars [a, b) (whole lines) by new (whole lines); returns a's line number."""
        work = self.work()
        line = self.line_of(a)
        self._work = work[:a] + new + work[b:]
        self._lines = None
        self._mark = (a + len(new), line + new.count("\n"))
        return line

    def splice_lines(self, start: int, end: int, new: list[str]) -> None:
        self.views().splice(start, end, new)
        self._work = None
        self._mark = (0, 0)

    def text(self) -> str:
        work = self.work()
        return work if self.final_nl or not work else work[:-1]


def apply_blocks(text: str, blocks: list[EditBlock], *, allow_deletion: bool | frozenset[str] = False,
                 keep_echo: bool = False, path: str | None = None) -> ApplyResult:
    """Applies every block or none (raises ApplyError). `text` uses "\\n" newlines.

    A region rewrite that leaves out part of its region is anchored to the part it
    restates (steer_tui.edits.anchor) unless `allow_deletion` (steer_tui.edits.anchor.may_delete: True, or the
    names of the definitions the instruction asks to delete, which may go); one
    that restates the file lines next to its region loses that echo unless `keep_echo` (the
    instruction asks for a copy: steer_tui.edits.anchor.asks_to_repeat). `path` tells anchoring the
    file's language."""
    if not blocks:
        raise ApplyError(
            -1, "no_blocks", "the response contains no edits",
            "Your answer contains no edit blocks, so nothing was changed. Answer with the edit "
            "in the requested format.",
        )
    buf = _Buffer(text)
    reports = [_apply_one(buf, blocks, pos, allow_deletion, keep_echo, path) for pos in range(len(blocks))]
    return ApplyResult(buf.text(), reports)


def _apply_one(buf: _Buffer, blocks: list[EditBlock], pos: int, allow_deletion: bool | frozenset[str],
               keep_echo: bool, path: str | None = None) -> BlockReport:
    """Apply `blocks[pos]` to `buf` (raises ApplyError), and say how."""
    block = blocks[pos]
    idx = block.index if block.index is not None else pos
    s = split_lines(block.search)
    r = split_lines(block.replace)
    narrow = None
    if block.kind == REWRITE:
        narrow, s, r = _rewrite_lines(buf, blocks, pos, s, r, allow_deletion, keep_echo, path)
    if s == r and not block.create:
        return BlockReport(idx, block.kind, "unchanged")
    lazy = _placeholders(r) - _placeholders(s)
    if lazy > 0:
        line = next(x for x in r if _is_placeholder(x)).strip()
        raise _error(
            blocks, pos, "placeholder",
            f"REPLACE contains the placeholder `{line}` where SEARCH has no such line",
            "Applying it would replace real code with that comment. Write the new code out in "
            "full, or put the same `...` line in SEARCH too to leave the code between as it is.",
        )
    if (buf.in_text_form() and block.search.endswith("\n") and block.replace[-1:] in ("\n", "")
            and block.kind != REWRITE and not block.create):
        done = _apply_exact(buf, block, idx, s, r)
        if done is not None:
            return done
    lines = buf.lines()
    if block.create and any(ln.strip() for ln in lines):
        if r == lines:
            return BlockReport(idx, block.kind, "already_applied")
        raise _error(blocks, pos, "file_exists", "the patch adds a file that already exists and is not empty",
                     "`*** Add File` creates a new file, but this file exists. Use `*** Update File` with hunks.")
    try:
        if narrow is not None:
            loc = _narrowed(_place(lines, block, narrow[2], r, buf.views()), narrow[0], narrow[1])
        else:
            loc = _place(lines, block, s, r, buf.views())
    except LocateError as e:
        if e.reason == "not_found" and _is_applied_already(lines, s, r, None):
            return BlockReport(idx, block.kind, "already_applied")
        raise _locate_failure(blocks, pos, e, lines, s) from None
    if _is_applied_already(lines, s, r, loc):
        return BlockReport(idx, block.kind, "already_applied")
    try:
        new = loc.render(lines, s, r)
    except LocateError as e:
        raise _locate_failure(blocks, pos, e, lines, s) from None
    buf.splice_lines(loc.start, loc.end, new)
    return BlockReport(idx, block.kind, "applied", loc.strategy, loc.start, loc.end, loc.start + len(new))


def _rewrite_lines(buf: _Buffer, blocks: list[EditBlock], pos: int, s: list[str], r: list[str],
                   allow_deletion: bool | frozenset[str], keep_echo: bool, path: str | None = None):
    """(narrow, SEARCH lines, REPLACE lines) of a region rewrite: its echo of the lines around the
    region dropped, and anchored to the part of the region it restates (narrow: (a, b, the whole
    region's lines) where that is not all of it, else None)."""
    block = blocks[pos]
    h = block.line_hint
    context = None
    if h is not None:
        lines = buf.lines()
        if lines[h : h + len(s)] == s:
            context = (lines, h)
            if not keep_echo:
                r = strip_echoed_context(lines, h, h + len(s), r, path)
    if not s and context is not None and any(ln.strip() for ln in context[0]):
        # An empty region in a file: an insertion point (steer_tui.insertion), the answer its new code.
        from steer_tui.insertion import fit

        return None, s, fit(context[0], h, r, path)
    try:
        a, b, r, _kept = anchor_rewrite(s, r, allow_deletion, path=path, context=context)
    except PartialRewrite as e:
        raise _error(blocks, pos, "partial_rewrite", e.message, e.feedback) from None
    if (a, b) != (0, len(s)):
        return (a, b, s), s[a:b], r
    return None, s, r


def _apply_exact(buf: _Buffer, block: EditBlock, idx: int, s: list[str], r: list[str]) -> BlockReport | None:
    """Fast path: the SEARCH text verbatim, exactly once (the exact strategy, on the string;
    whole lines only: a needle without its final "\\n" could match a line's prefix). None where
    it does not apply: the slow path places the block.

    One scan: the SEARCH's longest line must be the only line like it in the whole text (then
    there is no second occurrence, nor a copy at another indentation), and SEARCH must sit exactly
    around it. If its longest line occurs elsewhere too, the slow path checks for a copy of the
    block at another indentation (locate's twin check)."""
    j, key = _longest_stripped(s)
    at = buf.unique_line(key) if key else -1
    a = at - sum(len(x) + 1 for x in s[:j]) if at >= 0 else -1
    b = a + len(block.search)
    if not (a >= 0 and (a == 0 or buf.work()[a - 1] == "\n") and buf.work()[a:b] == block.search):
        return None
    if len(r) > len(s) and _added_evidence(s, r) == (True, True):
        there = buf.find_exact(block.replace)
        if len(there) == 1 and there[0] <= a and there[0] + len(block.replace) >= b:
            return BlockReport(idx, block.kind, "already_applied")
    start = buf.splice_chars(a, b, block.replace)
    return BlockReport(idx, block.kind, "applied", "exact", start, start + len(s), start + len(r))


def _place(lines: list[str], block: EditBlock, s: list[str], r: list[str], views: Views | None = None) -> Location:
    if block.kind == REWRITE and block.line_hint is not None:
        # The caller knows where the region is: that is a fact, not the model's guess.
        h = block.line_hint
        if lines[h : h + len(s)] == s:
            return Location(h, h + len(s), "region")
    return locate(lines, s, r, anchor=block.anchor, at_eof=block.at_eof, views=views)


def _narrowed(loc: Location, a: int, b: int) -> Location:
    """The located region's lines [a, b): where an anchored rewrite applies."""
    if loc.mapping is not None or loc.pieces or loc.insert_only:
        raise LocateError("not_found", "the region is not in the file as it was given")
    loc.start, loc.end = loc.start + a, loc.start + b
    return loc


def apply_response(
    text: str,
    response: str,
    *,
    region_text: str | None = None,
    region_start: int | None = None,
    path: str | None = None,
    allow_deletion: bool | frozenset[str] = False,
    keep_echo: bool = False,
) -> ApplyResult:
    """Parses a whole response and applies it all-or-nothing. `path` (the edited file)
    picks that file's hunks out of a multi-file patch; `allow_deletion`, `keep_echo`: see apply_blocks."""
    result = parse(response, region_text, region_start)
    raise_if_malformed(result)
    blocks, others = select_blocks(result.blocks, path)
    applied = apply_blocks(text, blocks, allow_deletion=allow_deletion, keep_echo=keep_echo, path=path)
    applied.blocks.extend(BlockReport(b.index, b.kind, "other_file") for b in others)
    return applied


def raise_if_malformed(result: ParseResult) -> None:
    """A response with a dropped (malformed or cut-off) block is refused as a whole:
    ApplyError "malformed" about the first one."""
    if result.problems:
        i, why = result.problems[0]
        total = len(result.blocks) + len(result.problems)
        raise ApplyError(
            i, "malformed", f"block {i + 1} is malformed: {why}",
            f"Edit {i + 1} of {total} in your answer is malformed: {why}. Nothing was changed. "
            "Resend all the edits, each one complete.",
        )


# ---------------------------------------------------------------- feedback


def _numbered(lines: list[str], start: int, end: int) -> str:
    width = len(str(end))
    return "\n".join(f"{i + 1:>{width}} | {lines[i]}" for i in range(start, end))


def _error(blocks: list[EditBlock], pos: int, reason: str, message: str, detail: str) -> ApplyError:
    b = blocks[pos]
    idx = b.index if b.index is not None else pos
    name = _KIND_NAMES.get(b.kind, "edit")
    head = f"{name} {idx + 1} of {len(blocks)}"
    tail = "Nothing was changed (a response applies all or nothing): resend every edit, with this one fixed."
    return ApplyError(idx, reason, f"{head}: {message}", f"{head} was not applied: {message}.\n{detail}\n{tail}")


def _locate_failure(blocks: list[EditBlock], pos: int, e: LocateError, lines: list[str], s: list[str]) -> ApplyError:
    if e.reason == "ambiguous":
        shown = []
        for st in e.candidates[:3]:
            shown.append(_numbered(lines, st, min(len(lines), st + max(1, min(len(s), 4)))))
        detail = "It matches here:\n" + "\n...\n".join(shown) + (
            "\nInclude more of the surrounding lines in SEARCH so that it matches only the place you mean."
        )
        return _error(blocks, pos, "ambiguous", e.message, detail)
    if e.reason == "uncertain":
        return _error(blocks, pos, e.reason, e.message,
                      "Quote the lines exactly as they are in the file, blank lines included, so that it is "
                      "certain which lines the edit changes.")
    if e.reason != "not_found":
        return _error(blocks, pos, e.reason, e.message, "")
    detail_parts = []
    in_file = {ln.strip() for ln in lines}
    missing = [ln for ln in s if ln.strip() and ln.strip() not in in_file]
    if missing:
        detail_parts.append(f"This SEARCH line is not in the file: `{missing[0].strip()}`")
    near = closest_lines(lines, s, context=1)
    if near is not None and near[2] >= 0.4:
        st, en, _ = near
        detail_parts.append(f"The closest lines in the file are lines {st + 1}-{en}:\n{_numbered(lines, st, en)}")
        detail_parts.append("Copy SEARCH from the file exactly (same lines, spelling and indentation).")
    else:
        detail_parts.append("Nothing in the file resembles SEARCH; quote lines that exist in the file.")
    return _error(blocks, pos, "not_found", e.message, "\n".join(detail_parts))
