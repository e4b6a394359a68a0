"""A prewarm whose caller gives up (the file changed again, the app closes) is stopped on the
server too: the next request on the lane does not wait behind a prompt nobody will use."""

from __future__ import annotations

import asyncio
import threading
from contextlib import asynccontextmanager

from steer_tui.server.engines.base import Engine, EngineRequest
from steer_tui.server.gateway import Gateway
from steer_tui.transport.client import ResponsesClient
from steer_tui.transport.health import gateway_info
from tests.wire.conftest import within


class Evaluating(Engine):
    """Evaluating a prompt takes `seconds`, or until it is cancelled (by default only then: a long file
    on a slow CPU); generating answers one word. Records how each request ended. A test engine, not a model."""

    name = "evaluating"
    label = "evaluating (test engine, not a model)"

    def __init__(self, seconds: float = float("inf")):
        self.seconds = seconds
        self.ended: list[str] = []
        self.prewarm_ended = asyncio.Event()

    async def stream(self, request: EngineRequest, cancel: threading.Event):
        if not request.generate:
            waited = 0.0
            try:
                while waited < self.seconds and not cancel.is_set():
                    await asyncio.sleep(0.005)
                    waited += 0.005
                if cancel.is_set():
                    request.finish_reason = "cancelled"
            finally:  # the gateway may also close this generator rather than wait for it
                self.ended.append("prewarm done" if waited >= self.seconds else "prewarm stopped")
                self.prewarm_ended.set()
            return
        self.ended.append("answered")
        request.finish_reason = "stop"
        yield "done"


@asynccontextmanager
async def served(engine: Engine):
    """A real gateway on loopback for `engine`: (gateway, its URL), closed after the block."""
    gateway = Gateway(engine)
    url = await gateway.start("127.0.0.1", 0)
    try:
        yield gateway, url
    finally:
        await gateway.close()


async def test_cancelled_prewarm_is_cancelled_on_the_server():
    engine = Evaluating()
    async with served(engine) as (_, url):
        client = ResponsesClient(url)
        try:
            await client.connect()
            warming = asyncio.ensure_future(client.prewarm(input="a long file", stream_id="lane"))
            await asyncio.sleep(0.1)
            warming.cancel()
            # The same lane runs in order: this answer can only come once the prewarm was stopped.
            stream = await client.create(input="change it", stream_id="lane")
            assert await within(stream.collect(), 10) == "done"
            assert engine.ended == ["prewarm stopped", "answered"]
        finally:
            await client.close()


async def test_a_detached_prewarm_runs_on_after_its_connection_closes():
    engine = Evaluating(0.5)
    async with served(engine) as (_, url):
        client = ResponsesClient(url)
        try:
            await client.connect()
            assert "detach" in (await gateway_info(url))["features"]
            rid = await within(client.prewarm(input="the file as written", detach=True), 10)
            assert rid.startswith("resp_") and engine.ended == []  # taken, not waited for
            await client.close()
            await within(engine.prewarm_ended.wait(), 10)
            assert engine.ended == ["prewarm done"]
        finally:
            await client.close()


async def test_any_later_request_stops_a_detached_prewarm():
    engine = Evaluating(60)
    async with served(engine) as (_, url):
        first, second = ResponsesClient(url), ResponsesClient(url)
        try:
            await first.connect()
            await within(first.prewarm(input="the file as written", detach=True), 10)
            await first.close()
            await second.connect()
            stream = await second.create(input="change it")
            assert await within(stream.collect(), 10) == "done"
            # Stopped, not run to its end (60 s): the engine serves the request that someone waits for.
            await within(engine.prewarm_ended.wait(), 10)
            assert sorted(engine.ended) == ["answered", "prewarm stopped"]
        finally:
            await second.close()


async def test_gateway_close_stops_a_detached_prewarm():
    engine = Evaluating(60)
    async with served(engine) as (gateway, url):
        client = ResponsesClient(url)
        try:
            await client.connect()
            await within(client.prewarm(input="the file as written", detach=True), 10)
        finally:
            await client.close()
        await within(gateway.close(), 10)
        assert engine.ended == ["prewarm stopped"]


async def test_detach_is_for_prewarms_only():
    from steer_tui.server.gateway import BadRequest

    gateway = Gateway(Evaluating(0))
    for payload, code in (({"input": "x", "detach": True}, "invalid_value"),
                          ({"input": "x", "generate": False, "detach": "yes"}, "invalid_type")):
        try:
            gateway.build_response(payload, "k")
        except BadRequest as exc:
            assert exc.code == code and exc.param == "detach"
        else:
            raise AssertionError(f"{payload} was taken")
    assert gateway.build_response({"input": "x", "generate": False, "detach": True}, "k").detach
