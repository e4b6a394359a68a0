"""The gateway holds nothing for a client that went away or stopped reading: no response left
in flight after a failed send, and an SSE stream to a reader that never reads stops producing."""

from __future__ import annotations

import asyncio
import json
import socket

from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway


async def test_a_response_whose_first_send_fails_is_not_left_in_flight():
    gateway = Gateway(ReplayEngine("a b c", rate="max"))
    await gateway.start("127.0.0.1", 0)
    try:
        resp = gateway.build_response({"input": "hi"}, "session-1")

        async def closed(_event):
            raise ConnectionError("WebSocket is closed")

        try:
            await gateway.run(resp, closed)
        except ConnectionError:
            pass
        assert gateway.inflight == {}
    finally:
        await gateway.close()


async def test_sse_to_a_reader_that_never_reads_stops_producing():
    # A long answer at a steady rate: each delta goes out in its own loop pass, so only the
    # transport's back-pressure can stop the engine before the whole answer is buffered.
    engine = ReplayEngine("word " * 100_000, rate=5000)
    gateway = Gateway(engine)
    await gateway.start("127.0.0.1", 0)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    try:
        await loop.sock_connect(sock, ("127.0.0.1", gateway.port))
        body = json.dumps({"input": "hi", "stream": True}).encode()
        await loop.sock_sendall(sock, b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                      b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        # Wait (bounded) until production stalls; never read a byte.
        last, still = -1, 0
        for _ in range(150):
            await asyncio.sleep(0.1)
            if engine.produced == last:
                still += 1
                if still >= 10:
                    break
            else:
                last, still = engine.produced, 0
        assert still >= 10, f"the engine kept producing for a reader that never reads ({engine.produced} deltas)"
        assert engine.produced < len(engine.tokens)
    finally:
        sock.close()
        await gateway.close()
