"""Both ends split WebSocket frames themselves on the hot path (client: server frames; gateway:
client frames) and hand every other frame to the `websockets` protocol. Whatever the chunking,
the messages, pongs, fragment reassembly, size limit and protocol errors stay as they were."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol, Side, State
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from steer_tui.server.httpio import Buffered, Head, WebSocket
from steer_tui.transport.events import Completed, Created, Disconnected, TextDelta
from tests.wire.conftest import events_of, within

LONG = "y" * 70000  # an 8-byte length field
MID = "z" * 300  # a 2-byte length field


def chunkings(data: bytes):
    """The same bytes as one read, one byte per read, and seeded random reads."""
    yield [data]
    yield [data[i:i + 1] for i in range(len(data))]
    rng = random.Random(7)
    out, at = [], 0
    while at < len(data):
        n = rng.randint(1, 40)
        out.append(data[at:at + n])
        at += n
    yield out


# -- client: a raw server that does the handshake with the sans-I/O protocol --------------


class RawServer:
    """Accepts one WebSocket by hand; `extra` goes out in the same write as the 101 response.
    Everything the client sends is parsed by a ServerProtocol (which insists on masking)."""

    def __init__(self, extra: bytes = b""):
        self.extra = extra
        self.protocol = ServerProtocol(max_size=None)
        self.frames = []
        self.received = asyncio.Event()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"ws://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1/responses"

    async def _serve(self, reader, writer):
        p = self.protocol
        p.receive_data(await reader.readuntil(b"\r\n\r\n"))
        request = next(e for e in p.events_received() if isinstance(e, Request))
        p.send_response(p.accept(request))
        writer.write(b"".join(p.data_to_send()) + self.extra)
        while data := await reader.read(65536):
            p.receive_data(data)
            self.frames += p.events_received()
            self.received.set()
            for out in p.data_to_send():  # pongs, close replies, b"" for end of stream
                if not out:
                    writer.close()
                    return
                writer.write(out)
        writer.close()

    async def wait_for(self, check):
        while not check(self.frames):
            self.received.clear()
            await within(self.received.wait())

    async def close(self):
        self.server.close()


def server_frames(*items) -> bytes:
    """Unmasked server frames made by the library (items as for client_frames)."""
    p = ServerProtocol()
    p.state = State.OPEN
    return client_frames(p, *items)


def turn_frames(rid: str, event_id: str) -> bytes:
    created = json.dumps({"type": "response.created", "event_id": event_id, "response": {"id": rid}})
    delta = lambda d: json.dumps({"type": "response.output_text.delta", "response_id": rid, "delta": d})  # noqa: E731
    done = json.dumps({"type": "response.completed", "response": {"id": rid, "output": [
        {"type": "message", "content": [{"type": "output_text", "text": "a" + MID + LONG + "bc"}]}]}})
    d_frag = json.dumps({"type": "response.output_text.delta", "response_id": rid, "delta": "c"})
    return server_frames(created, delta("a"), ("ping", b"p1"), delta(MID), delta(LONG), delta("b"),
                         ("frag", [d_frag[:7], d_frag[7:20], d_frag[20:]]), ("ping", b"p2"), done)


@pytest.fixture
async def raw_server():
    made = []

    async def make(extra: bytes = b"") -> tuple[RawServer, str]:
        server = RawServer(extra)
        made.append(server)
        return server, await server.start()

    yield make
    for server in made:
        await server.close()


async def test_client_splits_frames_whatever_the_chunking(raw_server, client_factory):
    server, url = await raw_server()
    client = await client_factory(url)
    await client.connect()
    conn = client._ws
    for n in range(3):
        stream = await client.create(input="hi")
        for piece in list(chunkings(turn_frames(f"resp_{n}", stream.event_id)))[n]:
            conn.data_received(piece)
        events = await events_of(stream)
        assert [type(e) for e in events] == [Created] + [TextDelta] * 5 + [Completed]
        assert stream.text == events[-1].text == "a" + MID + LONG + "bc"
        # Both pings of the turn were answered, in order, through the library.
        await server.wait_for(lambda frames: sum(f.opcode is Opcode.PONG for f in frames) == 2 * (n + 1))
        assert [f.data for f in server.frames if f.opcode is Opcode.PONG][-2:] == [b"p1", b"p2"]
    assert client.generation == 1


async def test_client_frames_right_behind_the_handshake(raw_server, client_factory):
    server, url = await raw_server(extra=server_frames(("ping", b"early")))
    client = await client_factory(url)
    await client.connect()
    await server.wait_for(lambda frames: any(f.opcode is Opcode.PONG for f in frames))
    assert [f.data for f in server.frames if f.opcode is Opcode.PONG] == [b"early"]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
async def test_client_sends_masked_text_frames(raw_server, client_factory, size):
    server, url = await raw_server()
    client = await client_factory(url)
    await client.connect()
    message = ("é" * size)[:size]  # non-ASCII: the length is of the UTF-8 bytes
    await client._ws.send(message)
    await server.wait_for(lambda frames: frames)  # the server protocol refuses unmasked frames
    assert server.protocol.parser_exc is None
    assert len(server.frames) == 1 and server.frames[0].opcode is Opcode.TEXT
    assert server.frames[0].data.decode() == message


async def test_client_over_size_frame_fails_the_connection_with_1009(raw_server, client_factory):
    server, url = await raw_server()
    client = await client_factory(url, max_size=1000, reconnect_attempts=1)
    await client.connect()
    stream = await client.create(input="hi")
    client._ws.data_received(turn_frames("resp_big", stream.event_id))
    events = await events_of(stream)
    assert isinstance(events[-1], Disconnected)
    await server.wait_for(lambda frames: any(f.opcode is Opcode.CLOSE for f in frames))
    close = next(f for f in server.frames if f.opcode is Opcode.CLOSE)
    assert Close.parse(close.data).code == 1009


async def test_client_masked_server_frame_is_a_protocol_error(raw_server, client_factory):
    server, url = await raw_server()
    client = await client_factory(url, reconnect_attempts=1)
    await client.connect()
    masker = ClientProtocol(parse_uri(url))
    masker.state = State.OPEN
    masker.send_text(b'{"type": "response.created"}')
    client._ws.data_received(b"".join(masker.data_to_send()))
    await server.wait_for(lambda frames: any(f.opcode is Opcode.CLOSE for f in frames))
    close = next(f for f in server.frames if f.opcode is Opcode.CLOSE)
    assert Close.parse(close.data).code == 1002


# -- gateway: WebSocket._receive fed by hand -----------------------------------------------


class _Transport:
    def is_closing(self):
        return False

    def get_write_buffer_size(self):
        return 0


class _Writer:
    def __init__(self):
        self.transport = _Transport()
        self.out = bytearray()

    def write(self, data):
        self.out += data

    def can_write_eof(self):
        return False

    async def drain(self):
        pass


def accepted_websocket(max_size: int = 1 << 20) -> tuple[WebSocket, ClientProtocol, _Writer]:
    """A gateway WebSocket after a real handshake, and the library client that spoke it."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1/v1/responses"))
    request = client.connect()
    client.send_request(request)
    raw = b"".join(client.data_to_send())
    writer = _Writer()
    ws = WebSocket(Buffered(asyncio.StreamReader()), writer, max_size)
    assert ws.handshake(Head("GET", "/v1/responses", "HTTP/1.1", {}, raw))
    client.receive_data(bytes(writer.out))
    client.events_received()  # the handshake response
    writer.out.clear()
    assert client.state is State.OPEN
    return ws, client, writer


