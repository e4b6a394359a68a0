"""Alternatives of one request (steer_tui.alternatives) through the real gateway, recorded answers:
the second lane a departure, the others sampled, identical ones merged, all sampled where the engine
cannot depart."""

from __future__ import annotations

import pytest

from .conftest import recorded, session_on
from steer_tui.alternatives import DEPARTED, GREEDY, SAMPLE_TEMPERATURE, SAMPLED, Alternatives, AlternativesEnded, \
    LaneEnded, LaneStarted
from steer_tui.state import IDLE
from steer_tui.transport.backends import gateway_info

ASK = "handle an empty list in mean"


async def test_the_second_lane_departs_from_the_first_answer_the_third_is_sampled_identical_ones_merge(replay, calc):
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt", "fix_mean.txt"], features=frozenset({"avoid", "stop"}))
    before = calc.read_text()
    async with session_on(url, calc, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        events = []
        alts = Alternatives(session, ASK, n=3, on_event=events.append)
        got = await alts.run()
        first, second, third = engine.requests
        answer = recorded("fix_mean.txt")
        after = answer.index("=======\n") + len("=======\n")
        answer = answer[: answer.index(">>>>>>> REPLACE")]  # departures within the code only (code_of)
        assert first.avoid is None
        assert second.avoid == (answer, after, False) and second.temperature is None
        assert third.avoid is None and third.temperature == SAMPLE_TEMPERATURE
        assert second.messages == first.messages == third.messages  # the same request, its prefix cached
        cap = got[0].result.tokens * 2 + 64  # an alternative restates the first answer with a change
        assert got[0].result.tokens and second.max_output_tokens == third.max_output_tokens == cap
        assert [a.how for a in got] == [GREEDY, DEPARTED, SAMPLED]
        assert [a.applies for a in got] == [True, True, True]
        assert got[0].same_as is None and got[1].same_as is None and got[2].same_as == 1
        assert got[0].text != got[1].text and "if not values:" in got[0].text and "lo > hi" in got[1].text
        assert "+    if not values:" in got[0].diff and got[0].added == 2 and got[0].removed == 0
        assert alts.best is got[0] and [a.lane for a in alts.distinct] == [1, 2]
        assert got[2].describe() == "identical to attempt 1"
        assert session.state is IDLE and not session.has_proposal
        assert [type(e) for e in events] == [LaneStarted, LaneEnded] * 3 + [AlternativesEnded]
    assert calc.read_text() == before  # asking alternatives writes nothing


async def test_a_refused_first_answer_leaves_the_next_alternative_best(replay, calc):
    """The first lane keeps its retries (refusal feedback); the departures get none of their own."""
    url, engine = await replay(["bad_mean.txt", "bad_mean.txt", "bad_mean.txt", "fix_mean.txt", "bad_mean.txt"],
                               features=frozenset({"avoid", "stop"}))
    async with session_on(url, calc, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        got = await Alternatives(session, ASK, n=3).run()
        assert len(engine.requests) == 5  # 1 + 2 retries, then one answer per other lane
        assert [a.status for a in got] == ["refused", "proposal", "refused"]
        assert got[0].result.attempts == 3 and got[1].result.attempts == 1 and got[2].result.attempts == 1
        assert recorded("bad_mean.txt").startswith(engine.requests[3].avoid[0])


async def test_without_avoid_the_lanes_are_sampled_at_once_on_sessions_of_their_own(replay, calc):
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt", "two_hunks.txt"])
    async with session_on(url, calc, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        assert "avoid" not in session.server_features
        got = await Alternatives(session, ASK, n=3).run()
        assert [a.how for a in got] == [GREEDY, SAMPLED, SAMPLED]
        first, *rest = engine.requests
        assert first.temperature is None and all(r.temperature == SAMPLE_TEMPERATURE for r in rest)
        assert all(r.avoid is None for r in engine.requests)
        # Each lane on a stream of its own, over the one connection.
        assert len({r.session_key for r in engine.requests}) == 3
        assert all(a.applies for a in got) and got[2].same_as == 2


async def test_stop_ends_every_lane(replay, calc):
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt", "fix_mean.txt"], rate=200, hold_after="=======",
                               features=frozenset({"avoid", "stop"}))
    async with session_on(url, calc, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        alts = Alternatives(session, ASK, n=3)

        def on_event(ev):
            if isinstance(ev, LaneStarted) and ev.lane == 1:
                import asyncio

                asyncio.get_running_loop().call_later(0.3, alts.stop)

        alts.on_event = on_event
        got = await alts.run()
        assert len(engine.requests) == 1  # no lane after a stop is asked
        assert [a.status for a in got] == ["stopped"] * 3 and alts.best is None
        assert session.state is IDLE and not session.has_proposal


def test_the_number_of_alternatives_is_bounded():
    with pytest.raises(ValueError):
        Alternatives(object(), ASK, n=0)
    with pytest.raises(ValueError):
        Alternatives(object(), ASK, n=9)


def test_departures_stay_within_the_code_and_lanes_are_capped_by_the_first_answer():
    from steer_tui.alternatives import code_of, lane_cap
    from steer_tui.events import TurnResult

    rewrite = "```python\ndef f():\n    return 1\n```\n\nThis fixes it."
    assert code_of("rewrite", rewrite) == "```python\ndef f():\n    return 1\n"
    assert code_of("rewrite", "```python\nx = 1\n") == "```python\nx = 1\n"  # cut off: all of it
    blocks = recorded("two_hunks.txt")
    assert code_of("search_replace", blocks) == blocks[: blocks.rindex(">>>>>>> REPLACE")]
    assert lane_cap(TurnResult("proposal", tokens=100), 1024) == 264
    assert lane_cap(TurnResult("proposal", tokens=600), 1024) == 1024 and lane_cap(None, None) is None
