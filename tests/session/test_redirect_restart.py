"""A redirect starts the turn over with both instructions: what the model is asked, what the screen sees.

Recorded answers through the real gateway and client (tests/session/conftest.py): the answers
are fixed, so these tests check the request the model gets and the session's events, not
whether a model follows the words (bench/redirect.py measures that with the embedded model).
"""

from __future__ import annotations

import pytest

from steer_tui.prompts import names_a_definition, redirect_adds, redirect_instruction, redirect_region
from steer_tui.events import Notice, ProposalUpdated, StateChanged, TurnEnded
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW
from steer_tui.transport.backends import gateway_info

from .conftest import DATA, REWRITE_OPENS, recorded, session_on, until


def user_text(request) -> str:
    return request.messages[-1]["content"]


async def test_restart_asks_once_with_both_instructions_and_no_partial_answer(replay, calc):
    url, engine = await replay(["long_answer.txt", "rename_sub.txt"], rate=400)
    events = []
    async with session_on(url, calc, events) as (session, _):
        session.redirect_strategy = "restart"
        await session.send("fix mean and describe")
        await until(lambda: any(b.status == "complete" for b in session.blocks.values()))
        await session.redirect("no: just rename sub to subtract")
        result = await session.wait()
        assert result.status == "proposal"
        assert [h.new for h in session.proposal] == [("def subtract(a, b):",)]
        first, second = engine.requests
        # The model never sees its half-written answer: it would go on in its pattern.
        assert not any(m["role"] == "assistant" for m in second.messages)
        text = user_text(second)
        # Words that say all they mean replace the request: the earlier one is not shown (the small
        # model did that one instead).
        assert text.startswith("no: just rename sub to subtract\n") and "fix mean" not in text
        # The cached prefix still serves: everything before the instruction is the first request's.
        assert second.messages[:-1] == first.messages[:-1]
        assert session.instruction == redirect_instruction("fix mean and describe", ["no: just rename sub to subtract"])


async def test_the_screen_sees_one_turn_whose_partial_leaves_the_diff(replay, calc):
    url, engine = await replay(["long_answer.txt", "rename_sub.txt"], rate=400)
    events = []
    async with session_on(url, calc, events) as (session, _):
        session.redirect_strategy = "restart"
        await session.send("fix mean and describe")
        await until(lambda: session.live.hunk_count > 0)
        start = len(events)
        await session.redirect("no: just rename sub to subtract")
        # Before the new answer writes anything, the superseded partial is gone from the diff.
        assert not session.has_proposal and session.state == GENERATING
        await session.wait()
        after = events[start:]
        updates = [e for e in after if isinstance(e, ProposalUpdated)]
        assert updates and updates[0].hunks == 0
        # No stop, no end, no idle for the replaced answer: one turn, ending once, in review.
        states = [e.state for e in after if isinstance(e, StateChanged)]
        assert INTERRUPTED not in states and states[-1] == REVIEW
        assert IDLE not in states[:-1]
        assert len([e for e in after if isinstance(e, TurnEnded)]) == 1
        assert any(isinstance(e, Notice) and "redirected" in e.text for e in after)


async def test_a_second_redirect_keeps_the_first_instruction_and_both_redirects(replay, calc):
    url, engine = await replay(["long_answer.txt", "long_answer.txt", "rename_sub.txt"], rate=400)
    async with session_on(url, calc) as (session, _):
        session.redirect_strategy = "restart"
        await session.send("fix mean and describe")
        await until(lambda: session.turn.tokens > 5)
        await session.redirect("only mean")
        await until(lambda: len(engine.requests) == 2 and session.turn.tokens > 5)
        await session.redirect("also rename sub to subtract")
        assert (await session.wait()).status == "proposal"
        text = user_text(engine.requests[-1])
        assert text.startswith("only mean\nalso rename sub to subtract\n")
        assert text.count("fix mean and describe") == 1


