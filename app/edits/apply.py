"""All-or-nothing application of a response's blocks to a text, with feedback a model can act on.

Blocks apply in order, each to the result of the ones before (as models write them).
If any block cannot be placed, nothing is applied and ApplyError says which block,
why, and which real lines of the file come closest. A block whose SEARCH is gone but
whose REPLACE is already there is "already applied" and skipped; if every block is,
the response changes nothing. The text's final newline (or its absence) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import PurePath

from app.edits.blocks import APPLY_PATCH, REWRITE, UDIFF, EditBlock
from app.edits.locate import Location, LocateError, closest_lines, find_unique, locate, split_lines
from app.edits.parse import parse

__all__ = ["ApplyError", "ApplyResult", "BlockReport", "apply_blocks", "apply_response", "select_blocks"]

_KIND_NAMES = {
    "search_replace": "SEARCH/REPLACE block",
    APPLY_PATCH: "apply_patch hunk",
    UDIFF: "diff hunk",
    REWRITE: "rewritten region",
}


@dataclass(frozen=True, slots=True)
class BlockReport:
    """What happened to one block. Lines are 0-based, end exclusive, in the text as it was
    when the block applied (after the blocks before it)."""

    index: int
    kind: str
    status: str  # applied | already_applied | unchanged | other_file
    strategy: str | None = None
    start: int | None = None
    end: int | None = None
    new_end: int | None = None


@dataclass(slots=True)
class ApplyResult:
    new_text: str
    blocks: list[BlockReport] = field(default_factory=list)

    @property
    def already_applied(self) -> list[int]:
        return [b.index for b in self.blocks if b.status == "already_applied"]

    @property
    def changes(self) -> list[BlockReport]:
        return [b for b in self.blocks if b.status == "applied"]


class ApplyError(Exception):
    """Nothing was applied. block_index is 0-based (-1: the response as a whole).

    reason: no_blocks | malformed | not_found | ambiguous | empty_search | bad_elision |
    other_file | file_exists. message is one line; feedback is the text to send back to
    the model (what failed, the closest real lines, what to do)."""

    def __init__(self, block_index: int, reason: str, message: str, feedback: str):
        self.block_index = block_index
        self.reason = reason
        self.message = message
        self.feedback = feedback
        super().__init__(message)


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], True
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def _join(lines: list[str], final_newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def _common_indent(lines: list[str]) -> str:
    ind = None
    for ln in lines:
        if not ln.strip():
            continue
        cur = ln[: len(ln) - len(ln.lstrip())]
        if ind is None:
            ind = cur
        else:
            k = 0
            while k < len(ind) and k < len(cur) and ind[k] == cur[k]:
                k += 1
            ind = ind[:k]
    return ind or ""


def _reindent_rewrite(region: list[str], new: list[str]) -> list[str]:
    """A rewritten region the model dedented (or over-indented) as a whole gets the
    region's own common indentation back."""
    want, have = _common_indent(region), _common_indent(new)
    if want == have or not any(x.strip() for x in new):
        return new
    out = []
    for ln in new:
        if not ln.strip():
            out.append("")
        else:
            out.append(want + ln[len(have) :])
    return out


def _pure_insertion(s: list[str], r: list[str]) -> bool:
    ops = SequenceMatcher(None, s, r, autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in ops) and len(r) > len(s)


def _is_applied_already(lines: list[str], s: list[str], r: list[str], found: Location | None) -> bool:
    """REPLACE is in the file where SEARCH would be: the block was applied before."""
    if r == s or sum(len(x.strip()) for x in r) < 12:
        # Too little text to tell "already there" from "a common line that happens to exist".
        return False
    if found is None:
        # SEARCH is gone; its replacement is there, exactly once.
        return find_unique(lines, r) is not None
    if _pure_insertion(s, r):
        # SEARCH is still there because the block only adds lines: applied already if the
        # added lines already surround that very place.
        there = find_unique(lines, r)
        return there is not None and there.start <= found.start and there.end >= found.end
    return False


