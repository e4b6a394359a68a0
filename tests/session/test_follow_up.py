"""Words sent after the answer ended (its proposal under review, or after Esc) go on from its request.

Recorded answers through the real gateway and client (tests/session/conftest.py): these tests
check what the model is asked and what the proposal becomes, not whether a model follows the
words (`python -m bench redirect --when end|esc` measures that with the embedded model).
"""

from __future__ import annotations

import pytest

from steer_tui.events import Notice, StateChanged
from steer_tui.prompts import redirect_corrects, refers_back
from steer_tui.state import IDLE, INTERRUPTED, REVIEW

from .conftest import recorded, session_on, until

MEAN = "make mean return 0.0 for an empty list"
MEAN_REGION = (11, 16)


def user_text(request) -> str:
    return request.messages[-1]["content"]


def notices(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


async def test_a_correction_under_review_starts_the_turn_over_with_the_request_and_the_words(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "mean_if_empty.txt"])
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await session.wait()
        assert session.state is REVIEW and "max(len(values), 1)" in session.review.proposed_text()
        await session.send("use an if, not max()", MEAN_REGION)
        assert (await session.wait()).status == "proposal"
        first, second = engine.requests
        # One request made of both, opening as the first did: only the correction is new to the engine.
        assert second.messages[:-1] == first.messages[:-1]
        assert user_text(second) == user_text(first) + "\n\nCorrection: use an if, not max()"
        # The new answer replaces the proposal; nothing was written.
        new = session.review.proposed_text()
        assert "    if not values:\n        return 0.0\n" in new and "max(" not in new
        assert calc.read_text(encoding="utf-8") == session.document.text
        assert "redirected: use an if, not max() (the answer starts over)" in notices(events)


async def test_other_words_under_review_are_asked_first_and_merged_with_the_proposal(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "rewrite_mean.txt", "mean_doc_only.txt"])
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await session.wait()
        start = len(events)
        # No "also": a new request typed over a proposal builds on it rather than dropping it.
        await session.send("add a docstring to it", MEAN_REGION)
        assert (await session.wait()).status == "proposal"
        # The request's answer is the proposal under review: it is merged, not asked again.
        first, addition = engine.requests
        assert "Add a docstring to it" in user_text(addition) and "empty list" not in user_text(addition)
        new = session.review.proposed_text()
        assert '    """The average of `values` (0.0 for none)."""\n    total = 0.0\n' in new
        assert "max(len(values), 1)" in new and new.count("def mean(") == 1
        said = notices(events[start:])
        assert "on top of the proposal: add a docstring to it (asked first, then merged with it)" in said
        assert f"now: {MEAN}" in said
        states = [e.state for e in events[start:] if isinstance(e, StateChanged)]
        assert states[-1] is REVIEW
        # That proposal is two answers merged: a second follow-up asks the request again, with the
        # first follow-up as what it was taken for, an addition.
        await session.send("also make it faster", MEAN_REGION)
        assert (await session.wait()).status == "proposal"
        assert len(engine.requests) == 4
        assert user_text(engine.requests[3]).endswith(f"{MEAN}\nalso add a docstring to it")


async def test_a_known_answer_that_clashes_with_the_additions_is_asked_of_the_code_it_left(replay, calc):
    # The proposal under review has a docstring; the addition's answer puts another at the same
    # place: which one stays would be a guess, so the request is asked of the addition's code.
    url, engine = await replay(["mean_other_doc.txt", "mean_doc_only.txt", "mean_doc_after.txt"])
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await session.wait()
        await session.send("add a docstring to it", MEAN_REGION)
        assert (await session.wait()).status == "proposal"
        first, addition, request = engine.requests
        assert request.messages[:-1] == addition.messages + [{"role": "assistant", "content": recorded("mean_doc_only.txt")}]
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "Mean of the values" not in new
        assert f"now: {MEAN}, of the code the addition left" in notices(events)