async def test_redirect_before_the_first_token_restarts_too(replay, calc):
    url, engine = await replay(["rename_sub.txt"], rate=400)
    async with session_on(url, calc) as (session, _):
        session.redirect_strategy = "restart"
        await session.send("fix mean")
        assert session.turn.tokens == 0  # nothing answered yet
        await session.redirect("no, rename sub to subtract")
        assert (await session.wait()).status == "proposal"
        assert "no, rename sub to subtract" in user_text(engine.requests[-1])


async def test_redirect_when_idle_is_a_new_turn(replay, calc):
    url, engine = await replay(["rename_sub.txt"])
    async with session_on(url, calc) as (session, _):
        await session.redirect("rename sub to subtract")
        assert (await session.wait()).status == "proposal"
        assert len(engine.requests) == 1 and "changed the request" not in user_text(engine.requests[0])


def test_redirect_instruction_wording():
    assert redirect_adds("also make it ignore commas") and redirect_adds("and sort them")
    assert redirect_adds("handle None too") and not redirect_adds("no, only to push")
    assert not redirect_adds("use a dict, not a list")
    # Words that say only part of the request are completed from the earlier one.
    assert redirect_instruction("add type hints to every method", ["no, only to pop"]) == \
        "add type hints to pop only, and change nothing else"
    assert redirect_instruction("in total, rename result to acc", ["no, rename it to running instead"]) == \
        "in total, rename result to running"
    # When they cannot be, the earlier request follows them as context.
    narrowed = redirect_instruction("fix every method", ["no, only pop"])
    assert narrowed.startswith("no, only pop\n\n(") and 'Earlier request: "fix every method"' in narrowed
    # Words that replace it and say all they mean stand alone; "it" needs the earlier request.
    assert redirect_instruction("add type hints to every method", ["no, only add a docstring to pop"]) == \
        "no, only add a docstring to pop"
    assert 'request: "make x a list"' in redirect_instruction("make x a list", ["no, turn it into a dict"])
    assert 'request: "collect pairs in a list"' in redirect_instruction("collect pairs in a list", ["use a dict, not a list"])
    # Words that add keep the request they add to, and need no context.
    assert redirect_instruction("add a docstring", ["also handle commas"]) == "add a docstring\nalso handle commas"
    assert redirect_instruction("", ["just this"]) == "just this"
    # A correction on the first request's own region follows that request (cached), else leads.
    assert redirect_instruction("collect pairs in a list", ["use a dict, not a list"], same_region=True) == \
        "collect pairs in a list\n\nCorrection: use a dict, not a list"
    assert redirect_instruction("add a docstring", ["also handle commas"], True) == "add a docstring\nalso handle commas"
    assert redirect_instruction("a", ["no, b", "no, c"], True).startswith("no, c\n")
    # The earlier request is the one the latest words replace.
    twice = redirect_instruction("a", ["no, b", "no, c"])
    assert twice.startswith("no, c\n") and 'request: "no, b"' in twice


STACK = """class Stack:
    def __init__(self, limit):
        self.limit = limit

    def push(self, item):
        self.items.append(item)

    def pop(self):
        return self.items.pop()

    def size(self):
        return len(self.items)


def helper():
    return 1
"""


def test_redirect_region_narrows_to_what_the_words_name():
    whole_class = (0, 12)
    assert redirect_region(STACK, whole_class, ["no, only add a docstring to pop, nothing else"]) == (7, 9)
    assert redirect_region(STACK, whole_class, ["no, only to push"]) == (4, 6)
    # Naming nothing, or adding: the region stays or grows to take the named definition in.
    assert redirect_region(STACK, whole_class, ["use a dict, not a list"]) == whole_class
    assert redirect_region(STACK, (7, 9), ["also fix size"]) == (7, 12)
    # Named outside the region: both.
    assert redirect_region(STACK, (7, 9), ["no, only helper"]) == (7, 16)
    assert redirect_region(STACK, None, ["only pop"]) is None
    assert redirect_region(STACK, whole_class, ["only pop"]) == (7, 9)


