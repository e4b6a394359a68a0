"""Session in memory: turns driven by event sequences recorded from the real client and gateway
(tests/session/recorded_events.py), through a fake backend that satisfies steer_tui.backend.Backend."""

from __future__ import annotations

import asyncio

import pytest

from steer_tui.backend import Backend, TurnStream
from steer_tui.events import VERDICTS, Applied, Notice, NoticeCode, ProposalUpdated, StateChanged, Stats, TurnEnded
from steer_tui.files import Document
from steer_tui.session import Session
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW, StateTransitionError
from steer_tui.transport.client import ResponsesClient, ResponseStream

from .conftest import DATA, until
from .recorded_events import FakeBackend


def fixed_mean_text():
    text = (DATA / "calc.py").read_text()
    return text.replace("def mean(values):\n", "def mean(values):\n    if not values:\n        return 0.0\n")


async def started(calc, names, events=None, **kw) -> tuple[Session, FakeBackend]:
    backend = FakeBackend(names, **kw)
    session = Session(Document.read(calc), on_event=(events if events is not None else []).append,
                      client=backend, edit_format="search_replace")
    await session.start(prewarm=False)
    return session, backend


def test_the_real_client_and_the_fake_satisfy_the_backend_protocol():
    assert isinstance(ResponsesClient("ws://127.0.0.1:9/v1/responses"), Backend)
    assert isinstance(FakeBackend(["fix_mean"]), Backend)
    for name in ("__aiter__", "cancel", "steer"):
        assert callable(getattr(ResponseStream, name))
    assert not isinstance(object(), Backend)
    assert isinstance(asyncio.run(FakeBackend(["fix_mean"]).create(input=[])), TurnStream)


async def test_a_turn_streams_into_review_and_accept_writes(calc):
    events = []
    session, backend = await started(calc, ["fix_mean"], events)
    result = await session.edit("make mean safe for an empty list", retries=0)
    assert result.status == "proposal" and result.attempts == 1 and result.tokens > 0
    assert session.state is REVIEW and session.live.hunk_count == 1
    states = [(e.previous, e.state) for e in events if isinstance(e, StateChanged)]
    assert states == [(IDLE, GENERATING), (GENERATING, REVIEW)]
    kinds = [type(e) for e in events]
    # the turn ends with the final numbers, then its end; proposal updates come before both
    assert kinds[-2:] == [Stats, TurnEnded] and events[-2].final
    assert kinds.index(ProposalUpdated) < kinds.index(Stats)
    assert calc.read_text() == (DATA / "calc.py").read_text()
    assert session.accept_all()
    assert calc.read_text() == fixed_mean_text()
    assert session.state is IDLE and [e.action for e in events if isinstance(e, Applied)] == ["accept"]
    assert session.undo() and calc.read_text() == (DATA / "calc.py").read_text()
    assert session.redo() and calc.read_text() == fixed_mean_text()
    await session.close()
    assert not backend.closed  # a client handed in belongs to the caller


async def test_esc_mid_answer_keeps_the_complete_block_and_cancels(calc):
    session, backend = await started(calc, ["two_hunks"], pause_after=60)
    await session.send("document add and check clamp's bounds")
    await until(lambda: backend.streams and backend.streams[0].stats.deltas >= 60)
    assert [b.status for b in session.blocks.values()][:1] == ["complete"]
    await session.stop()
    assert backend.streams[0].cancelled
    assert session.state is INTERRUPTED and session.live.hunk_count == 1
    result = await session.wait()
    assert result.status == "stopped" and session.state is INTERRUPTED
    assert session.reject_all() and session.state is IDLE


async def test_a_refused_answer_goes_back_with_feedback_and_the_retry_applies(calc):
    events = []
    session, backend = await started(calc, ["bad_mean", "fix_mean"], events)
    result = await session.edit("make mean safe for an empty list", retries=2)
    assert result.status == "proposal" and result.attempts == 2
    codes = [e.code for e in events if isinstance(e, Notice)]
    assert codes == [NoticeCode.RETRY_REFUSED]
    retry = backend.requests[1]["input"]
    assert retry[-2]["role"] == "assistant" and "def mean(xs)" in retry[-2]["content"]
    assert "was not applied: SEARCH does not match" in retry[-1]["content"]


async def test_verdicts_carry_their_codes(calc):
    events = []
    session, _ = await started(calc, ["bad_mean"], events)
    result = await session.edit("make mean safe for an empty list", retries=0)
    assert result.status == "refused"
    verdicts = [e for e in events if isinstance(e, Notice) and e.code in VERDICTS]
    assert [e.code for e in verdicts] == [NoticeCode.REFUSED] and verdicts[0].level == "error"
    assert session.state is IDLE and not session.has_proposal