def close_code_sent(ws: WebSocket, client: ClientProtocol, writer: _Writer) -> int:
    """The code of the close frame the gateway wrote, as the client reads it."""
    ws._flush()
    client.receive_data(bytes(writer.out))
    close = next(e for e in client.events_received() if e.opcode is Opcode.CLOSE)
    return Close.parse(close.data).code


def client_frames(client: ClientProtocol | ServerProtocol, *items) -> bytes:
    """Frames made by the library through `client`: str -> text frame, ('ping', b) -> ping,
    ('binary', b) -> binary frame, ('frag', [parts]) -> a fragmented text message."""
    for item in items:
        if isinstance(item, str):
            client.send_text(item.encode())
        elif item[0] == "ping":
            client.send_ping(item[1])
        elif item[0] == "binary":
            client.send_binary(item[1])
        else:
            parts = item[1]
            client.send_text(parts[0].encode(), fin=False)
            for i, part in enumerate(parts[1:], 2):
                client.send_continuation(part.encode(), fin=i == len(parts))
    return b"".join(client.data_to_send())


async def test_gateway_splits_client_frames_whatever_the_chunking():
    messages = ["{}", "é" + MID, LONG, "last"]
    for n in range(3):
        ws, client, writer = accepted_websocket()
        data = client_frames(client, messages[0], ("ping", b"p1"), messages[1], ("binary", b"\x00\x01"),
                             ("frag", ["ab", "cd", "ef"]), messages[2], ("ping", b"p2"), messages[3])
        got = []
        for piece in list(chunkings(data))[n]:
            got += ws._receive(piece)
        assert got == [messages[0], messages[1], b"\x00\x01", "abcdef", messages[2], messages[3]]
        ws.flush()
        ws._flush()
        client.receive_data(bytes(writer.out))
        pongs = [e.data for e in client.events_received() if e.opcode is Opcode.PONG]
        assert pongs == [b"p1", b"p2"]