def test_a_word_after_the_or_a_is_a_thing_not_a_definition_to_take_in():
    # "the push" is the call in the code, not the method push: the region stays helper's.
    assert redirect_region(STACK, (13, 16), ["wrap the push in an if, not a try"]) == (13, 16)
    assert not names_a_definition(STACK, "wrap the push in an if")
    # Unless what it is follows it, or it is written as code.
    assert redirect_region(STACK, (13, 16), ["no, also fix the push method"]) == (4, 16)
    assert redirect_region(STACK, (13, 16), ["use `push` in it instead"]) == (4, 16)


async def test_a_rewrite_restart_narrows_its_region_to_the_definition_named(replay, calc):
    url, engine = await replay(["long_answer.txt", "rewrite_mean.txt"], rate=400)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        await session.send("add a docstring to every function", (0, 28))
        await until(lambda: session.turn.tokens > 5)
        await session.redirect("no, only to mean")
        await session.wait()
        assert session.region == (11, 16)
        assert user_text(engine.requests[-1]).startswith(REWRITE_OPENS + "Region (lines 12-16):\n```\ndef mean(values):")


async def test_auto_restarts_a_rewrite_on_words_that_change_the_request(replay, calc):
    url, engine = await replay(["long_answer.txt", "rewrite_mean.txt"], rate=400)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        assert session.redirect_mode == "auto"
        await session.send("add a docstring to every function", (0, 28))
        await until(lambda: session.turn.tokens > 5)
        await session.redirect("no, use one line each")  # names nothing: starts over, same region
        await session.wait()
        last = engine.requests[-1].messages
        assert not any(m["role"] == "assistant" for m in last) and session.region == (0, 28)
        assert user_text(engine.requests[-1]).startswith(REWRITE_OPENS + "Region (lines 1-28):")
        # A correction on the same region follows the first request, which opens the message as
        # it opened the first one (those tokens stay cached).
        first = user_text(engine.requests[-2])
        assert user_text(engine.requests[-1]) == first + "\n\nCorrection: no, use one line each"
        await session.send("add a docstring to every function", (0, 28))
        await until(lambda: len(engine.requests) == 3 and session.turn.tokens > 5)
        await session.redirect("no, only to mean")  # names mean: start over on mean
        await session.wait()
        last = engine.requests[-1].messages
        assert not any(m["role"] == "assistant" for m in last) and session.region == (11, 16)


def test_formats_not_measured_keep_steering():
    from steer_tui.session import REDIRECT_MODES

    assert REDIRECT_MODES["rewrite"] == "auto"
    assert {REDIRECT_MODES[f] for f in ("search_replace", "apply_patch", "udiff")} == {"continue"}


