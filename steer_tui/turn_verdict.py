"""The verdict on a turn's finished answer: the applier's (steer_tui.edits.judge), then the answer it
builds on, a class's docstring asked alone, the syntax check, new parameters never read, and code
that would fail when it runs (names nothing defines, log messages without their placeholders, a
project module's member that is not there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.edits.class_doc import asked_class, only_the_docstring
from steer_tui.edits.lines import document_lines
from steer_tui.edits.params import unused_new_parameters
from steer_tui.edits.syntax import is_python
from steer_tui.events import NoticeCode, TurnResult
from steer_tui.edits.judge import syntax_feedback

if TYPE_CHECKING:
    from steer_tui.port import SessionPort


class TurnVerdict:
    """Judges the answer of one turn's attempt (`turn.answer`) and sets what a refusal tells the
    model (`turn.feedback`, `turn.unused_params`) and whether a merge clashed (`turn.base_clash`)."""

    def __init__(self, turn):
        self.turn = turn  # steer_tui.turn.Turn
        self.session: SessionPort = turn.session

    def judge(self) -> TurnResult:
        """The answer is complete: the applier's verdict, then the syntax check."""
        s, t = self.session, self.turn
        version = s.live.version
        verdict = t.answer.judge(s.document.text)
        if verdict.status != "proposal":
            t.feedback = verdict.feedback
            s.proposal_changed()
            return TurnResult(verdict.status, verdict.reason, already_applied=verdict.already_applied)
        new_text = verdict.new_text
        if t.base is not None:
            new_text = self.with_base(new_text)
        asked = self.class_doc(new_text)
        if asked is None:
            s.proposal_changed()
            return TurnResult("nothing", "the answer gives the class no docstring of its own")
        new_text = asked
        if s.live.version != version:  # the applier and the live diff disagreed: rebuilt from the applier
            s.proposal_changed()
        return (self.syntax_verdict(new_text) or self.unused_verdict(new_text) or self.runtime_verdict(new_text)
                or TurnResult("proposal"))

    def class_doc(self, new_text: str) -> str | None:
        """Where the request asks for a class's docstring alone (steer_tui.edits.class_doc), the answer's
        text with that docstring alone, the live diff redrawn to match (None, and the live diff
        cleared, where it gives the class none of its own); else `new_text`."""
        s, t = self.session, self.turn
        name = asked_class(t.asking, s.document.text) if is_python(s.path) else None
        if name is None:
            return new_text
        kept = only_the_docstring(t.base if t.base is not None else s.document.text, new_text, name)
        if kept is None:
            s.live.clear()
            return None
        if kept != new_text:
            self.redraw(document_lines(kept)[0])
            s.notice("info", NoticeCode.CLASS_DOC_ONLY,
                     f"kept only the docstring of `{name}`: the answer's other changes were not asked for")
        return kept

    def with_base(self, new_text: str) -> str:
        """The answer's text with the changes of the answer it builds on (`base`) that it left out
        (rebase.with_earlier; rebase.merge_apart for a request asked again as first asked, which
        never saw them), the live diff redrawn to match."""
        from steer_tui.edits.lines import join_lines
        from steer_tui.edits.rebase import merge_apart, with_earlier

        s, t = self.session, self.turn
        old, ending = document_lines(s.document.text)
        earlier, later = document_lines(t.base)[0], document_lines(new_text)[0]
        # Asked again as first asked (turn.again), the answer never saw `base`: both are kept, or
        # where they clash, it is asked of `base`'s code instead.
        both = merge_apart(old, earlier, later) if t.again is not None else None
        t.base_clash = t.again is not None and (both is None or both == earlier)
        merged = both if both is not None else with_earlier(old, earlier, later)
        text = join_lines(merged, ending)
        if text != new_text:
            self.redraw(merged)
        return text

    def redraw(self, lines: list[str]) -> None:
        """The live diff shows the file becoming `lines` (the proposal as judged, not as streamed)."""
        from steer_tui.edits.rebase import diff_hunks

        live = self.session.live
        live.reset(live.lines, diff_hunks(live.lines, lines))

    def unused_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal gives a Python function a parameter its body never reads: in
        `edit()`, while a retry is left, a failed attempt whose feedback names it; else a warning
        on a proposal that stands. None when there is none."""
        s = self.session
        if not is_python(s.path):
            return None
        unused = unused_new_parameters(s.document.text, new_text)
        if not unused:
            return None
        said = ", ".join(f"`{p}` of `{f.rsplit('.', 1)[-1]}`" for f, p in unused)
        what = f"the new parameter{'s' if len(unused) > 1 else ''} {said} {'are' if len(unused) > 1 else 'is'} never used"
        if s.refuse_broken_syntax and self.turn.can_retry:
            self.turn.unused_params = True
            return self.refuse_proposal(what, (
                f"Your edit was not applied: {what} in the function's body, so passing "
                f"{'them' if len(unused) > 1 else 'it'} changes nothing. Reply again with the complete "
                "edit, with the function's code using the new parameter where the request needs it."))
        s.notice("warning", NoticeCode.UNUSED, f"{what}; review it before accepting")
        return None

    def runtime_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal would fail when its code runs (Python, steer_tui.edits.runtime: a
        name nothing defines, not even the imports that will be added with it; a log call without
        the placeholders for its arguments; Python or JavaScript, steer_tui.project.members: a
        member a project module does not have). In `edit()`, while a retry is left, a failed attempt
        whose feedback says what; else a warning on a proposal that stands. None when neither."""
        from steer_tui.edits.runtime import runtime_problem
        from steer_tui.project.imports import needed_for
        from steer_tui.project.members import member_problem

        s = self.session
        added = "".join(line.text for line in needed_for(s, new_text))
        problem = runtime_problem(s.document.text, new_text, added) if is_python(s.path) else None
        problem = problem or member_problem(s, added + new_text, self.turn.instruction)
        if problem is None:
            return None
        if s.refuse_broken_syntax and self.turn.can_retry:
            return self.refuse_proposal(problem.what, f"Your edit was not applied: {problem.feedback} "
                                                      "Reply again with the complete edit.")
        s.notice("warning", NoticeCode(problem.code), f"{problem.what}; review it before accepting")
        return None

    def syntax_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal (`new_text`) breaks the file's Python syntax: flag it for review, or,
        in `edit()` (nothing reviews it), refuse it with feedback: a failed attempt. None if it parses."""
        s = self.session
        problem = s.review.checked_syntax(new_text)
        if problem is None:
            return None
        if not s.refuse_broken_syntax:
            s.notice("warning", NoticeCode.SYNTAX, f"{problem.describe()}; review it before accepting")
            return None
        return self.refuse_proposal(problem.describe(), syntax_feedback(problem, new_text))

    def refuse_proposal(self, reason: str, feedback: str) -> TurnResult:
        """In `edit()`: the finished proposal is a failed attempt after all; it leaves the diff and
        `feedback` goes back to the model."""
        self.turn.feedback = feedback
        self.session.live.clear()
        self.session.proposal_changed()
        return TurnResult("refused", reason)
