"""The per-turn fast path keeps its guarantees: the response task pulls engine deltas itself
(stop() interrupts an engine waiting on I/O and the connection stays usable), frames are
built by the gateway, the client dispatches messages as they arrive, Nagle is off."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx
import pytest
from websockets.asyncio.server import serve
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from steer_tui.server.engines.base import Engine
from steer_tui.server.gateway import Gateway
from steer_tui.server.httpio import _encode, ws_text_frame
from steer_tui.transport.client import _loads
from steer_tui.transport.events import Completed, Created, Incomplete, TextDelta
from tests.wire.conftest import events_of, within


class WaitingEngine(Engine):
    """Yields one delta, then waits on I/O that never comes (a stalled upstream, a busy decode thread)."""

    name = label = "waiting"

    def __init__(self):
        self.started = asyncio.Event()
        self.interrupted = 0  # CancelledError seen at the await
        self.closed = 0  # the generator's cleanup ran

    async def stream(self, request, cancel):
        request.finish_reason = "stop"
        if not request.generate:
            return
        try:
            yield "first "
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.interrupted += 1
                request.finish_reason = "cancelled"
                raise
        finally:
            self.closed += 1


@pytest.fixture
async def waiting_gateway():
    engine = WaitingEngine()
    gw = Gateway(engine)
    await gw.start("127.0.0.1", 0)
    yield gw, engine
    await gw.close()


async def test_cancel_interrupts_an_engine_waiting_on_io_and_the_lane_stays_usable(waiting_gateway, client_factory):
    gw, engine = waiting_gateway
    client = await client_factory(gw.url)
    for turn in range(3):  # the task that ran the response must not carry the cancellation over
        stream = await client.create(input="go")

        async def consume():
            events = []
            async for event in stream:
                events.append(event)
                if isinstance(event, TextDelta):
                    await engine.started.wait()
                    engine.started.clear()
                    await stream.cancel()
            return events
        events = await within(consume(), 10)
        assert isinstance(events[-1], Incomplete) and events[-1].reason == "cancelled"
        assert stream.text == "first "
        assert engine.interrupted == engine.closed == turn + 1
    assert client.generation == 1  # one connection throughout
    assert not gw.inflight


async def test_cancel_right_after_a_steer_stops_the_successor(waiting_gateway, client_factory):
    gw, engine = waiting_gateway
    client = await client_factory(gw.url)
    stream = await client.create(input="go")

    async def consume():
        kinds = []
        async for event in stream:
            kinds.append(type(event))
            if isinstance(event, TextDelta) and Incomplete not in kinds:
                await engine.started.wait()
                engine.started.clear()
                await stream.steer("other words")
            if isinstance(event, Created) and len(stream.history) == 1:
                await engine.started.wait()
                await stream.cancel()
        return kinds
    kinds = await within(consume(), 10)
    assert kinds.count(Created) == 2 and stream.history[0][1] == "incomplete"
    assert isinstance(stream.final, Incomplete) and stream.final.reason == "cancelled"
    assert stream.final.response_id == stream.response_id != stream.history[0][0]
    # Both engine runs were interrupted where they waited: the successor did not run on.
    assert engine.interrupted == engine.closed == 2


async def test_http_client_going_away_stops_a_waiting_engine(waiting_gateway):
    gw, engine = waiting_gateway
    async with httpx.AsyncClient(trust_env=False) as http:
        async with http.stream("POST", gw.http_url, json={"input": "hi", "stream": True}) as response:
            assert response.status_code == 200
            await within(engine.started.wait())
    async def stopped():
        while engine.closed == 0:
            await asyncio.sleep(0.01)
    await within(stopped())
    assert engine.interrupted == 1


async def test_gateway_close_with_an_engine_waiting(client_factory):
    engine = WaitingEngine()
    gw = Gateway(engine)
    await gw.start("127.0.0.1", 0)
    client = await client_factory(gw.url, reconnect_attempts=1)
    stream = await client.create(input="go")
    await within(engine.started.wait())
    await within(gw.close())
    assert engine.closed == 1
    final = await within(stream.wait())
    assert final is not None  # the stream ended (cancelled or disconnected), it did not hang


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_gateway_frames_parse_as_websocket_text_frames(size):
    payload = b"x" * size
    reader = StreamReader()
    reader.feed_data(ws_text_frame(payload))
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
        raise AssertionError("the frame was incomplete")
    except StopIteration as done:
        frame = done.value
    assert frame.opcode is Opcode.TEXT and frame.fin and frame.data == payload
    assert not reader.buffer  # nothing left over: the length field was right


async def test_client_reassembles_fragmented_messages(client_factory):
    """Another server may fragment messages; the client's early dispatch reassembles them."""
    async def handler(ws):
        async for raw in ws:
            req = json.loads(raw)
            rid = "resp_frag"
            events = [{"type": "response.created", "response": {"id": rid}, "event_id": req.get("event_id")},
                      {"type": "response.output_text.delta", "response_id": rid, "delta": "hel"},
                      {"type": "response.output_text.delta", "response_id": rid, "delta": "lo"},
                      {"type": "response.completed", "response": {"id": rid, "output": [
                          {"type": "message", "content": [{"type": "output_text", "text": "hello"}]}]}}]
            for obj in events:
                text = json.dumps(obj)
                await ws.send([text[:5], text[5:11], text[11:]])  # an iterable goes out as fragments
    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        client = await client_factory(f"ws://127.0.0.1:{port}/v1/responses")
        stream = await client.create(input="hi")
        events = await events_of(stream)
    assert [type(e) for e in events] == [Created, TextDelta, TextDelta, Completed]
    assert stream.text == "hello" and events[-1].text == "hello"


async def test_nagle_is_off_on_both_ends(gateway_factory, client_factory, monkeypatch):
    accepted = []
    serve_conn = Gateway._serve_conn

    async def spy(self, reader, writer):
        accepted.append(writer.get_extra_info("socket"))
        await serve_conn(self, reader, writer)
    monkeypatch.setattr(Gateway, "_serve_conn", spy)
    gw, _ = await gateway_factory(text="ok")
    client = await client_factory(gw.url)
    await within((await client.create(input="hi")).collect())
    sock = client._ws.transport.get_extra_info("socket")
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    assert len(accepted) == 1 and accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_event_json_is_what_json_makes():
    for obj in [{"type": "response.output_text.delta", "delta": "é\"\n\u2028", "n": 1.5, "none": None, "ok": True,
                 "nested": {"list": [1, "two", {"three": 3}]}}, {}, [], "text", 3]:
        assert _encode(obj) == json.dumps(obj, separators=(",", ":"))
        text = json.dumps(obj)
        for variant in (text, f" {text}\n", text.replace(", ", ",")):
            assert _loads(variant) == json.loads(variant)
    for bad in ["", " ", "{", '{"a": 1} x', "[1,]", "{'a': 1}"]:
        with pytest.raises(json.JSONDecodeError):
            _loads(bad)