async def test_an_addition_is_asked_after_the_answer_of_the_code_that_answer_left(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_after.txt"], rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        assert session.redirect_mode == "auto"
        await session.send("make mean return 0.0 for an empty list", (11, 16))
        await until(lambda: session.turn.tokens > 3)
        await session.redirect("also add a docstring to it")
        assert len(engine.requests) == 1  # the answer is not stopped: it goes on
        result = await session.wait()
        assert result.status == "proposal"
        first, second = engine.requests
        # Asked on its own, of the code as the first answer left it: no transcript, no first request.
        assert not any(m["role"] == "assistant" for m in second.messages)
        text = user_text(second)
        assert text.startswith(REWRITE_OPENS + "Region:\n```\ndef mean(values):\n    total = 0.0\n")
        assert "Add a docstring to it" in text and "empty list" not in text
        # The proposal is the second answer, against the file as it is on disk.
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "max(len(values), 1)" in new
        assert new.count("def mean(") == 1 and "def clamp(" in new
        notices = [e.text for e in events if isinstance(e, Notice)]
        assert "after this answer: also add a docstring to it" in notices and "now: also add a docstring to it" in notices
        assert [e.state for e in events if isinstance(e, StateChanged)].count(GENERATING) == 1


@pytest.mark.parametrize("second", [
    "rewrite_same.txt",  # mean as it is on disk: it changes nothing ("no change" would drop the first answer)
    "mean_drops_body.txt",  # mean with only a docstring: refused
])
async def test_an_addition_that_fails_keeps_the_answer_before_it(replay, calc, second):
    url, engine = await replay(["rewrite_mean.txt", second], rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        await session.send("make mean return 0.0 for an empty list", (11, 16))
        await until(lambda: session.turn.tokens > 3)
        await session.redirect("also add a docstring to it")
        result = await session.wait()
        assert len(engine.requests) == 2
        assert result.status == "proposal" and session.state is REVIEW
        mean = session.review.proposed_text().split("def mean")[1].split("def clamp")[0]
        assert "max(len(values), 1)" in mean and '"""' not in mean
        assert any(isinstance(e, Notice) and "the answer before it is kept" in e.text for e in events)


MEAN_FIXED = ("    total = 0\n", "    total = 0.0\n"), ("/ len(values)", "/ max(len(values), 1)")
CLAMP_DOC = ("def clamp(x, lo, hi):\n", 'def clamp(x, lo, hi):\n    """`x` kept within `lo` and `hi`."""\n')


def edited(path, *changes) -> str:
    text = path.read_text()
    for old, new in changes:
        text = text.replace(old, new)
    return text


async def _mean_then(session, words: str, region=(11, 16)):
    """"make mean return 0.0 for an empty list" on `region`, then, while it is answered, `words`: the turn's result."""
    await session.send("make mean return 0.0 for an empty list", region)
    await until(lambda: session.turn.tokens > 3)
    await session.redirect(words)
    return await session.wait()


async def test_an_addition_naming_a_definition_apart_from_the_region_is_asked_of_it_alone(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "clamp_doc_alone.txt"], rate=60)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        result = await _mean_then(session, "also add a docstring to clamp")
        assert result.status == "proposal" and len(engine.requests) == 2
        # Asked of clamp alone, as it is on disk; mean keeps the first answer's change.
        assert user_text(engine.requests[1]).startswith(REWRITE_OPENS + "Region (lines 19-24):\n```\ndef clamp(x, lo, hi):\n")
        assert session.region == (18, 24)
        assert session.review.proposed_text() == edited(calc, *MEAN_FIXED, CLAMP_DOC)
        assert session.live.hunk_count == 3  # two lines of mean, one of clamp


async def test_an_addition_naming_one_definition_inside_the_region_is_asked_of_it_alone(replay, calc):
    url, engine = await replay(["mean_fixed_and_clamp.txt", "clamp_doc_alone.txt"], rate=60)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        assert (await _mean_then(session, "also add a docstring to clamp", (11, 24))).status == "proposal"
        assert len(engine.requests) == 2
        # clamp alone, as the first answer left it; mean keeps that answer's change.
        assert user_text(engine.requests[1]).startswith(REWRITE_OPENS + "Region:\n```\ndef clamp(x, lo, hi):\n    if x < lo:")
        assert session.region == (18, 24)
        assert session.review.proposed_text() == edited(calc, *MEAN_FIXED, CLAMP_DOC)


async def test_an_addition_over_the_region_and_past_it_that_restates_only_part_keeps_the_earlier_change(replay, calc):
    # Shown mean (as the first answer left it) and clamp, the model answers clamp alone: mean is
    # left out, and stays as the first answer made it, not as it is on disk.
    url, engine = await replay(["rewrite_mean.txt", "clamp_doc_alone.txt"], rate=60)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        result = await _mean_then(session, "also add docstrings to mean and clamp")
        assert result.status == "proposal" and len(engine.requests) == 2
        block = user_text(engine.requests[1]).split("```")[1]
        assert block.startswith("\ndef mean(values):\n    total = 0.0\n") and block.rstrip().endswith("    return x")
        assert session.region == (11, 24)
        assert session.review.proposed_text() == edited(calc, *MEAN_FIXED, CLAMP_DOC)


async def test_an_addition_apart_from_the_region_that_is_refused_keeps_the_answer_before_it(replay, calc):
    # Asked of clamp, the model writes mean again: refused, and the first answer comes back on its own region.
    url, engine = await replay(["rewrite_mean.txt", "rewrite_mean.txt"], rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "after"  # what this test is about; "before" is the default
        result = await _mean_then(session, "also add a docstring to clamp")
        assert result.status == "proposal" and len(engine.requests) == 2
        assert session.review.proposed_text() == edited(calc, *MEAN_FIXED)
        assert session.region == (11, 16)
        assert any(isinstance(e, Notice) and "the answer before it is kept" in e.text for e in events)


async def test_an_addition_asked_first_apart_from_the_region_then_the_request_of_its_own_region(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "clamp_doc_alone.txt", "rewrite_mean.txt"], rate=60)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        assert session.settings.redirect_additions == "before"  # the default
        result = await _mean_then(session, "also add a docstring to clamp")
        assert result.status == "proposal" and len(engine.requests) == 3
        assert user_text(engine.requests[1]).startswith(REWRITE_OPENS + "Region (lines 19-24):\n```\ndef clamp(x, lo, hi):\n")
        # Then the request as it was first asked: of mean as it is on disk, with no transcript.
        assert engine.requests[2].messages == engine.requests[0].messages
        assert session.region == (11, 16)
        assert session.review.proposed_text() == edited(calc, *MEAN_FIXED, CLAMP_DOC)


async def test_an_addition_asked_first_stops_the_answer_then_asks_the_request_as_first_asked(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "rewrite_mean.txt"], rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        session.settings.redirect_additions = "before"  # the config file's `redirect_additions`
        assert session.redirect_mode == "auto"
        await session.send("make mean return 0.0 for an empty list", (11, 16))
        await until(lambda: session.turn.tokens > 3)
        await session.redirect("also add a docstring to it")
        assert session.live.hunk_count == 0  # the interrupted partial left the diff
        await until(lambda: len(engine.requests) == 2)  # the addition is asked without waiting for the answer
        result = await session.wait()
        assert result.status == "proposal" and len(engine.requests) == 3
        first, addition, request = engine.requests
        # The addition alone, of the region as it is on disk: the block the first request showed.
        text = user_text(addition)
        block = user_text(first).split("```\n\n")[0]
        assert block.startswith(REWRITE_OPENS + "Region (lines 12-16):\n```\ndef mean(values):\n    total = 0\n")
        assert text.startswith(block)
        assert "Add a docstring to it" in text and "empty list" not in text
        # Then the interrupted request as it was first asked (all of it but its words still cached),
        # its answer merged with the addition's: the docstring, and the line after it changed.
        assert request.messages == first.messages
        new = session.review.proposed_text()
        assert '    """The average of `values` (0.0 for none)."""\n    total = 0.0\n' in new
        assert "max(len(values), 1)" in new and new.count("def mean(") == 1 and "def clamp(" in new
        notices = [e.text for e in events if isinstance(e, Notice)]
        assert "now: make mean return 0.0 for an empty list" in notices
        # To the screen the turn goes on (a restart): never idle or interrupted in between.
        states = [e.state for e in events if isinstance(e, StateChanged)]
        assert states[-1] is REVIEW and not {IDLE, INTERRUPTED} & set(states)


async def test_a_request_whose_answer_clashes_with_the_additions_is_asked_of_the_code_it_left(replay, calc):
    # Asked as first asked, the answer puts another docstring where the addition put one: merged,
    # one of the two would be a guess, so the request is asked of the code the addition left.
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "mean_other_doc.txt", "mean_doc_after.txt"],
                               rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        result = await _addition_first(session)
        assert result.status == "proposal" and len(engine.requests) == 4
        first, addition, again, request = engine.requests
        assert again.messages == first.messages
        # After the addition's exchange, of the code its answer left.
        assert request.messages[:-1] == addition.messages + [{"role": "assistant", "content": recorded("mean_doc_only.txt")}]
        text = user_text(request)
        assert '"""The average of `values` (0.0 for none)."""' in text.split("```")[1]
        assert "make mean return 0.0 for an empty list" in text and "docstring" not in text.split("```")[-1]
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "Mean of the values" not in new
        assert "max(len(values), 1)" in new and new.count("def mean(") == 1
        assert "now: make mean return 0.0 for an empty list, of the code the addition left" in \
            [e.text for e in events if isinstance(e, Notice)]


