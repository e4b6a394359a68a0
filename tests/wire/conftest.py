"""Fixtures for the wire tests: a real gateway on an ephemeral loopback port, and the real client."""

from __future__ import annotations

import asyncio

import pytest

from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.transport.client import ResponsesClient

# ~60 deltas; long enough to interrupt mid-way at a slow rate.
TEXT = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(8))


async def within(awaitable, seconds: float = 20):
    """Guard against hangs: a test that would wait forever fails instead (not a timing assert)."""
    return await asyncio.wait_for(awaitable, seconds)


async def events_of(stream, seconds: float = 20) -> list:
    async def run():
        return [e async for e in stream]
    return await within(run(), seconds)


@pytest.fixture
async def gateway_factory():
    made = []

    async def make(text: str = TEXT, rate: float | str = "max", **kwargs) -> tuple[Gateway, ReplayEngine]:
        engine = ReplayEngine(text, rate=rate)
        gw = Gateway(engine, **kwargs)
        await gw.start("127.0.0.1", 0)
        made.append(gw)
        return gw, engine

    yield make
    for gw in made:
        await gw.close()


@pytest.fixture
async def client_factory():
    made = []

    async def make(url: str, **kwargs) -> ResponsesClient:
        kwargs.setdefault("reconnect_attempts", 3)
        kwargs.setdefault("backoff", 0.05)
        client = ResponsesClient(url, **kwargs)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.close()
