"""The verdict on a finished answer (the all-or-nothing applier decides) and the feedback a refusal sends back."""

from __future__ import annotations

import re
from dataclasses import dataclass

from steer_tui.edits import locate as L
from steer_tui.edits.anchor import asks_to_repeat, may_delete
from steer_tui.edits.apply import ApplyError, apply_blocks, raise_if_malformed, select_blocks
from steer_tui.edits.cosmetic import COSMETIC_REASON, asks_for_text, cosmetic
from steer_tui.edits.hollow import asks_to_stub, hollowed
from steer_tui.edits.layout import restore_layout
from steer_tui.edits.parse import NO_CODE_BLOCK
from steer_tui.edits.renamed import renamed_definitions
from steer_tui.edits.restated import copied_definitions, restated_classes, restated_definitions
from steer_tui.edits.unreachable import unreachable_added
from steer_tui import intent

NO_CHANGE = "the model made no change"  # the reason of a turn whose answers changed nothing
# Instructions that may rightly end in no change ("fix it if needed"): their no-change answer is
# "nothing to change", not a failed attempt.
_MAY_ASK_FOR_NOTHING = intent.MAY_ASK_FOR_NOTHING  # steer_tui/intent.py

NO_CODE_REASON = "the answer has no code block, only prose"
# A rewrite answer that is only a sentence (it said what to change, or that nothing needs to): the
# retry, in the same conversation, asks for the code of that change.
NO_CODE_FEEDBACK = ("Your answer has no code block, so nothing was changed. Now write the complete new region "
                    "in one fenced code block, with the change you described made.")

DEGENERATE_REASON = "the answer repeated blocks that change nothing"
DEGENERATE_FEEDBACK = (
    "Your answer repeated blocks whose SEARCH and REPLACE are identical, which change nothing, "
    "so it was stopped and nothing was changed. Reply with only the block(s) that make the "
    "requested change: SEARCH copies the current lines from the file, REPLACE has the new lines.")

LOOP_REASON = "the answer repeated the same lines over and over"


def loop_feedback(block: tuple[str, ...]) -> str:
    """The retry's instruction after an answer caught in a loop (steer_tui.edits.repeats), quoting the loop."""
    shown = block[0] if len(block[0]) <= 80 else block[0][:77] + "..."
    return (f"Your answer kept writing the same lines over and over (`{shown}` ...), so it was stopped "
            "and nothing was changed. Reply again with the edit, writing each change once.")


def asks_for_nothing(instruction: str) -> bool:
    """The instruction allows leaving the code as it is (an answer changing nothing is then an answer)."""
    return bool(_MAY_ASK_FOR_NOTHING.search(instruction or ""))


@dataclass
class Verdict:
    """What a finished answer does to the text: a proposal (`new_text`), nothing, or a refusal with feedback."""

    status: str  # proposal | nothing | refused
    reason: str = ""
    feedback: str = ""  # for a refusal: what goes back to the model ("" : the blocks' own feedback)
    already_applied: bool = False
    new_text: str = ""


