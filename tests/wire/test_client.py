"""Client behaviour: replay after a lost cache or a connection limit, and the interrupt dialects
of providers without cancel (OpenAI: abandon the lane; xAI: reconnect), exercised against the
real gateway with the client told to speak that dialect."""

from __future__ import annotations

import asyncio
import json

from steer_tui.server import gateway as gateway_module
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.transport.events import Completed, Incomplete, Notice, TextDelta
from tests.wire.conftest import TEXT, events_of, within


async def test_previous_response_not_found_replays_the_transcript(client_factory):
    gw1 = Gateway(ReplayEngine("first answer"))
    await gw1.start("127.0.0.1", 0)
    port = gw1.port
    client = await client_factory(gw1.url)
    first = await client.create(input="q1", instructions="sys")
    await within(first.collect())
    await gw1.close()
    gw2 = Gateway(ReplayEngine("second answer"))  # a restarted gateway: empty store
    await gw2.start("127.0.0.1", port)
    try:
        nxt = await client.create(input="q2", previous_response_id=first.response_id)
        events = await events_of(nxt)
        assert [e.code for e in events if isinstance(e, Notice)] == ["replayed"]
        assert isinstance(events[-1], Completed) and nxt.text == "second answer"
        # The server got the whole conversation, not a dangling id.
        assert gw2.store[nxt.response_id].messages == [
            {"role": "system", "content": "sys"}, {"role": "user", "content": "q1"},
            {"role": "assistant", "content": "first answer"}, {"role": "user", "content": "q2"},
            {"role": "assistant", "content": "second answer"}]
    finally:
        await gw2.close()


async def test_connection_limit_reconnects_and_replays(gateway_factory, client_factory, monkeypatch):
    gw, _ = await gateway_factory(text="fresh")
    client = await client_factory(gw.url)
    first = await client.create(input="q1")
    await within(first.collect())
    original = gateway_module.WsSession.create
    tripped = []

    async def limited(self, obj, event_id, sid):
        if not tripped:  # the provider's 60-minute cap, as OpenAI reports it
            tripped.append(True)
            await self.error("websocket_connection_limit_reached", "Responses websocket connection limit reached "
                             "(60 minutes). Create a new websocket connection to continue.", event_id=event_id)
            await self.ws.close(1000, "limit")
            return
        await original(self, obj, event_id, sid)
    monkeypatch.setattr(gateway_module.WsSession, "create", limited)
    nxt = await client.create(input="q2", previous_response_id=first.response_id)
    events = await events_of(nxt)
    assert "reconnected" in [e.code for e in events if isinstance(e, Notice)]
    assert isinstance(events[-1], Completed) and client.reconnects == 1
    assert [m["content"] for m in gw.store[nxt.response_id].messages] == ["q1", "fresh", "q2", "fresh"]


async def test_abandon_dialect_cancel_and_next_turn(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=30)
    client = await client_factory(gw.url, provider="openai")
    stream = await client.create(input="q1", stream_id="main")
    async def consume():
        async for event in stream:
            if isinstance(event, TextDelta) and stream.stats.deltas == 3:
                await stream.cancel()
                assert stream.done  # the client answered for the server at once
    await within(consume())
    assert isinstance(stream.final, Incomplete) and stream.final.reason == "cancelled"
    assert stream.stats.deltas == 3
    # The next turn goes out on a fresh wire lane and does not queue behind the abandoned response.
    nxt = await client.create(input="q2", previous_response_id=stream.response_id, stream_id="main")
    assert nxt.wire_stream_id != "main"
    await within(nxt.collect())
    assert nxt.status == "completed" and nxt.text == TEXT
    # Chained on what the caller saw, not on what the server went on to generate.
    messages = gw.store[nxt.response_id].messages
    assert messages[:3] == [{"role": "user", "content": "q1"}, {"role": "assistant", "content": stream.text},
                            {"role": "user", "content": "q2"}]


async def test_abandon_dialect_steer_falls_back_to_a_new_turn(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=30)
    client = await client_factory(gw.url, provider="openai")
    stream = await client.create(input="q1", instructions="sys")
    seen = []

    async def consume():
        async for event in stream:
            seen.append(event)
            if isinstance(event, TextDelta) and stream.stats.deltas == 3 and not stream.history:
                await stream.steer("shorter please")
    await within(consume())
    kinds = [type(e).__name__ for e in seen if not isinstance(e, TextDelta)]
    assert kinds[0] == "Created" and kinds[-1] == "Completed"
    steered = next(e for e in seen if isinstance(e, Incomplete))
    assert steered.reason == "steered"
    assert "steer_fallback" in [e.code for e in seen if isinstance(e, Notice)]
    partial = stream.history[0][2]
    messages = gw.store[stream.response_id].messages
    assert messages[:4] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "q1"},
                            {"role": "assistant", "content": partial}, {"role": "user", "content": "shorter please"}]


async def test_reconnect_dialect_cancel(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=30)
    client = await client_factory(gw.url, provider="xai")
    stream = await client.create(input="q1")
    async def consume():
        async for event in stream:
            if isinstance(event, TextDelta) and stream.stats.deltas == 2:
                await stream.cancel()
    await within(consume())
    assert stream.final.reason == "cancelled" and stream.stats.deltas == 2
    nxt = await client.create(input="q2", previous_response_id=stream.response_id)
    await within(nxt.collect())
    assert nxt.status == "completed" and client.reconnects == 1
    # The old connection went away, so the gateway stopped the abandoned engine run.
    for _ in range(100):
        if engine.active == 0:
            break
        await asyncio.sleep(0.02)
    assert engine.active == 0


async def test_api_key_stays_out_of_reprs(gateway_factory, client_factory):
    gw, _ = await gateway_factory(token="tok-abc-123")
    client = await client_factory(gw.url, api_key="tok-abc-123")
    await client.connect()
    assert "tok-abc-123" not in repr(client) and "tok-abc-123" not in json.dumps(vars(client), default=repr)
