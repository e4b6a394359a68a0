"""Review of the hand-written WebSocket fast path (client and gateway): what RFC 6455 and the
`websockets` library require of it beyond test_framing.py. A text message that is not UTF-8
fails the connection with 1007 on both ends (RFC 6455 8.1; the library's recv() does so).
A masking key is never handed out twice: not to two threads, not to a forked child."""

from __future__ import annotations

import json
import os
import sys
import threading

import pytest
from websockets.frames import Close, Opcode
from websockets.protocol import State

from steer_tui.transport.wsconn import _client_text_frame, _MaskKeys
from steer_tui.transport.events import Disconnected
from tests.wire.conftest import events_of
from tests.wire.test_framing import (  # noqa: F401 (raw_server is a fixture)
    _frame,
    accepted_websocket,
    client_frames,
    close_code_sent,
    raw_server,
)

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
    assert close_code_sent(ws, client, writer) == 1007


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


# -- masking keys: never handed out twice, whatever runs beside the client ------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_masks_with_keys_of_its_own():
    _client_text_frame(b"warm")  # the parent's pool is filled
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send the key of its first frame and leave at once
        try:
            os.write(write, _client_text_frame(b"x")[2:6])
        finally:
            os._exit(0)
    os.close(write)
    child_key = os.read(read, 4)
    os.close(read)
    os.waitpid(pid, 0)
    # Before: the child went on with a copy of the parent's pool, so both sent the same keys.
    assert len(child_key) == 4 and child_key != _client_text_frame(b"x")[2:6]


@pytest.mark.parametrize("drawn", [1, 1023, 1024], ids=["fresh pool", "last key", "refill"])
def test_a_thread_switch_inside_next_never_hands_out_a_key_twice(drawn):
    """Another thread pauses inside _MaskKeys.next() before each of its lines in turn (as a
    switch of the GIL may), and this one draws a key meanwhile: the two keys are never the
    same pool bytes. With random keys a false alarm has odds of 2**-32."""
    k = 0
    while True:
        k += 1
        keys = _MaskKeys()
        for _ in range(drawn):
            keys.next()
        signal, resume = threading.Event(), threading.Event()
        state = {"lines": 0, "paused": False}

        def tracer(frame, event, arg):
            if frame.f_code is not _MaskKeys.next.__code__:
                return None

            def local(frame, event, arg):
                if event == "line":
                    state["lines"] += 1
                    if state["lines"] == k:
                        state["paused"] = True
                        signal.set()
                        resume.wait()
                return local
            return local

        def worker():
            sys.settrace(tracer)
            try:
                state["key"] = keys.next()
            finally:
                sys.settrace(None)
                signal.set()

        thread = threading.Thread(target=worker)
        thread.start()
        signal.wait()
        if not state["paused"]:  # it ran every line without pausing: all points were tried
            thread.join()
            break
        mine = keys.next()
        resume.set()
        thread.join()
        assert state["key"] != mine, f"the same key twice with a switch before line {k} of next()"
    assert k > 3  # the pause points were really visited