async def _addition_first(session):
    """"make mean return 0.0 for an empty list", then, while it is answered, "also add a docstring
    to it" asked before the rest of it: the turn's result."""
    session.redirect_strategy = "before"
    await session.send("make mean return 0.0 for an empty list", (11, 16))
    await until(lambda: session.turn.tokens > 3)
    await session.redirect("also add a docstring to it")
    return await session.wait()


async def test_a_request_after_an_addition_that_changes_nothing_keeps_the_additions_answer(replay, calc):
    # The request's answer adds nothing to the addition's, asked as first asked (it writes the same
    # docstring) and then of the code the addition left.
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "mean_doc_only.txt", "mean_doc_only.txt"],
                               rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        result = await _addition_first(session)
        assert len(engine.requests) == 4 and result.status == "proposal"
        assert engine.requests[2].messages == engine.requests[0].messages
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "max(len(values), 1)" not in new
        assert any(isinstance(e, Notice) and e.text.startswith("the model's answer to the request changed nothing")
                   for e in events)


async def test_a_request_after_an_addition_that_changes_nothing_departs_from_that_answer(replay, calc):
    # An engine that departs (the embedded one): the unchanged answer is a failed attempt, and the
    # retry asks the same, departing from it.
    url, engine = await replay(["rewrite_mean.txt", "mean_doc_only.txt", "mean_doc_only.txt", "mean_doc_only.txt",
                                "mean_doc_after.txt"], rate=60)
    engine.features = frozenset({"avoid"})
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, client):
        client.server_info = await gateway_info(url)
        result = await _addition_first(session)
        assert len(engine.requests) == 5 and result.status == "proposal"
        unchanged, departed = engine.requests[3:]
        assert unchanged.avoid is None and departed.avoid is not None and departed.messages == unchanged.messages
        new = session.review.proposed_text()
        assert '"""The average of `values` (0.0 for none)."""' in new and "max(len(values), 1)" in new


