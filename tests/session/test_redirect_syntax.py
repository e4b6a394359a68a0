"""A proposal that breaks a Python file's syntax (as a redirected answer once did) is flagged in review,
with the hunk that breaks it; `Session.edit` (what `steer edit` runs) refuses it as a failed attempt
and sends the model feedback. Recorded answers through the real gateway and client."""

from __future__ import annotations

import json

from steer_tui.events import Notice
from steer_tui.state import REVIEW

from .conftest import session_on


async def test_review_flags_the_breaking_hunk(replay, calc):
    url, _ = await replay(["broken_sub.txt"])
    events = []
    async with session_on(url, calc, events) as (session, _):
        await session.send("document add and sub")
        result = await session.wait()
        assert result.status == "proposal" and session.state == REVIEW
        problem = session.syntax_problem
        assert problem is not None and problem.hunk == 1 and problem.line == 9
        assert "def sub(a, b) -> :" in session.proposal[problem.hunk].new
        assert any(isinstance(e, Notice) and "breaks the Python syntax" in e.text for e in events)
        # Rejecting the breaking hunk leaves a proposal that parses.
        assert session.reject_hunk(1)
        assert session.syntax_problem is None and session.has_proposal


async def test_a_proposal_that_parses_is_not_flagged(replay, calc):
    url, _ = await replay(["fix_mean.txt"])
    events = []
    async with session_on(url, calc, events) as (session, _):
        await session.send("handle an empty list in mean")
        assert (await session.wait()).status == "proposal"
        assert session.syntax_problem is None
        assert not any(isinstance(e, Notice) and "syntax" in e.text for e in events)


async def test_edit_retries_a_breaking_answer_with_feedback(replay, calc):
    url, engine = await replay(["broken_sub.txt", "fix_mean.txt"])
    async with session_on(url, calc) as (session, _):
        original = calc.read_text()
        result = await session.edit("handle an empty list in mean")
        assert result.status == "proposal" and result.attempts == 2
        feedback = engine.requests[1].messages[-1]["content"]
        assert "breaks the Python syntax at line 9 (hunk 2)" in feedback and "def sub(a, b) -> :" in feedback
        assert calc.read_text() == original  # nothing written before accept


async def test_edit_never_proposes_a_breaking_answer(replay, calc):
    url, engine = await replay(["broken_sub.txt"])
    async with session_on(url, calc) as (session, _):
        result = await session.edit("document add and sub", retries=1)
        assert result.status == "refused" and "breaks the Python syntax" in result.reason
        assert result.attempts == 2 and not session.has_proposal
        # Outside edit() the same answer is a proposal to review again.
        await session.send("document add and sub")
        assert (await session.wait()).status == "proposal" and session.syntax_problem is not None


async def test_steer_edit_never_writes_a_breaking_answer(replay, calc):
    from .test_edit_command import steer_edit

    url, engine = await replay(["broken_sub.txt"])
    original = calc.read_text()
    code, out, err = await steer_edit(str(calc), "-m", "document add and sub", "--backend", url,
                                      "--format", "search_replace", "--json")
    assert code == 1
    assert calc.read_text() == original
    assert "breaks the Python syntax" in json.loads(out)["reason"]
    assert len(engine.requests) == 3  # the first attempt and two retries with the feedback