async def test_gateway_refuses_unmasked_and_over_size_frames_as_the_protocol_does():
    ws, client, writer = accepted_websocket()
    server = ServerProtocol()
    server.state = State.OPEN
    server.send_text(b"{}")  # unmasked: only a server may send that
    assert ws._receive(b"".join(server.data_to_send())) == []
    assert ws.protocol.parser_exc is not None and ws.protocol.state is State.CLOSING
    assert close_code_sent(ws, client, writer) == 1002

    ws, client, writer = accepted_websocket(max_size=100)
    assert ws._receive(client_frames(client, "ok", "x" * 101)) == ["ok"]
    assert close_code_sent(ws, client, writer) == 1009


async def test_gateway_refuses_a_new_message_inside_a_fragmented_one():
    ws, client, writer = accepted_websocket()
    client.send_text(b'{"a":', fin=False)
    other = ClientProtocol(parse_uri("ws://127.0.0.1/"))  # a second frame source: the first refuses the mistake
    other.state = State.OPEN
    other.send_text(b"{}")
    assert ws._receive(b"".join(client.data_to_send() + other.data_to_send())) == []
    assert close_code_sent(ws, client, writer) == 1002


async def test_client_refuses_a_new_message_inside_a_fragmented_one(raw_server, client_factory):
    server, url = await raw_server()
    client = await client_factory(url, reconnect_attempts=1)
    await client.connect()
    first, second = ServerProtocol(), ServerProtocol()
    first.state = second.state = State.OPEN
    first.send_text(b'{"a":', fin=False)
    second.send_text(b"{}")
    client._ws.data_received(b"".join(first.data_to_send() + second.data_to_send()))
    await server.wait_for(lambda frames: any(f.opcode is Opcode.CLOSE for f in frames))
    close = next(f for f in server.frames if f.opcode is Opcode.CLOSE)
    assert Close.parse(close.data).code == 1002


def _frame(b0: int, payload: bytes, *, masked: bool) -> bytes:
    """A frame put together by hand, for headers the library will not make."""
    n = len(payload)
    head = bytes((b0,)) + (bytes((n | (0x80 if masked else 0),)) if n < 126 else
                           bytes((126 | (0x80 if masked else 0),)) + n.to_bytes(2, "big"))
    if not masked:
        return head + payload
    key = b"\x01\x02\x03\x04"
    return head + key + bytes(c ^ key[i % 4] for i, c in enumerate(payload))


BAD_HEADERS = {"unknown opcode": (0x83, b"{}"), "long ping": (0x89, b"p" * 200), "fragmented ping": (0x09, b"p"),
               "reserved bit": (0xC1, b"{}"), "continuation first": (0x80, b"{}")}


@pytest.mark.parametrize("name", list(BAD_HEADERS))
async def test_gateway_closes_on_bad_frames_as_the_protocol_does(name):
    b0, payload = BAD_HEADERS[name]
    bad = _frame(b0, payload, masked=True)
    reference = Protocol(Side.SERVER)  # the library on its own, already open
    reference.receive_data(bad)
    ws, client, writer = accepted_websocket()
    assert ws._receive(client_frames(client, "before") + bad + client_frames(client, "after")) == ["before"]
    assert ws.protocol.close_sent is not None and reference.close_sent is not None
    assert ws.protocol.close_sent.code == reference.close_sent.code


@pytest.mark.parametrize("name", list(BAD_HEADERS))
async def test_client_closes_on_bad_frames_as_the_protocol_does(raw_server, client_factory, name):
    b0, payload = BAD_HEADERS[name]
    bad = _frame(b0, payload, masked=False)
    reference = Protocol(Side.CLIENT)
    reference.receive_data(bad)
    server, url = await raw_server()
    client = await client_factory(url, reconnect_attempts=1)
    await client.connect()
    client._ws.data_received(bad)
    await server.wait_for(lambda frames: any(f.opcode is Opcode.CLOSE for f in frames))
    close = next(f for f in server.frames if f.opcode is Opcode.CLOSE)
    assert reference.close_sent is not None and Close.parse(close.data).code == reference.close_sent.code
