"""Review of the hand-written WebSocket fast path (client and gateway): what RFC 6455 and the
`websockets` library require of it beyond test_framing.py. A text message that is not UTF-8
fails the connection with 1007 on both ends (RFC 6455 8.1; the library's recv() does so)."""

from __future__ import annotations

import json

import pytest
from websockets.frames import Close, Opcode
from websockets.protocol import State

from app.transport.events import Disconnected
from tests.wire.conftest import events_of
from tests.wire.test_framing import _frame, accepted_websocket, client_frames, raw_server  # noqa: F401 (fixture)

BAD_UTF8 = b'{"type": "response.completed", "x": "\xff\xfe"}'  # \xff never occurs in UTF-8
SURROGATE = b'{"x": "\xed\xa0\x80"}'  # an encoded surrogate: not UTF-8 either


def _bad_text(masked: bool, payload: bytes, fragmented: bool) -> bytes:
    if not fragmented:
        return _frame(0x81, payload, masked=masked)
    return _frame(0x01, payload[:5], masked=masked) + _frame(0x80, payload[5:], masked=masked)


@pytest.mark.parametrize("fragmented", [False, True], ids=["whole", "fragmented"])
@pytest.mark.parametrize("payload", [BAD_UTF8, SURROGATE], ids=["xff", "surrogate"])
async def test_gateway_fails_a_text_message_that_is_not_utf8_with_1007(fragmented, payload):
    ws, client, writer = accepted_websocket()
    data = client_frames(client, "before") + _bad_text(True, payload, fragmented) + client_frames(client, "after")
    assert ws._receive(data) == ["before"]
    assert ws.protocol.state is State.CLOSING
    ws._flush()
    client.receive_data(bytes(writer.out))
    close = next(e for e in client.events_received() if e.opcode is Opcode.CLOSE)
    assert Close.parse(close.data).code == 1007


async def test_gateway_still_takes_binary_frames_that_are_not_utf8():
    ws, client, writer = accepted_websocket()
    assert ws._receive(client_frames(client, ("binary", b"\xff\xfe"), "{}")) == [b"\xff\xfe", "{}"]
    assert ws.protocol.state is State.OPEN


@pytest.mark.parametrize("fragmented", [False, True], ids=["whole", "fragmented"])
async def test_client_fails_a_text_message_that_is_not_utf8_with_1007(raw_server, client_factory,  # noqa: F811
                                                                      fragmented):
    server, url = await raw_server()
    client = await client_factory(url, reconnect_attempts=1)
    await client.connect()
    stream = await client.create(input="hi")
    created = json.dumps({"type": "response.created", "event_id": stream.event_id,
                          "response": {"id": "resp_1"}}).encode()
    client._ws.data_received(_frame(0x81, created, masked=False) + _bad_text(False, BAD_UTF8, fragmented))
    # Before: the frame was dropped as "not JSON" and the stream waited for an end that never came.
    await server.wait_for(lambda frames: any(f.opcode is Opcode.CLOSE for f in frames))
    close = next(f for f in server.frames if f.opcode is Opcode.CLOSE)
    assert Close.parse(close.data).code == 1007
    events = await events_of(stream)
    assert isinstance(events[-1], Disconnected)
