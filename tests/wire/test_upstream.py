"""The upstream engine behind the real gateway, against a real OpenAI-compatible HTTP server.

The server below is a small asyncio HTTP/1.1 server speaking Chat Completions streaming
(SSE). Each test picks how it behaves: normal, HTTP 500, a malformed chunk, a cut
connection, a stall, or refusing `stream_options` like some older servers do.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from steer_tui.server.engines.upstream import UpstreamEngine, key_from_env
from steer_tui.server.gateway import Gateway
from steer_tui.transport.events import Completed, Failed, Incomplete, TextDelta
from tests.wire.conftest import events_of, within

PIECES = ["def ", "add", "(a, b", "):\n", "    return", " a + b", "\n"]


class ChatServer:
    def __init__(self, mode: str = "ok", pieces=PIECES, delay: float = 0.0):
        self.mode = mode
        self.pieces = pieces
        self.delay = delay
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.closed_early = asyncio.Event()
        self.server = None
        self.url = ""

    async def start(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    async def close(self):
        self.server.close()
        await self.server.wait_closed()

    async def handle(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            headers = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:] if l)}
            body = json.loads(await reader.readexactly(int(headers["content-length"])))
            self.requests.append(body)
            self.headers.append(headers)
            await self.respond(body, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed_early.set()
        finally:
            writer.close()

    def reply(self, writer, status: int, obj: dict):
        payload = json.dumps(obj).encode()
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
                     "Connection: close\r\n\r\n".encode() + payload)

    async def chunk(self, writer, text: str):
        data = text.encode()
        writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        await writer.drain()

    async def respond(self, body, writer):
        if self.mode == "500":
            self.reply(writer, 500, {"error": {"message": "the model is overloaded, try later", "type": "server"}})
            return
        if self.mode == "no_stream_options" and "stream_options" in body:
            self.reply(writer, 400, {"error": {"message": "Unrecognized request argument: stream_options"}})
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        await writer.drain()
        if self.mode == "stall":
            await asyncio.sleep(30)
            return
        for i, piece in enumerate(self.pieces):
            if self.mode == "malformed" and i == 2:
                await self.chunk(writer, "data: {this is not json\n\n")
                return
            if self.mode == "disconnect" and i == 3:
                writer.transport.abort()  # mid-stream, no terminating chunk
                return
            chunk = {"id": "c1", "object": "chat.completion.chunk", "model": body["model"],
                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            try:
                await self.chunk(writer, f"data: {json.dumps(chunk)}\n\n")
            except ConnectionError:
                self.closed_early.set()
                return
            if self.delay:
                await asyncio.sleep(self.delay)
                if writer.transport.is_closing() or reader_gone(writer):
                    self.closed_early.set()
                    return
        final = {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        await self.chunk(writer, f"data: {json.dumps(final)}\n\n")
        usage = {"id": "c1", "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": len(self.pieces),
                                                     "prompt_tokens_details": {"cached_tokens": 4}}}
        await self.chunk(writer, f"data: {json.dumps(usage)}\n\n")
        await self.chunk(writer, "data: [DONE]\n\n")
        writer.write(b"0\r\n\r\n")
        await writer.drain()


def reader_gone(writer) -> bool:
    transport = writer.transport
    return transport is None or transport.is_closing()


@pytest.fixture
async def upstream():
    servers = []
    gateways = []

    async def make(mode="ok", *, delay=0.0, pieces=PIECES, timeout=10.0, api_key=None):
        server = await ChatServer(mode, pieces, delay).start()
        servers.append(server)
        gw = Gateway(UpstreamEngine(server.url, "test-model", api_key=api_key, timeout=timeout))
        await gw.start("127.0.0.1", 0)
        gateways.append(gw)
        return server, gw

    yield make
    for gw in gateways:
        await gw.close()
    for server in servers:
        await server.close()


async def test_streams_from_an_openai_compatible_server(upstream, client_factory):
    server, gw = await upstream(api_key="sk-test")
    client = await client_factory(gw.url)
    stream = await client.create(input="write add", instructions="sys", max_output_tokens=50, temperature=0.2)
    events = await events_of(stream)
    assert [e.delta for e in events if isinstance(e, TextDelta)] == PIECES
    assert isinstance(events[-1], Completed) and stream.text == "".join(PIECES)
    assert stream.stats.usage["input_tokens"] == 11
    assert stream.stats.usage["input_tokens_details"]["cached_tokens"] == 4
    sent = server.requests[0]
    assert sent["stream"] is True and sent["model"] == "test-model"
    assert sent["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "write add"}]
    assert sent["max_tokens"] == 50 and sent["temperature"] == 0.2
    assert server.headers[0]["authorization"] == "Bearer sk-test"
    # A chained turn sends the whole transcript upstream (Chat Completions is stateless).
    nxt = await client.create(input="now subtract", previous_response_id=stream.response_id)
    await within(nxt.collect())
    assert [m["role"] for m in server.requests[1]["messages"]] == ["system", "user", "assistant", "user"]


async def test_upstream_500_becomes_response_failed_with_its_message(upstream, client_factory):
    server, gw = await upstream("500")
    client = await client_factory(gw.url)
    events = await events_of(await client.create(input="x"))
    assert isinstance(events[-1], Failed)
    assert events[-1].code == "upstream_error"
    assert "500" in events[-1].message and "the model is overloaded" in events[-1].message
    # The gateway and the connection survive.
    server.mode = "ok"
    assert await within((await client.create(input="y")).collect()) == "".join(PIECES)


async def test_malformed_stream(upstream, client_factory):
    server, gw = await upstream("malformed")
    client = await client_factory(gw.url)
    stream = await client.create(input="x")
    events = await events_of(stream)
    assert isinstance(events[-1], Failed) and events[-1].code == "upstream_malformed"
    assert stream.text == "".join(PIECES[:2])  # what arrived before the bad chunk is kept


async def test_mid_stream_disconnect(upstream, client_factory):
    server, gw = await upstream("disconnect")
    client = await client_factory(gw.url)
    stream = await client.create(input="x")
    events = await events_of(stream)
    assert isinstance(events[-1], Failed) and events[-1].code == "upstream_disconnected"
    assert stream.text == "".join(PIECES[:3])


async def test_timeout(upstream, client_factory):
    server, gw = await upstream("stall", timeout=0.5)
    client = await client_factory(gw.url)
    events = await events_of(await client.create(input="x"))
    assert isinstance(events[-1], Failed) and events[-1].code == "upstream_timeout"


async def test_unreachable_upstream(client_factory):
    gw = Gateway(UpstreamEngine("http://127.0.0.1:9/v1", "m"))
    await gw.start("127.0.0.1", 0)
    try:
        client = await client_factory(gw.url)
        events = await events_of(await client.create(input="x"))
        assert isinstance(events[-1], Failed) and events[-1].code == "upstream_unreachable"
    finally:
        await gw.close()


async def test_cancel_closes_the_upstream_request(upstream, client_factory):
    pieces = [f"tok{i} " for i in range(200)]
    server, gw = await upstream(delay=0.02, pieces=pieces)
    client = await client_factory(gw.url)
    stream = await client.create(input="x")

    async def consume():
        async for event in stream:
            if isinstance(event, TextDelta) and stream.stats.deltas == 3:
                await stream.cancel()
            if isinstance(event, Incomplete):
                return event
    final = await within(consume())
    assert final.reason == "cancelled"
    await within(server.closed_early.wait())  # the upstream saw its request go away
    assert stream.stats.deltas == 3


async def test_server_without_stream_options(upstream, client_factory):
    server, gw = await upstream("no_stream_options")
    client = await client_factory(gw.url)
    assert await within((await client.create(input="x")).collect()) == "".join(PIECES)
    assert "stream_options" in server.requests[0] and "stream_options" not in server.requests[1]


def test_key_from_env(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "g")
    assert key_from_env("https://api.groq.com/openai/v1") == "g"
    monkeypatch.setenv("STEER_UPSTREAM_API_KEY", "s")
    assert key_from_env("https://api.groq.com/openai/v1") == "s"
    monkeypatch.setenv("MY_KEY", "m")
    assert key_from_env("http://127.0.0.1:8000/v1", "MY_KEY") == "m"
    assert "sk-secret-123" not in repr(UpstreamEngine("http://x/v1", "m", api_key="sk-secret-123"))