def judge(parsed, text: str, lines: list[str], path: str, instruction: str | None) -> Verdict:
    """The applier's verdict on the parsed answer (`parsed`: StreamParser.result(), or None) for `text`
    (`lines`: the same text as lines); the live diff only previews what this decides."""
    blocks = list(parsed.blocks) if parsed else []
    if parsed is not None and not blocks and [why for _, why in parsed.problems] == [NO_CODE_BLOCK]:
        return Verdict("refused", NO_CODE_REASON, NO_CODE_FEEDBACK)
    try:
        if parsed is not None:
            raise_if_malformed(parsed)
        mine, _others = select_blocks(blocks, path)
        deleting, repeating = may_delete(instruction, lines, path), asks_to_repeat(instruction, lines, path)
        applied = apply_blocks(text, mine, allow_deletion=deleting, keep_echo=repeating, path=path)
    except ApplyError as exc:
        return Verdict("refused", exc.message, exc.feedback)
    if applied.new_text != text:
        return _changed(text, applied.new_text, path, instruction, deleting, repeating)
    if applied.already_applied:
        return Verdict("nothing", "already applied", already_applied=True)
    confused = _identical_but_absent(lines, mine)
    if confused is not None:
        # SEARCH == REPLACE and not in the file: the model wrote the new code twice.
        # That is a failed edit, not "nothing to change".
        i, first = confused
        return Verdict("refused", f"edit {i + 1} repeats new code in SEARCH that is not in the file", (
            f"Edit {i + 1} was not applied: its SEARCH and REPLACE are identical, and SEARCH is not in "
            f"the file (`{first.strip()}` does not occur in it). SEARCH must copy the lines as they are in "
            "the file now; REPLACE holds the new lines. Nothing was changed: resend every edit."))
    return Verdict("nothing", "the edit changes nothing")


def _changed(text: str, new: str, path: str, instruction: str | None, deleting, repeating: bool) -> Verdict:
    """The verdict on an answer that changes `text` to `new`: refused where it restates, copies,
    renames, empties or buries code, nothing where only layout changed, else a proposal."""
    nested = restated_classes(text, new, path)
    if nested:
        names = ", ".join(f"`{n.rsplit('.', 1)[-1]}`" for n in nested)
        return Verdict("refused", f"the answer writes {names} again inside the region", (
            f"Your answer writes {names} again, which puts a copy inside the region, so nothing was "
            "changed. Reply with only the region you were shown, with the change made: not the class "
            "around it, not the rest of the file."))
    twice = restated_definitions(text, new, path) if not repeating else []
    if twice:
        names = ", ".join(f"`{n}`" for n in twice)
        return Verdict("refused", f"the answer defines {names} a second time", (
            f"Your answer writes {names} again, and the file already has {'it' if len(twice) == 1 else 'them'}: "
            "the copy would define the same name twice, so nothing was changed. Reply with only the region "
            "you were shown, with the change made, and nothing after it."))
    copies = copied_definitions(text, new, path) if not repeating else []
    if copies:
        names = ", ".join(f"`{n}`" for n in copies)
        return Verdict("refused", f"the answer copies {names} from elsewhere in the file", (
            f"Your answer adds {names}, a copy of code the file already has elsewhere, so nothing was changed. "
            "Reply with only the region you were shown, with the change made, and nothing from outside it."))
    turned = renamed_definitions(text, new, path, instruction)
    if turned:
        gone = ", ".join(f"`{name}`" for name, _ in turned)
        made = ", ".join(f"`{n}`" for n in turned[0][1])
        return Verdict("refused", f"the answer replaces {gone} with {made}, which was not asked", (
            f"Your answer writes {made} in place of {gone}, so {gone} would be gone from the file, and the "
            f"instruction does not ask to remove or rename it. Reply with the region you were shown with "
            f"{gone} kept as it is, and {made} written after it."))
    dead = unreachable_added(text, new, path)
    if dead:
        lines = new.splitlines()
        (first, after), quoted = dead[0], (lambda n: lines[n - 1].strip())
        return Verdict("refused", f"the answer adds code that never runs (line {first}, after `{quoted(after)}`)", (
            f"Your answer puts `{quoted(first)}` after `{quoted(after)}`, which leaves the block before it, "
            "so the new code can never run and nothing was changed. Write the new code where it takes "
            f"effect, before `{quoted(after)}`: a check of the arguments goes at the start of the body."))
    emptied = hollowed(text, new, path) if not (asks_to_stub(instruction) or deleting is True) else []
    stubbed = [n for n in emptied if deleting and n.rsplit(".", 1)[-1] in deleting]
    if stubbed:
        # Asked to delete a definition, the small model often leaves it as `pass`: not a deletion.
        names = ", ".join(f"`{n}`" for n in stubbed)
        return Verdict("refused", f"the answer leaves {names} as an empty stub instead of deleting it", (
            f"Your answer leaves {names} in place with an empty body, but the instruction asks to delete it, "
            "so nothing was changed. Leave the whole definition out: its signature and body both go."))
    if emptied:
        names = ", ".join(f"`{n}`" for n in emptied)
        return Verdict("refused", f"the answer leaves {names} with no code (only a docstring, pass or ...)", (
            f"Your answer leaves {names} without its code: only the signature and a docstring (or pass) "
            "are left, so nothing was changed. Write each function out in full: every line of its "
            "body, with the requested change made."))
    if asks_for_text(instruction):
        return Verdict("proposal", new_text=new)
    new_text = restore_layout(path, text, new)
    if new_text == text or cosmetic(path, text, new_text):
        return Verdict("nothing", COSMETIC_REASON)
    return Verdict("proposal", new_text=new_text)


