"""A prewarm whose caller gives up (the file changed again, the app closes) is stopped on the
server too: the next request on the lane does not wait behind a prompt nobody will use."""

from __future__ import annotations

import asyncio
import threading

from steer_tui.server.engines.base import Engine, EngineRequest
from steer_tui.server.gateway import Gateway
from steer_tui.transport.client import ResponsesClient
from tests.wire.conftest import within


class SlowPrewarm(Engine):
    """Evaluating a prompt takes until it is cancelled (a long file on a slow CPU); generating
    answers one word. Records how each request ended. A test engine, not a model."""

    name = "slow-prewarm"
    label = "slow prewarm (test engine, not a model)"

    def __init__(self):
        self.ended: list[str] = []

    async def stream(self, request: EngineRequest, cancel: threading.Event):
        if not request.generate:
            try:
                while not cancel.is_set():
                    await asyncio.sleep(0.005)
                request.finish_reason = "cancelled"
            finally:  # the gateway may also close this generator rather than wait for it
                self.ended.append("prewarm stopped")
            return
        self.ended.append("answered")
        request.finish_reason = "stop"
        yield "done"


async def test_cancelled_prewarm_is_cancelled_on_the_server():
    engine = SlowPrewarm()
    gateway = Gateway(engine)
    url = await gateway.start("127.0.0.1", 0)
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
        await gateway.close()