def select_blocks(blocks: list[EditBlock], target: str | None) -> tuple[list[EditBlock], list[EditBlock]]:
    """Splits a multi-file patch into (blocks for target, blocks for other files). Only
    diff formats name files reliably; a single named file is assumed to be the target."""
    named = {b.path for b in blocks if b.kind in (APPLY_PATCH, UDIFF) and b.path}
    if len(named) <= 1 or target is None:
        return list(blocks), []
    tparts = PurePath(target).parts

    def ours(b: EditBlock) -> bool:
        if b.kind not in (APPLY_PATCH, UDIFF) or not b.path:
            return True
        parts = PurePath(b.path).parts
        return len(parts) <= len(tparts) and tuple(tparts[-len(parts) :]) == parts

    mine = [b for b in blocks if ours(b)]
    if not any(b.kind in (APPLY_PATCH, UDIFF) and b.path for b in mine):
        raise ApplyError(
            -1,
            "other_file",
            f"the response edits {', '.join(sorted(named))}, none of which is {target}",
            f"Your edits name the files {', '.join(sorted(named))}, but the file being edited is "
            f"{target}. Edit only {target}. Nothing was changed.",
        )
    return mine, [b for b in blocks if not ours(b)]


def apply_blocks(text: str, blocks: list[EditBlock]) -> ApplyResult:
    """Applies every block or none (raises ApplyError). `text` uses "\\n" newlines."""
    if not blocks:
        raise ApplyError(
            -1, "no_blocks", "the response contains no edits",
            "Your answer contains no edit blocks, so nothing was changed. Answer with the edit "
            "in the requested format.",
        )
    lines, final_nl = _split(text)
    reports: list[BlockReport] = []
    for pos, block in enumerate(blocks):
        idx = block.index if block.index is not None else pos
        s = split_lines(block.search)
        r = split_lines(block.replace)
        if block.kind == REWRITE:
            r = _reindent_rewrite(s, r)
        if s == r and not block.create:
            reports.append(BlockReport(idx, block.kind, "unchanged"))
            continue
        if block.create and any(ln.strip() for ln in lines):
            if r == lines or find_unique(lines, r) is not None and len(r) == len(lines):
                reports.append(BlockReport(idx, block.kind, "already_applied"))
                continue
            raise _error(blocks, pos, "file_exists", "the patch adds a file that already exists and is not empty",
                         "`*** Add File` creates a new file, but this file exists. Use `*** Update File` with hunks.")
        try:
            loc = _place(lines, block, s, r)
        except LocateError as e:
            if e.reason == "not_found" and _is_applied_already(lines, s, r, None):
                reports.append(BlockReport(idx, block.kind, "already_applied"))
                continue
            raise _locate_failure(blocks, pos, e, lines, s) from None
        if _is_applied_already(lines, s, r, loc):
            reports.append(BlockReport(idx, block.kind, "already_applied"))
            continue
        new = loc.render(lines, s, r)
        lines[loc.start : loc.end] = new
        reports.append(BlockReport(idx, block.kind, "applied", loc.strategy, loc.start, loc.end, loc.start + len(new)))
    return ApplyResult(_join(lines, final_nl), reports)


def _place(lines: list[str], block: EditBlock, s: list[str], r: list[str]) -> Location:
    if block.kind == REWRITE and block.line_hint is not None:
        # The caller knows where the region is: that is a fact, not the model's guess.
        h = block.line_hint
        if lines[h : h + len(s)] == s:
            return Location(h, h + len(s), "region")
    return locate(lines, s, r, anchor=block.anchor, at_eof=block.at_eof)


def apply_response(
    text: str,
    response: str,
    *,
    region_text: str | None = None,
    region_start: int | None = None,
    path: str | None = None,
) -> ApplyResult:
    """Parses a whole response and applies it all-or-nothing. `path` (the edited file)
    picks that file's hunks out of a multi-file patch."""
    result = parse(response, region_text, region_start)
    if result.problems:
        i, why = result.problems[0]
        total = len(result.blocks) + len(result.problems)
        raise ApplyError(
            i, "malformed", f"block {i + 1} is malformed: {why}",
            f"Edit {i + 1} of {total} in your answer is malformed: {why}. Nothing was changed. "
            "Resend all the edits, each one complete.",
        )
    blocks, others = select_blocks(result.blocks, path)
    applied = apply_blocks(text, blocks)
    applied.blocks.extend(BlockReport(b.index, b.kind, "other_file") for b in others)
    return applied


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
    if e.reason != "not_found":
        return _error(blocks, pos, e.reason, e.message, "")
    detail_parts = []
    missing = [ln for ln in s if ln.strip() and ln.strip() not in _stripped_set(lines)]
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


def _stripped_set(lines: list[str]) -> set[str]:
    return {ln.strip() for ln in lines}
