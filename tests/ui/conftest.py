"""UI test fixtures: the replay engine behind the real gateway, a real client, the app from make_app."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

from steer_tui.config import Settings
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.transport.client import ResponsesClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory.py"

# A recorded answer for examples/inventory.py: two SEARCH/REPLACE blocks, each one hunk.
TWO_BLOCKS = '''I'll validate the quantity and make the total a float.

<<<<<<< SEARCH
    def add(self, name, price, quantity=1):
        if name in self.items:
=======
    def add(self, name, price, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if name in self.items:
>>>>>>> REPLACE

<<<<<<< SEARCH
    def total_value(self):
        total = 0
        for item in self.items.values():
=======
    def total_value(self):
        """The value of everything in stock."""
        total = 0.0
        for item in self.items.values():
>>>>>>> REPLACE
'''

# Where the first block is complete and the second is half-written (inside its REPLACE part).
PAUSE_MID_SECOND_BLOCK = TWO_BLOCKS.index('        total = 0.0')


class PausingReplay(ReplayEngine):
    """The replay engine, holding after `pause_at` characters until cancelled (or released).

    Makes "mid-stream" states deterministic: tests and snapshots see exactly the same
    partial answer every run, with the response still open on the gateway.
    """

    def __init__(self, text: str, pause_at: int | None, *, once: bool = True, rate: float = 0):
        super().__init__(text, rate=rate)
        self.pause_at = pause_at
        self.once = once
        self.paused = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0
        self.requests = []  # the generating requests, in order
        self.paused_after = -1  # characters sent before the pause

    async def stream(self, request, cancel: threading.Event):
        if request.generate:  # prewarm requests (generate: false) do not count
            self.calls += 1
            self.requests.append(request)
        pause = self.pause_at if (self.calls == 1 or not self.once) and request.generate else None
        sent = 0
        async for token in super().stream(request, cancel):
            if pause is not None and sent + len(token) > pause:
                self.paused_after = sent
                self.paused.set()
                while not cancel.is_set() and not self.release.is_set():
                    await asyncio.sleep(0.005)
                if cancel.is_set():
                    request.finish_reason = "cancelled"
                    return
                pause = None
            sent += len(token)
            yield token


class Backend:
    """A gateway with a replay engine on a loopback port, and a connected client."""

    def __init__(self, engine):
        self.engine = engine
        self.gateway = Gateway(engine)
        self.url = ""
        self.port = 0
        self.client: ResponsesClient | None = None

    async def start(self) -> "Backend":
        self.url = await self.gateway.start("127.0.0.1", self.port)
        self.port = self.gateway.port
        if self.client is None:
            self.client = ResponsesClient(self.url, reconnect_attempts=2, backoff=0.05, backoff_max=0.1)
            await self.client.connect()
        return self

    async def drop(self) -> None:
        """The network goes away: the gateway stops listening and the client's socket dies."""
        self.gateway.server.close()
        ws = self.client._ws
        if ws is not None:
            ws.transport.abort()

    async def restart(self) -> None:
        await self.gateway.close()
        self.gateway = Gateway(self.engine)
        await self.gateway.start("127.0.0.1", self.port)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
        await self.gateway.close()


@pytest.fixture
def sample(tmp_path) -> Path:
    path = tmp_path / "inventory.py"
    shutil.copyfile(EXAMPLE, path)
    return path


@pytest.fixture
async def backends():
    made: list[Backend] = []

    async def make(text: str = TWO_BLOCKS, pause_at: int | None = None, *, once: bool = True, engine=None) -> Backend:
        """A started gateway over `engine` (default: a PausingReplay of `text`), closed after the test."""
        b = await Backend(engine or PausingReplay(text, pause_at, once=once)).start()
        made.append(b)
        return b

    yield make
    for b in made:
        try:
            await asyncio.wait_for(b.close(), 5)
        except Exception:
            pass


def settings(**kw) -> Settings:
    base = dict(backend="replay", model="recorded-demo", theme="dark")
    base.update(kw)
    return Settings(**base)


def replay_app(path: Path, backend: Backend, *, watch: bool = False, **settings_kw):
    """The app from make_app on `path`, on `backend`'s client, timings masked (stable screens)."""
    from steer_tui.ui.app import make_app

    return make_app(path, settings(**settings_kw), client=backend.client, watch=watch, mask_timings=True)


async def wait_paused(pilot, app, backend) -> None:
    """Wait until the replay holds and everything it sent before holding reached the app's screen."""
    await wait_until(pilot, lambda: backend.engine.paused.is_set(), what="the replay to pause")
    await wait_until(pilot, lambda: app.session is not None
                     and len(app.session.raw_text) >= backend.engine.paused_after, what="the deltas before the pause")
    app.flush_now()
    await pilot.pause()


async def wait_until(pilot, condition, timeout: float = 10.0, what: str = "condition") -> None:
    """Let the app run until `condition()` holds (bounded; not a timing assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)
    await pilot.pause()