def _identical_but_absent(lines: list[str], blocks) -> tuple[int, str] | None:
    """(index, first line) of a block whose SEARCH == REPLACE and whose SEARCH is not in the file."""
    for pos, block in enumerate(blocks):
        if block.search != block.replace or not block.search.strip():
            continue
        search = L.split_lines(block.search)
        try:
            L.locate(lines, search)
        except L.LocateError:
            first = next((x for x in search if x.strip()), "")
            return (block.index if block.index is not None else pos), first
    return None


def truncated_feedback(reason: str) -> str:
    return (f"Your answer was cut off ({reason}) before it ended, so nothing was changed. "
            "Reply again with a shorter edit: only the lines that change, with a little context.")


def syntax_feedback(problem, new_text: str) -> str:
    """A proposal that breaks the file's syntax (steer_tui.edits.syntax.SyntaxProblem), refused:
    what goes back to the model, with the lines around the break as the file would read."""
    lines = new_text.split("\n")
    at = (problem.line or 1) - 1
    shown = "\n".join(lines[max(0, at - 2): at + 3])
    return (f"Your edit was not applied: {problem.describe()}. Around that line the file would read:\n"
            f"```\n{shown}\n```\nNothing was changed. Reply again with the complete edit, "
            f"keeping the code valid {problem.language} (every line you were not asked to change exactly as it is).")


def no_change_instruction(fmt: str, instruction: str, reason: str = "") -> str:
    """The retry's instruction after an answer that changed nothing (`reason`: the verdict's)."""
    if reason == COSMETIC_REASON:
        said = "Your answer changes only whitespace, comments or docstrings, so the code does the same as before."
    elif fmt == "rewrite":
        said = "Your answer is the region exactly as it was, so it changes nothing."
    else:
        said = "Your answer changes nothing: it leaves every line of the file as it is."
    return (f"{said} The request needs a change to the code: {instruction.strip()}\n"
            "Find what the request asks for and make that change now.")


def departure_point(fmt: str, answer: str) -> int | None:
    """Where a retry may depart from `answer`, an answer that changed nothing (the engine's
    `avoid`): after a rewrite's opening fence line, after the first REPLACE divider of
    SEARCH/REPLACE blocks; None for other formats (their unchanged answers were not measured)."""
    if fmt == "rewrite":
        m = re.search(r"```[^\n]*\n", answer)
    elif fmt == "search_replace":
        m = re.search(r"^=======[ \t]*\n", answer, re.M)
    else:
        return None
    return m.end() if m is not None and m.end() < len(answer) else None


def blocks_feedback(failed: list[tuple[int, str, str]]) -> str:
    """The retry's instruction after a refusal, from the failed blocks' (index, reason, feedback)."""
    parts = ["Your edit could not be applied to the file, so nothing was changed."]
    for index, reason, feedback in failed:
        parts.append(feedback or f"Block {index + 1}: {reason}.")
    parts.append("Reply again with the complete corrected edit (all blocks), copying SEARCH lines exactly from the file.")
    return "\n\n".join(parts)