async def test_an_answer_that_changes_nothing_is_retried_once_then_refused(calc):
    events = []
    session, backend = await started(calc, ["echo_same"], events)
    result = await session.edit("make mean safe for an empty list", retries=2)
    assert result.status == "refused" and result.no_change and len(backend.requests) == 2
    codes = [e.code for e in events if isinstance(e, Notice)]
    assert codes == [NoticeCode.RETRY_NO_CHANGE, NoticeCode.NO_CHANGE]


async def test_a_loop_of_blocks_that_change_nothing_is_stopped(calc):
    session, backend = await started(calc, ["noop_loop"])
    result = await session.edit("make mean safe for an empty list", retries=0)
    assert result.status == "refused" and "change nothing" in result.reason
    assert backend.streams[0].cancelled
    assert "SEARCH and REPLACE are identical" in session._feedback_instruction()


async def test_an_answer_caught_in_a_loop_is_stopped(calc):
    events = []
    session, backend = await started(calc, ["clamp_loop"], events)
    result = await session.edit("make clamp check its inputs", retries=0)
    assert result.status == "refused" and result.reason == "the answer repeated the same lines over and over"
    assert backend.streams[0].cancelled  # stopped as soon as the loop was plain, not at the cap
    assert not session.has_proposal and calc.read_text() == (DATA / "calc.py").read_text()
    assert "`if x == " in session._feedback_instruction() and "writing each change once" in session._feedback_instruction()


async def test_a_cut_off_answer_never_applies(calc):
    session, _ = await started(calc, ["long_answer_cut_off"])
    result = await session.edit("fix mean and describe", retries=0)
    assert result.status == "refused" and "cut off (max_output_tokens)" in result.reason
    assert not session.has_proposal and session.state is IDLE


async def test_a_rewrite_on_the_embedded_engine_has_room_for_its_region(tmp_path):
    from steer_tui.config import Settings
    from steer_tui.turn import ENGINE_DEFAULT_CAP

    # 150 lines, no definition named: the region is the whole file, ~1,500 tokens to restate,
    # more than the embedded engine's own default cap.
    big = tmp_path / "big.py"
    big.write_text("".join(f"VALUE_{i} = compute({i}, 'name_{i}', scale=2.5)\n" for i in range(150)))
    small = tmp_path / "small.py"
    small.write_text("def f(x):\n    return x\n")
    caps = {}
    for path, engine, configured in [(big, "local", None), (small, "local", None), (big, "upstream", None),
                                     (big, "local", 700)]:
        backend = FakeBackend(["fix_mean"])
        backend.server_info = {"engine": engine}
        session = Session(Document.read(path), on_event=[].append, client=backend, edit_format="rewrite",
                          settings=Settings(max_output_tokens=configured))
        await session.start(prewarm=False)
        await session.edit("add a comment at the top", retries=0)
        caps[(path.name, engine, configured)] = backend.requests[0]["max_output_tokens"]
    region_chars = len(big.read_text())
    assert 2 * region_chars // 3 < caps[("big.py", "local", None)] < 2 * region_chars // 3 + 400
    # A retry (its last message only feedback) asks about the same region: the same room.
    backend = FakeBackend(["long_answer_cut_off", "fix_mean"])
    backend.server_info = {"engine": "local"}
    session = Session(Document.read(big), on_event=[].append, client=backend, edit_format="rewrite")
    await session.start(prewarm=False)
    await session.edit("add a comment at the top", retries=1)
    assert len(backend.requests) == 2
    assert backend.requests[1]["max_output_tokens"] == caps[("big.py", "local", None)]
    assert caps[("small.py", "local", None)] == ENGINE_DEFAULT_CAP
    assert caps[("big.py", "upstream", None)] is None  # that backend's own default
    assert caps[("big.py", "local", 700)] == 700  # the configured cap is kept


async def test_a_change_on_disk_while_generating_is_carried_over_at_the_end(calc):
    events = []
    session, backend = await started(calc, ["fix_mean"], events, pause_after=5)
    await session.send("make mean safe for an empty list")
    await until(lambda: backend.streams and backend.streams[0].stats.deltas >= 5)
    calc.write_text("# edited elsewhere\n" + calc.read_text())
    assert session.file_changed()
    assert [e.code for e in events if isinstance(e, Notice)] == [NoticeCode.FILE_CHANGED]
    backend.gate.set()
    assert (await session.wait()).status == "proposal"
    assert NoticeCode.RELOCATED in [e.code for e in events if isinstance(e, Notice)]
    assert session.conflict is None and session.accept_all()
    assert calc.read_text() == "# edited elsewhere\n" + fixed_mean_text()


async def test_the_state_table_is_enforced(calc):
    session, _ = await started(calc, ["fix_mean"])
    with pytest.raises(StateTransitionError):
        session._set_state(REVIEW)  # idle -> review: no turn produced it
    assert session.state is IDLE
