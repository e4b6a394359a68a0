"""The local engine's request queue: round-robin across sessions, in order within one."""

from __future__ import annotations

import threading

from steer_tui.server.engines.base import EngineRequest
from steer_tui.server.engines.local import _FairQueue, _Job


def _job(session: str, n: int) -> _Job:
    req = EngineRequest(response_id=f"{session}{n}", messages=[], session_key=session)
    return _Job(req, threading.Event(), loop=None, queue=None)


def test_sessions_take_turns_and_keep_their_order():
    q = _FairQueue()
    for job in [_job("a", 1), _job("a", 2), _job("a", 3), _job("b", 1), _job("c", 1), _job("b", 2)]:
        q.put(job)
    order = [q.get().request.response_id for _ in range(6)]
    assert order == ["a1", "b1", "c1", "a2", "b2", "a3"]


def test_close_wakes_a_waiting_worker_and_returns_what_was_left():
    q = _FairQueue()
    got = []
    waiting = threading.Thread(target=lambda: got.append(q.get()))
    waiting.start()
    waiting.join(0.1)  # blocked on an empty queue
    assert waiting.is_alive()
    assert q.close() == []
    waiting.join(5)
    assert not waiting.is_alive() and got == [None]


def test_close_hands_back_queued_jobs():
    q = _FairQueue()
    q.put(_job("a", 1))
    q.put(_job("b", 1))
    assert [j.request.response_id for j in q.close()] == ["a1", "b1"]
    assert q.get() is None


async def test_a_closed_engine_refuses_requests_instead_of_reloading():
    import pytest

    from steer_tui.server.engines.base import EngineError
    from steer_tui.server.engines.local import LocalEngine

    engine = LocalEngine(progress=False)
    await engine.close()
    with pytest.raises(EngineError) as info:
        async for _ in engine.stream(_job("a", 1).request, threading.Event()):
            pass
    assert info.value.code == "engine_closed"
    assert not engine.loaded


def _prewarm(session: str, n: int, client: str | None) -> _Job:
    req = EngineRequest(response_id=f"{session}{n}", messages=[], session_key=session, generate=False, client=client)
    return _Job(req, threading.Event(), loop=None, queue=None)


def test_only_the_clients_own_prewarms_are_taken_out_of_turn():
    q = _FairQueue()
    jobs = [_job("c1:s", 1), _prewarm("c1:s~redirect", 1, "c1"), _prewarm("c2:s", 1, "c2"),
            _prewarm("c1:s~redirect", 2, "c1"), _prewarm("c1:t", 1, "c1")]
    jobs[0].request.client = "c1"  # a generating request of the client is never taken
    for job in jobs:
        q.put(job)
    assert q.has_prewarm("c1") and q.has_prewarm("c2") and not q.has_prewarm("c3")
    assert [j.request.response_id for j in q.take_prewarms("c1")] == ["c1:s~redirect1", "c1:s~redirect2", "c1:t1"]
    assert not q.has_prewarm("c1")
    assert q.take_prewarms("c1") == []
    # What is left keeps its order and its turns.
    assert [q.get().request.response_id for _ in range(2)] == ["c1:s1", "c2:s1"]
