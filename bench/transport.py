"""Per-turn transport overhead: persistent WebSocket vs HTTP (new connection per turn, keep-alive).

One `steer serve --engine replay --rate max` child (a zero-delay engine playing a short
recorded text, not a model) serves both transports on one loopback port; a second one
serves them over TLS with a throwaway self-signed certificate made here with the
openssl CLI. A turn is: send the request, read events until response.completed.
The WebSocket side uses the real ResponsesClient; the HTTP side a minimal raw HTTP/1.1
client (so library overhead on the HTTP side is, if anything, understated).
Run: `python -m bench transport` (STEER_BENCH_TURNS to change the number of turns).
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import percentile, print_table

ANSWER = "ok, done."  # three deltas: the engine costs next to nothing
TURNS = int(os.environ.get("STEER_BENCH_TURNS", "300"))
WARMUP = 20


def make_cert(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def _request(port: int, *, keep_alive: bool) -> bytes:
    body = json.dumps({"input": "hi", "stream": True}).encode()
    return (f"POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
            ).encode() + body


async def _read_sse_response(reader: asyncio.StreamReader) -> str:
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace"))
    data = bytearray()
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            break
        data += chunk[:-2]
    text = data.decode()
    if "response.completed" not in text:
        raise RuntimeError("no response.completed")
    return text


async def http_new_connection(port: int, context: ssl.SSLContext | None) -> list[float]:
    request = _request(port, keep_alive=False)
    times = []
    for i in range(WARMUP + TURNS):
        t0 = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
        writer.write(request)
        await _read_sse_response(reader)
        writer.close()
        times.append(time.perf_counter() - t0)
        try:
            await writer.wait_closed()
        except (ConnectionError, ssl.SSLError):
            pass
    return times[WARMUP:]


async def http_keep_alive(port: int, context: ssl.SSLContext | None) -> list[float]:
    request = _request(port, keep_alive=True)
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    times = []
    for i in range(WARMUP + TURNS):
        t0 = time.perf_counter()
        writer.write(request)
        await _read_sse_response(reader)
        times.append(time.perf_counter() - t0)
    writer.close()
    return times[WARMUP:]


async def websocket(url: str, context: ssl.SSLContext | None) -> list[float]:
    from app.transport.client import ResponsesClient

    client = ResponsesClient(url, ssl=context)
    await client.connect()
    times = []
    prev = None
    try:
        for i in range(WARMUP + TURNS):
            t0 = time.perf_counter()
            stream = await client.create(input="hi")
            text = await stream.collect()
            times.append(time.perf_counter() - t0)
            if text != ANSWER:
                raise RuntimeError(f"unexpected answer {text!r}")
            prev = stream.response_id
    finally:
        await client.close()
    assert prev is not None
    return times[WARMUP:]


async def websocket_raw(url: str, context: ssl.SSLContext | None) -> list[float]:
    """The same turns on a bare `websockets` connection: the transport without our client's bookkeeping."""
    from websockets.asyncio.client import connect

    request = json.dumps({"type": "response.create", "input": "hi"})
    times = []
    async with connect(url, compression=None, proxy=None, **({"ssl": context} if context else {})) as ws:
        for i in range(WARMUP + TURNS):
            t0 = time.perf_counter()
            await ws.send(request)
            while json.loads(await ws.recv())["type"] != "response.completed":
                pass
            times.append(time.perf_counter() - t0)
    return times[WARMUP:]


async def run() -> list[list]:
    from app.transport.launcher import GatewayProcess

    rows = []
    with tempfile.TemporaryDirectory(prefix="steer-bench-") as tmp:
        folder = Path(tmp)
        answer = folder / "answer.txt"
        answer.write_text(ANSWER, encoding="utf-8")
        base = ["--engine", "replay", "--replay", str(answer), "--rate", "max"]
        cert, key = make_cert(folder)
        client_tls = ssl.create_default_context(cafile=str(cert))
        for tls in (False, True):
            args = base + (["--tls-cert", str(cert), "--tls-key", str(key)] if tls else [])
            gateway = await GatewayProcess.start(args)
            context = client_tls if tls else None
            try:
                results = {
                    "WebSocket, persistent (ResponsesClient)": await websocket(gateway.url, context),
                    "WebSocket, persistent (bare frames)": await websocket_raw(gateway.url, context),
                    "HTTP/SSE, keep-alive": await http_keep_alive(gateway.port, context),
                    "HTTP/SSE, new connection per turn": await http_new_connection(gateway.port, context),
                }
            finally:
                await gateway.stop()
            for name, times in results.items():
                rows.append([name, "TLS" if tls else "plain", statistics.median(times) * 1000,
                             percentile(times, 90) * 1000, len(times)])
    return rows


def main() -> int:
    rows = asyncio.run(run())
    print_table(f"transport: per-turn overhead, zero-delay replay engine ({ANSWER!r}), loopback, "
                f"{TURNS} turns each", ["transport", "tls", "median ms", "p90 ms", "turns"], rows)
    medians = {(r[0], r[1]): r[2] for r in rows}
    ratio_rows = []
    for tls in ("plain", "TLS"):
        for ws_name in ("WebSocket, persistent (ResponsesClient)", "WebSocket, persistent (bare frames)"):
            ws = medians[(ws_name, tls)]
            for other in ("HTTP/SSE, new connection per turn", "HTTP/SSE, keep-alive"):
                saving = 1 - ws / medians[(other, tls)]
                target = ">= 80%" if "new connection" in other else "-"
                met = "" if target == "-" else ("yes" if saving >= 0.8 else "NO")
                ratio_rows.append([f"{ws_name} vs {other}", tls, f"{saving * 100:.0f}%",
                                   f"{medians[(other, tls)] / ws:.1f}x", target, met])
    print_table("transport: WebSocket turn cost vs HTTP (medians)",
                ["comparison", "tls", "WebSocket turn cheaper by", "HTTP/WS", "target", "met"], ratio_rows)
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; server in a child process")
    return 0  # a benchmark reports (the 'met' column); it does not fail the run


if __name__ == "__main__":
    raise SystemExit(main())
