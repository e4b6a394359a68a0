"""The gateway and the client together: event order, cancel, steer, prewarm, lanes, bad input."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets
from websockets.asyncio.client import connect

from steer_tui.transport.events import Completed, Created, Error, Incomplete, TextDelta, TextDone
from tests.wire.conftest import TEXT, events_of, within


async def test_event_order_and_stats(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate="max")
    client = await client_factory(gw.url)
    stream = await client.create(input="add a docstring", instructions="You edit code.")
    events = await events_of(stream)
    kinds = [type(e) for e in events]
    assert kinds[0] is Created
    assert kinds[-2:] == [TextDone, Completed]
    assert set(kinds[1:-2]) == {TextDelta}
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert "".join(d.delta for d in deltas) == TEXT == stream.text == events[-1].text
    assert [d.sequence_number for d in deltas] == sorted(d.sequence_number for d in deltas)
    assert all(e.response_id == stream.response_id for e in events)
    assert stream.status == "completed"
    assert stream.stats.deltas == len(deltas)
    assert stream.stats.ttft_s is not None and stream.stats.usage["output_tokens"] == len(deltas)


async def test_one_connection_is_reused_for_every_turn(gateway_factory, client_factory):
    gw, _ = await gateway_factory()
    client = await client_factory(gw.url)
    prev = None
    for i in range(5):
        stream = await client.create(input=f"turn {i}", previous_response_id=prev)
        await within(stream.collect())
        prev = stream.response_id
    assert client.generation == 1 and client.reconnects == 0
    # The client kept the whole chain: 5 user turns and 5 answers.
    transcript = client.transcript(prev)
    assert [m["role"] for m in transcript] == ["user", "assistant"] * 5


async def test_cancel_mid_stream_stops_deltas_and_the_engine(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=20)
    client = await client_factory(gw.url)
    stream = await client.create(input="go")
    seen = []
    after_cancel = []
    async def consume():
        async for event in stream:
            if isinstance(event, TextDelta):
                if stream._interrupted:
                    after_cancel.append(event)
                seen.append(event)
                if len(seen) == 3:
                    await stream.cancel()
            elif isinstance(event, Incomplete):
                return event
    final = await within(consume())
    assert final.reason == "cancelled"
    assert after_cancel == []
    assert len(seen) == 3
    # The text is exactly what the caller was given.
    assert stream.text == final.text == "".join(d.delta for d in seen)
    # The gateway reports the end only after the engine stopped; it produced no more afterwards.
    assert engine.active == 0
    produced = engine.produced
    await asyncio.sleep(0.3)
    assert engine.produced == produced < len(TEXT) // 2
    # The connection is still good for the next turn, chained on the partial answer.
    nxt = await client.create(input="again", previous_response_id=stream.response_id)
    await within(nxt.collect())
    assert nxt.status == "completed"
    transcript = client.transcript(nxt.response_id)
    assert transcript[1]["role"] == "assistant" and TEXT.startswith(transcript[1]["content"])
    assert len(transcript[1]["content"]) < len(TEXT)


async def test_cancel_before_created_still_cancels(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=20)
    client = await client_factory(gw.url)
    stream = await client.create(input="go")
    await stream.cancel()  # no response id yet: the client cancels as soon as it has one
    events = await events_of(stream)
    assert not any(isinstance(e, TextDelta) for e in events)
    assert isinstance(events[-1], Incomplete) and events[-1].reason == "cancelled"


async def test_steer_continues_in_a_successor(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=40)
    client = await client_factory(gw.url)
    stream = await client.create(input="write f", instructions="sys")
    first_id = None
    kinds = []
    async def consume():
        nonlocal first_id
        n = 0
        async for event in stream:
            kinds.append(event)
            if isinstance(event, TextDelta) and event.response_id == stream.response_id and first_id is None:
                n += 1
                if n == 4:
                    first_id = stream.response_id
                    await stream.steer("use a lambda instead")
    await within(consume())
    names = [type(e).__name__ for e in kinds if not isinstance(e, TextDelta)]
    assert names[:1] == ["Created"]
    i = names.index("Incomplete")
    assert "SteerAccepted" in names[:i + 1]
    assert names[i + 1] == "Created" and names[-1] == "Completed"
    steered = next(e for e in kinds if isinstance(e, Incomplete))
    assert steered.reason == "steered" and steered.response_id == first_id
    created2 = [e for e in kinds if isinstance(e, Created)][1]
    assert created2.previous_response_id == first_id and created2.response_id == stream.response_id != first_id
    # No delta of the steered response after steer() returned; the successor streamed in full.
    first_deltas = [e for e in kinds if isinstance(e, TextDelta) and e.response_id == first_id]
    assert len(first_deltas) == 4
    assert stream.text == TEXT and stream.history[0][0] == first_id
    # The successor saw the partial answer and the new words.
    transcript = client.transcript(stream.response_id)
    assert transcript[0] == {"role": "system", "content": "sys"}
    assert transcript[2]["role"] == "assistant" and TEXT.startswith(transcript[2]["content"])
    assert transcript[3] == {"role": "user", "content": "use a lambda instead"}


async def test_steer_after_the_response_finished_starts_a_chained_turn(gateway_factory, client_factory):
    gw, _ = await gateway_factory(text="short answer")
    client = await client_factory(gw.url)
    stream = await client.create(input="q")
    await within(stream.collect())
    first = stream.response_id
    await stream.steer("and more")
    events = await events_of(stream)
    created = next(e for e in events if isinstance(e, Created))
    assert created.previous_response_id == first
    assert isinstance(events[-1], Completed) and stream.text == "short answer"
    assert client.transcript(stream.response_id)[-2:] == [
        {"role": "user", "content": "and more"}, {"role": "assistant", "content": "short answer"}]


async def test_prewarm_then_chain(gateway_factory, client_factory):
    gw, engine = await gateway_factory()
    client = await client_factory(gw.url)
    before = engine.produced
    rid = await within(client.prewarm(input="FILE CONTENT", instructions="sys"))
    assert rid.startswith("resp_") and engine.produced == before  # nothing generated
    stream = await client.create(input="the instruction", previous_response_id=rid)
    await within(stream.collect())
    assert stream.status == "completed"
    assert [m["content"] for m in client.transcript(stream.response_id)[:3]] == ["sys", "FILE CONTENT",
                                                                                 "the instruction"]


async def test_two_lanes_run_side_by_side(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=100)
    client = await client_factory(gw.url)
    a = await client.create(input="a", stream_id="left")
    b = await client.create(input="b", stream_id="right")
    order = []

    async def consume(stream, tag):
        async for event in stream:
            if isinstance(event, TextDelta):
                order.append(tag)
    await within(asyncio.gather(consume(a, "a"), consume(b, "b")))
    assert a.text == TEXT and b.text == TEXT
    assert a.response_id != b.response_id
    # Interleaved, not one after the other.
    first_b = order.index("b")
    assert first_b < len(order) // 2 and "a" in order[first_b:]


async def test_one_lane_runs_in_order(gateway_factory, client_factory):
    gw, engine = await gateway_factory(text="one two three four five six", rate=200)
    client = await client_factory(gw.url)
    a = await client.create(input="a", stream_id="lane")
    b = await client.create(input="b", stream_id="lane")
    marks = []

    async def consume(stream, tag):
        async for event in stream:
            marks.append((tag, type(event).__name__))
    await within(asyncio.gather(consume(a, "a"), consume(b, "b")))
    a_end = marks.index(("a", "Completed"))
    b_start = marks.index(("b", "Created"))
    assert a_end < b_start


async def test_cancel_one_lane_leaves_the_other(gateway_factory, client_factory):
    gw, engine = await gateway_factory(rate=50)
    client = await client_factory(gw.url)
    a = await client.create(input="a", stream_id="x")
    b = await client.create(input="b", stream_id="y")

    async def consume_a():
        async for event in a:
            if isinstance(event, TextDelta) and a.stats.deltas == 2:
                await a.cancel()
    await within(asyncio.gather(consume_a(), b.collect()))
    assert a.status == "incomplete" and b.status == "completed" and b.text == TEXT


async def test_malformed_frames_get_error_events_and_the_connection_stays_up(gateway_factory):
    gw, _ = await gateway_factory(text="ok")
    async with connect(gw.url) as ws:
        async def ask(frame):
            await ws.send(frame)
            return json.loads(await within(ws.recv()))
        assert (await ask("{not json"))["error"]["code"] == "invalid_json"
        assert (await ask("[1, 2]"))["error"]["code"] == "invalid_event"
        assert (await ask(json.dumps({"type": "response.explode"})))["error"]["code"] == "unknown_event_type"
        bad = await ask(json.dumps({"type": "response.create", "input": "x", "max_output_tokens": "many"}))
        assert bad["type"] == "error" and bad["error"]["param"] == "max_output_tokens"
        bad = await ask(json.dumps({"type": "response.create", "input": [{"role": "robot", "content": "x"}]}))
        assert bad["error"]["code"] == "invalid_value"
        bad = await ask(json.dumps({"type": "response.create", "input": "x", "temperature": True}))
        assert bad["error"]["param"] == "temperature"
        bad = await ask(json.dumps({"type": "response.create", "input": "x", "previous_response_id": "resp_nope",
                                    "event_id": "e1"}))
        assert bad["error"]["code"] == "previous_response_not_found" and bad["event_id"] == "e1"
        bad = await ask(json.dumps({"type": "response.cancel"}))
        assert bad["error"]["code"] == "missing_required_parameter"
        await ws.send(b"\x00\x01")
        assert json.loads(await within(ws.recv()))["error"]["code"] == "unsupported_frame"
        # Still up: a good request works on the same connection.
        await ws.send(json.dumps({"type": "response.create", "input": "x"}))
        types = []
        while not types or types[-1] != "response.completed":
            types.append(json.loads(await within(ws.recv()))["type"])
        assert types[0] == "response.created"


async def test_bad_request_through_the_client_is_an_error_event(gateway_factory, client_factory):
    gw, _ = await gateway_factory()
    client = await client_factory(gw.url)
    stream = await client.create(input=[{"role": "user", "content": [{"type": "input_image", "url": "x"}]}])
    events = await events_of(stream)
    assert isinstance(events[-1], Error) and events[-1].code == "invalid_value"
    assert stream.status == "error"
    ok = await client.create(input="fine")
    await within(ok.collect())
    assert ok.status == "completed"


async def test_frame_size_limit_closes_only_that_connection(gateway_factory, client_factory):
    gw, _ = await gateway_factory(text="ok", max_frame=4096)
    other = await client_factory(gw.url)
    await other.connect()
    async with connect(gw.url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "response.create", "input": "x" * 10000}))
        with pytest.raises(websockets.ConnectionClosed) as info:
            await within(ws.recv())
        assert info.value.rcvd is not None and info.value.rcvd.code == 1009
    stream = await other.create(input="still fine")
    assert await within(stream.collect()) == "ok"


async def test_in_flight_limit(gateway_factory, client_factory):
    gw, _ = await gateway_factory(rate=20, max_in_flight=2)
    client = await client_factory(gw.url)
    streams = [await client.create(input=str(i), stream_id="one") for i in range(3)]
    third = await events_of(streams[2])
    assert isinstance(third[-1], Error) and third[-1].code == "too_many_in_flight"
    for s in streams[:2]:
        await s.cancel()
        await within(s.wait())


async def test_one_clients_failure_does_not_affect_another(gateway_factory, client_factory):
    gw, _ = await gateway_factory(rate=100)
    good = await client_factory(gw.url)
    stream = await good.create(input="keep going")
    # A second client connects, starts a response and vanishes without closing.
    raw = await connect(gw.url)
    await raw.send(json.dumps({"type": "response.create", "input": "x"}))
    await raw.recv()
    raw.transport.abort()
    # Garbage on a third connection.
    reader, writer = await asyncio.open_connection("127.0.0.1", gw.port)
    writer.write(b"\x16\x03\x01garbage\r\n\r\n")
    await writer.drain()
    await within(reader.read())
    writer.close()
    assert await within(stream.collect()) == TEXT


async def test_http_sse_and_keep_alive(gateway_factory):
    gw, _ = await gateway_factory(text="hello there world")
    async with httpx.AsyncClient(trust_env=False) as http:
        for _ in range(2):  # the second request reuses the kept-alive connection
            async with http.stream("POST", gw.http_url, json={"input": "hi", "stream": True}) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                types, text = [], ""
                async for line in response.aiter_lines():
                    if line.startswith("data: "):
                        obj = json.loads(line[6:])
                        types.append(obj["type"])
                        text += obj.get("delta", "")
            assert types[0] == "response.created" and types[-1] == "response.completed"
            assert text == "hello there world"
        plain = await http.post(gw.http_url, json={"input": "hi"})
        assert plain.status_code == 200 and plain.json()["status"] == "completed"
        chained = await http.post(gw.http_url, json={"input": "more", "previous_response_id": plain.json()["id"]})
        assert chained.json()["previous_response_id"] == plain.json()["id"]
        bad = await http.post(gw.http_url, content=b"{", headers={"content-type": "application/json"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_json"
        assert (await http.get(gw.http_url)).status_code == 426
        assert (await http.get(gw.http_url.replace("/v1/responses", "/nope"))).status_code == 404
        assert (await http.post(gw.http_url, content=b"x", headers={"content-type": "text/plain"})).status_code == 415


async def test_token_is_checked_on_upgrade_and_http(gateway_factory, client_factory):
    from steer_tui.transport.client import ConnectError

    gw, _ = await gateway_factory(text="secret ok", token="s3cret")
    anonymous = await client_factory(gw.url, reconnect_attempts=1)
    with pytest.raises(ConnectError, match="401"):
        await anonymous.connect()
    wrong = await client_factory(gw.url, api_key="nope", reconnect_attempts=1)
    with pytest.raises(ConnectError, match="401"):
        await wrong.connect()
    right = await client_factory(gw.url, api_key="s3cret")
    assert await within((await right.create(input="x")).collect()) == "secret ok"
    async with httpx.AsyncClient(trust_env=False) as http:
        assert (await http.post(gw.http_url, json={"input": "x"})).status_code == 401
        ok = await http.post(gw.http_url, json={"input": "x"}, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200


async def test_browser_origins_are_refused(gateway_factory):
    gw, _ = await gateway_factory()
    with pytest.raises(websockets.InvalidStatus) as info:
        await connect(gw.url, origin="http://evil.example")
    assert info.value.response.status_code == 403


async def test_non_loopback_bind_without_token_is_refused():
    from steer_tui.server.engines.replay import ReplayEngine
    from steer_tui.server.gateway import Gateway, GatewayError

    gw = Gateway(ReplayEngine("x"))
    with pytest.raises(GatewayError, match="--token"):
        await gw.start("0.0.0.0", 0)
    assert gw.server is None  # nothing was bound