async def test_after_reject_or_accept_the_words_are_a_turn_of_their_own(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "mean_doc_only.txt"])
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await session.wait()
        assert session.reject_all() and session.state is IDLE
        await session.send("add a docstring to it", MEAN_REGION)
        await session.wait()
        assert len(engine.requests) == 2 and "empty list" not in user_text(engine.requests[1])
        assert session.accept_all()
        await session.send("no, only to clamp", MEAN_REGION)
        await session.wait()
        assert len(engine.requests) == 3
        assert user_text(engine.requests[2]).endswith("no, only to clamp")


async def test_a_proposal_with_a_hunk_rejected_is_not_gone_on_from(replay, calc):
    url, engine = await replay(["two_hunks.txt", "rename_sub.txt"])
    async with session_on(url, calc) as (session, _):
        await session.send("rename add and sub")
        await session.wait()
        assert session.live.hunk_count == 2 and session.reject_hunk(0)
        await session.send("no, only sub")
        await session.wait()
        text = user_text(engine.requests[1])
        assert "no, only sub" in text and "rename add and sub" not in text


@pytest.mark.parametrize("stop_at, kept", [("def mean", False), ("def describe", True)])
async def test_after_esc_words_that_go_on_restart_the_request_and_others_stand_alone(replay, calc, stop_at, kept):
    url, engine = await replay(["long_answer.txt", "rename_sub.txt", "long_answer.txt", "rename_sub.txt"],
                               rate=400, hold_after=stop_at)
    async with session_on(url, calc) as (session, _):
        for words, goes_on in (("no, rename sub to subtract", True), ("rename sub to subtract", False)):
            if session.has_proposal:
                assert session.reject_all()
            await session.send("fix mean and describe")
            await until(lambda: stop_at in session.raw_text)
            await session.stop()
            # Stopped before its first block closed, nothing stays; after it, that block does.
            assert session.has_proposal is kept and session.state is (INTERRUPTED if kept else IDLE)
            await session.send(words)
            await session.wait()
            text = user_text(engine.requests[-1])
            assert text.startswith(words)
            # Esc said stop: only words that go on from the stopped request bring it back.
            assert ("fix mean and describe" in text) is goes_on


def test_which_words_correct_and_which_go_on():
    for words in ("no, only to push", "use a dict, not a list", "no, add an is_empty method instead",
                  "only add a docstring to pop, nothing else", "actually, use a set", "rather than a loop, use sum()"):
        assert redirect_corrects(words) and refers_back(words), words
    for words in ("also add a docstring to it", "handle None too"):
        assert not redirect_corrects(words) and refers_back(words), words
    for words in ("add a docstring to load", "make remove raise KeyError", "return None when it is not found"):
        assert not redirect_corrects(words) and not refers_back(words), words


async def test_a_correction_typed_under_review_prewarms_the_turn_it_will_start(replay, calc):
    url, engine = await replay(["rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await session.wait()
        assert session.follows_up("add a docstring")
        # Asked first, on its own, of the region: that message is prewarmed.
        assert session.prewarm_redirect("also add a docstring", complete=True)
        assert session.prewarms.covers == (session.document.text, MEAN_REGION)
        assert session.prewarms.typed == "Add a docstring"
        words = "use an if, not max()"
        assert session.prewarm_redirect(words, complete=True)
        region, instruction = session._restarted_turn(session.instruction, [words])
        assert region == MEAN_REGION and instruction.endswith("Correction: use an if, not max()")
        assert session.prewarms.covers == (session.document.text, region) and session.prewarms.typed == instruction
        session.reject_all()
        assert not session.follows_up(words) and not session.prewarm_redirect(words)


async def test_an_addition_after_esc_asks_the_stopped_request_again(replay, calc):
    # Esc left no proposal (a rewrite keeps nothing of a half-written region): the stopped request
    # is asked again after the addition, as while the model writes.
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "rewrite_mean.txt"],
                               rate=400, hold_after="total = 0.0\n    for")
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        await session.send(MEAN, MEAN_REGION)
        await until(lambda: "total = 0.0\n    for" in session.raw_text)
        await session.stop()
        assert session.state is IDLE and not session.has_proposal
        engine.hold_after = None
        await session.send("also add a docstring to it", MEAN_REGION)
        assert (await session.wait()).status == "proposal"
        first, addition, again = engine.requests
        assert again.messages == first.messages
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "max(len(values), 1)" in new