async def test_an_addition_first_that_changes_nothing_still_asks_the_request(replay, calc):
    url, engine = await replay(["rewrite_mean.txt", "rewrite_same.txt", "rewrite_mean.txt"], rate=60)
    events = []
    async with session_on(url, calc, events, edit_format="rewrite") as (session, _):
        result = await _addition_first(session)
        assert len(engine.requests) == 3 and result.status == "proposal"
        assert "    total = 0\n" in user_text(engine.requests[2])  # the region as it was
        assert "max(len(values), 1)" in session.review.proposed_text()
        assert any(isinstance(e, Notice) and e.text == "the addition's answer changed nothing" for e in events)


def test_an_additions_region_is_what_it_names_apart_from_the_region_and_never_its_verb():
    from steer_tui.prompts import addition_region

    text = (DATA / "calc.py").read_text()
    # Apart from the region: what they name, alone.
    assert addition_region(text, (11, 16), "also add a docstring to clamp") == (18, 24)
    assert addition_region(text, (11, 16), "and make sub check its types too") == (7, 9)
    assert addition_region(text, (11, 16), "also document clamp and describe") == (18, 28)
    # Over the region and past it: the span taking in both.
    assert addition_region(text, (11, 16), "also add docstrings to mean and clamp") == (11, 24)
    # Inside the region: what they name with `narrow` (an addition asked after the answer), else the region.
    assert addition_region(text, (0, 28), "also add a docstring to clamp") == (0, 28)
    assert addition_region(text, (0, 28), "also add a docstring to clamp", narrow=True) == (18, 24)
    assert addition_region(text, (11, 16), "also add a docstring to mean", narrow=True) == (11, 16)
    assert addition_region(text, (11, 16), "also make it ignore None") == (11, 16)
    # "add" is the verb, not the function add; "the describe helper" is a thing, not a name.
    assert addition_region(text, (11, 16), "also add a docstring to it") == (11, 16)
    assert addition_region(text, (11, 16), "also make it return the describe text") == (11, 16)
    # Unless what it is follows the name.
    assert addition_region(text, (11, 16), "also add a docstring to the clamp function") == (18, 24)
    assert addition_region(text, None, "also add a docstring to clamp") is None


