"""Session test harness: the replay engine behind the real gateway, one recorded answer per request."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
from pathlib import Path

import pytest

from steer_tui import prompts
from steer_tui.config import Settings
from steer_tui.files import Document
from steer_tui.server.engines.base import Engine, EngineRequest
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.session import Session
from steer_tui.transport.client import ResponsesClient

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA.parents[2] / "examples" / "inventory.py"


@pytest.fixture
def inventory(tmp_path):
    """A copy of examples/inventory.py to edit."""
    target = tmp_path / "inventory.py"
    shutil.copy(EXAMPLE, target)
    return target

# What a rewrite turn's message says before its region block (prompts.message_opening).
REWRITE_OPENS = prompts.message_opening(prompts.REWRITE, None, None)


async def open_session(url, path, events=None, *, edit_format="search_replace", prewarm=True):
    """A Session on `path` with a connected client to the gateway at `url`; events go to `events`."""
    client = ResponsesClient(url)
    await client.connect()
    on_event = (events if events is not None else []).append
    session = Session(Document.read(path), Settings(backend=url), on_event, client=client, edit_format=edit_format)
    await session.start(prewarm=prewarm)
    return session, client


@contextlib.asynccontextmanager
async def session_on(url, path, events=None, **kwargs):
    """`open_session` for the body of an `async with`: (session, client), the session closed after it."""
    session, client = await open_session(url, path, events, **kwargs)
    try:
        yield session, client
    finally:
        await session.close()


async def until(cond, timeout=20.0):
    """Wait for a condition the stream will reach (a bound against hangs, not a timing assert)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.002)


def recorded(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


class RecordedSequence(Engine):
    """Plays recorded answers in order, one per generating request (prewarms don't count);
    the last one repeats. Each answer is played by the ReplayEngine, so the gateway, the
    client and the session see exactly what they would see from a model. Not a model."""

    name = "replay"
    label = "replay (recorded text, not a model)"

    def __init__(self, names: list[str], rate: float = 0, hold_after: str | None = None,
                 features: frozenset[str] = frozenset({"stop"})):
        # With "prefix", each recording is what a model wrote after the request's prefix.
        self.features = frozenset(features)
        self.players = [ReplayEngine(recorded(n), rate=rate) for n in names]
        self.requests: list[EngineRequest] = []
        self.prewarm_requests: list[EngineRequest] = []
        # Once an answer has played this text, it holds until cancelled (a mid-answer state that
        # no scheduling delay can skip past).
        self.hold_after = hold_after

    async def start(self) -> None:
        for p in self.players:
            await p.start()

    async def stream(self, request: EngineRequest, cancel: threading.Event):
        if request.generate:
            self.requests.append(request)
            player = self.players[min(len(self.requests), len(self.players)) - 1]
        else:
            self.prewarm_requests.append(request)
            player = self.players[0]
        played = ""
        async for delta in player.stream(request, cancel):
            yield delta
            played += delta
            if request.generate and self.hold_after is not None and self.hold_after in played:
                while not cancel.is_set():
                    await asyncio.sleep(0.005)
                request.finish_reason = "cancelled"
                return


@pytest.fixture
async def replay():
    """`url, engine = await replay(["a.txt", "b.txt"], rate=0)`: a real gateway on loopback."""
    gateways = []

    async def start(names: list[str], rate: float = 0, hold_after: str | None = None,
                    features: frozenset[str] = frozenset({"stop"})):
        engine = RecordedSequence(names, rate, hold_after, features)
        gw = Gateway(engine)
        url = await gw.start("127.0.0.1", 0)
        gateways.append(gw)
        return url, engine

    yield start
    for gw in gateways:
        await gw.close()


@pytest.fixture
def calc(tmp_path) -> Path:
    """A writable copy of the calculator module."""
    target = tmp_path / "calc.py"
    shutil.copy(DATA / "calc.py", target)
    return target
