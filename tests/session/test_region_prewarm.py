"""Prewarming the block at the cursor (rewrite format): only for rewrite, never twice for the
same block, and never in the way of a turn that edits another block."""

from __future__ import annotations

import asyncio
import threading

from steer_tui.server.engines.base import EngineRequest
from steer_tui.server.gateway import Gateway

from .conftest import REWRITE_OPENS, RecordedSequence, open_session, until


class SlowBlockPrewarm(RecordedSequence):
    """Recorded answers; a prewarm that carries a region block takes until it is cancelled
    (a long block on a slow CPU). Records every request. A test engine, not a model."""

    def __init__(self, names):
        super().__init__(names)
        self.prewarms: list[str] = []
        self.stopped: list[str] = []

    async def stream(self, request: EngineRequest, cancel: threading.Event):
        if not request.generate:
            last = str(request.messages[-1].get("content") or "")
            self.prewarms.append(last)
            if last.startswith(REWRITE_OPENS + "Region"):
                try:
                    while not cancel.is_set():
                        await asyncio.sleep(0.005)
                finally:
                    self.stopped.append(last)
                return
        async for delta in super().stream(request, cancel):
            yield delta


async def start(names):
    engine = SlowBlockPrewarm(names)
    gateway = Gateway(engine)
    return engine, gateway, await gateway.start("127.0.0.1", 0)


async def test_region_prewarm_only_for_rewrite_and_once_per_block(calc):
    engine, gateway, url = await start(["rewrite_mean.txt"])
    try:
        session, client = await open_session(url, calc, edit_format="search_replace")
        await until(lambda: len(engine.prewarms) == 1)
        session.prewarm_region((0, 3))  # SEARCH/REPLACE turns do not open with a region block
        await asyncio.sleep(0.1)
        assert len(engine.prewarms) == 1
        await client.close()

        session, client = await open_session(url, calc, edit_format="rewrite")
        await until(lambda: len(engine.prewarms) == 2)
        session.prewarm_region((0, 3))
        await until(lambda: len(engine.prewarms) == 3)
        assert engine.prewarms[-1].startswith(REWRITE_OPENS + "Region (lines 1-3):")
        session.prewarm_region((0, 3))
        await asyncio.sleep(0.1)
        assert len(engine.prewarms) == 3  # already warm (or warming)
        await client.close()
    finally:
        await gateway.close()


async def test_a_turn_on_another_block_does_not_wait_for_its_prewarm(calc):
    engine, gateway, url = await start(["rewrite_mean.txt"])
    try:
        session, client = await open_session(url, calc, edit_format="rewrite")
        await until(lambda: len(engine.prewarms) == 1)
        session.prewarm_region((0, 3))
        await until(lambda: len(engine.prewarms) == 2)
        lines = calc.read_text().count("\n")
        await session.send("fix mean", (3, lines))  # another block
        # The lane runs in order: the turn can only be answered once the stale prewarm stopped.
        result = await asyncio.wait_for(session.wait(), 20)
        assert engine.stopped == [engine.prewarms[1]]
        assert result.status in ("proposal", "nothing", "refused")
        assert len(engine.requests) == 1
        await client.close()
    finally:
        await gateway.close()