def test_addition_instruction_drops_also_and_too():
    from steer_tui.prompts import addition_instruction

    assert addition_instruction("also make it ignore commas") == "Make it ignore commas"
    assert addition_instruction("and handle None too") == "Handle None"
    assert addition_instruction("plus sort them as well.") == "Sort them"


async def test_a_redirect_being_typed_is_prewarmed_only_when_it_will_start_the_turn_over(replay, calc):
    url, engine = await replay(["long_answer.txt"], rate=200)
    async with session_on(url, calc, edit_format="rewrite") as (session, _):
        assert not session.prewarm_redirect("no, only rename sub")  # no answer being written
        await session.send("fix mean and describe")
        await until(lambda: session.raw_text)
        assert not session.prewarm_redirect("also add a docstring to mean")  # asked after the answer
        assert not session.prewarm_redirect("  ")
        session.redirect_strategy = "continue"
        assert not session.prewarm_redirect("no, only rename sub")  # a steer continues the answer
        session.redirect_strategy = None
        assert session.prewarm_redirect("no, only rename sub to subtract", complete=True)
        region, instruction = session._restarted_turn(session.instruction, ["no, only rename sub to subtract"])
        assert session.prewarms.covers == (session.document.text, region) and session.prewarms.typed == instruction


def test_redirect_additions_comes_from_the_config_file_and_a_bad_value_is_named(tmp_path):
    from steer_tui.config import ConfigError, load_settings

    path = tmp_path / "config.toml"
    path.write_text('redirect_additions = "before"\n', encoding="utf-8")
    assert load_settings(path).redirect_additions == "before"
    path.write_text('redirect_additions = "sideways"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="redirect_additions must be one of after, before, not 'sideways'"):
        load_settings(path)
    assert load_settings(tmp_path / "none.toml").redirect_additions == "before"


async def test_an_addition_typed_while_the_model_writes_is_prewarmed_where_it_names_another_region(replay, inventory):
    # Asked at once ("before"), an addition naming a definition apart from the turn's region is
    # asked of that definition: its block is evaluated while the words are typed, not after Enter.
    url, _ = await replay(["inventory_remove_missing.txt"], rate=200, hold_after="if name in",
                          features=frozenset({"prefix", "stop"}))
    async with session_on(url, inventory, edit_format="rewrite") as (session, client):
        client.server_info = await gateway_info(url)
        await session.send("make remove do nothing when the name is not in the inventory", (22, 27))
        await until(lambda: "if name in" in session.raw_text)
        assert session.state is GENERATING
        assert session.prewarm_redirect("also add a docstring to cheapest", complete=True)
        region, instruction = session._asked_first("also add a docstring to cheapest")
        assert region == (34, 36) and instruction == "Add a docstring to cheapest"
        assert session.prewarms.covers == (session.document.text, region) and session.prewarms.typed == instruction
        # One on the turn's own region: the engine holds its block already.
        assert not session.prewarm_redirect("also make it return the quantity left", complete=True)
        # A class's docstring alone, on an engine that goes on from a prefix: the class's header.
        assert session.prewarm_redirect("also add a docstring to the Inventory class", complete=True)
        assert session.prewarms.covers == (session.document.text, (12, 14))
        await session.stop()
