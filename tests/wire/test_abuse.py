"""The gateway under abuse: every bad request answered, slow and idle connections closed, a cap on
connections, transcripts bounded in bytes, credentials never shown, the steer-behind-create race,
and SSE resets without stray tracebacks. Each test drives a real gateway over loopback sockets."""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import logging
import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.engines.upstream import UpstreamEngine
from steer_tui.server.gateway import Gateway
from steer_tui.transport.events import Completed, Notice
from steer_tui.wsframes import text_frame
from tests.wire.conftest import events_of, within
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = "9" * 5000


# -- small raw clients ---------------------------------------------------------------------

async def http(port: int, request: bytes, reader_writer=None):
    """Send `request` (on a new connection, or the given one) and read one response:
    (status, headers, parsed JSON body or text, (reader, writer))."""
    reader, writer = reader_writer or await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    head = await within(reader.readuntil(b"\r\n\r\n"), 10)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    body = await within(reader.readexactly(int(headers.get("content-length", "0"))), 10)
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = body.decode("utf-8", "replace")
    return status, headers, parsed, (reader, writer)


def post(body: bytes | str, path: str = "/v1/responses", extra: str = "") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            f"{extra}\r\n").encode() + data


HEALTH = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"


async def closed_within(reader: asyncio.StreamReader, seconds: float = 10) -> bytes:
    """Everything the gateway sends until it closes the connection (fails if it never does)."""
    out = b""
    while True:
        try:
            data = await within(reader.read(65536), seconds)
        except ConnectionResetError:
            return out
        if not data:
            return out
        out += data


async def ws_events_until(ws, done, seconds: float = 20) -> list[dict]:
    """Events from `ws` until `done(events)` is true."""
    events: list[dict] = []

    async def run():
        while not done(events):
            events.append(json.loads(await ws.recv()))
        return events
    return await within(run(), seconds)


async def turn(ws, payload: dict) -> list[dict]:
    await ws.send(json.dumps({"type": "response.create", **payload}))
    return await ws_events_until(ws, lambda evs: evs and evs[-1]["type"] in (
        "response.completed", "response.incomplete", "response.failed", "error"))


# -- every JSON problem is answered ----------------------------------------------------------

BAD_FRAMES = [
    (DEEP, "invalid_json"),
    ('{"type":"response.create","input":"hi","max_output_tokens":' + HUGE_INT + "}", "invalid_json"),
    ('{"type":"response.create","input":"hi","temperature":1e99999}', "invalid_value"),  # Infinity
    ('{"type":"response.create","input":5}', "invalid_type"),
    ('{"type":"response.create","input":"hi","max_output_tokens":' + "9" * 4000 + "}", "invalid_value"),
    ('{"type":"response.create","input":[{"role":' + "[" * 500 + "]" * 500 + ',"content":"x"}]}', "invalid_value"),
    ('{"type":' + "[" * 300 + "]" * 300 + "}", "unknown_event_type"),
    ('{"type":"response.create","input":[{"role":"user","content":[{"type":"input_text","text":'
     + "[" * 300 + "]" * 300 + "}]}]}", "invalid_type"),
    ('{"type":"response.cancel","response_id":{"a":1}}', "invalid_type"),
    ('{"type":"response.create","input":"hi","avoid":"an answer"}', "invalid_type"),
    ('{"type":"response.create","input":"hi","avoid":{"text":"abc","after":4}}', "invalid_value"),
    ('{"type":"response.create","input":"hi","avoid":{"text":"","after":0}}', "invalid_value"),
    ('{"type":"response.create","input":"hi","avoid":{"text":"abc","after":1,"skip":"yes"}}', "invalid_type"),
    ('{"type":"response.create","input":"hi","prefix":5}', "invalid_type"),
    ('{"type":"response.create","input":"hi","prefix":""}', "invalid_value"),
    ('{"type":"response.create","input":"hi","prefix":"x"}', "unsupported_parameter"),  # the replay engine
    ('{"type":"response.create","input":"hi","stop":[]}', "invalid_value"),
    ('{"type":"response.create","input":"hi","stop":["a","b","c","d","e"]}', "invalid_value"),
    ('{"type":"response.create","input":"hi","stop":[""]}', "invalid_value"),
    ('{"type":"response.create","input":"hi","stop":{"a":1}}', "invalid_value"),
    ("[1, 2]", "invalid_event"),
    ("\"\\ud800\"", "invalid_event"),
]


async def test_bad_json_on_a_websocket_is_an_error_event_and_the_connection_keeps_serving(gateway_factory):
    # A response in flight while the bad frames arrive: it must still finish, then the
    # connection must take another create.
    gw, _ = await gateway_factory(text="a b c d e f g h i j k l m n o", rate=40)
    async with connect(gw.url, compression=None, max_size=None) as ws:
        await ws.send(json.dumps({"type": "response.create", "input": "slow one"}))
        for frame, _ in BAD_FRAMES:
            await ws.send(frame)
        await ws.send(json.dumps({"type": "response.steer", "response_id": [1, 2], "input": "x"}))
        events = await ws_events_until(ws, lambda evs: sum(e["type"] in ("error", "response.steer.failed")
                                                           for e in evs) == len(BAD_FRAMES) + 1
                                       and any(e["type"] == "response.completed" for e in evs))
        errors = [e for e in events if e["type"] == "error"]
        assert [e["error"]["code"] for e in errors] == [code for _, code in BAD_FRAMES]
        assert all(len(e["error"]["message"]) < 400 for e in errors)  # nothing echoed whole
        steer_failed = [e for e in events if e["type"] == "response.steer.failed"]
        assert steer_failed[0]["error"]["code"] == "invalid_type" and steer_failed[0]["response_id"] is None
        completed = [e for e in events if e["type"] == "response.completed"]
        assert completed[0]["response"]["output"][0]["content"][0]["text"] == "a b c d e f g h i j k l m n o"
        after = await turn(ws, {"input": "still there?"})
        assert after[-1]["type"] == "response.completed"


@pytest.mark.parametrize("body, code", [
    (DEEP, "invalid_json"),
    ('{"input":"hi","max_output_tokens":' + HUGE_INT + "}", "invalid_json"),
    (b'{"input":"\xff\xfe"}', "invalid_json"),
    ('{"input":{"nested":' + "[" * 300 + "]" * 300 + "}}", "invalid_type"),
    ('{"input":"hi","stream":"yes"}', "invalid_type"),
    ('{"input":"hi","max_output_tokens":' + "9" * 4000 + "}", "invalid_value"),
    ("[]", "invalid_request"),
    ('{"input":[{"role":"user","content":[{"type":"input_text","text":' + "[" * 300 + "]" * 300 + "}]}]}",
     "invalid_type"),
    ('{"input":"hi","generate":false,"detach":true}', "invalid_value"),
], ids=["deep", "5000-digit-int", "not-utf8", "object-input", "string-stream", "4000-digit-int", "array",
        "nested-part-text", "detach-over-http"])
async def test_bad_json_over_http_is_a_400_and_the_connection_goes_on(gateway_factory, body, code):
    gw, _ = await gateway_factory()
    status, _, answer, conn = await http(gw.port, post(body))
    assert status == 400 and answer["error"]["code"] == code
    status, _, answer, conn = await http(gw.port, HEALTH, conn)
    assert status == 200 and answer["status"] == "ok"
    conn[1].close()


@pytest.mark.parametrize("length", ["9" * 5000, "\u00b2", "-1", "1e3"], ids=["5000-digits", "superscript-2", "-1", "1e3"])
async def test_a_content_length_that_is_not_a_plain_number_is_a_411(gateway_factory, length):
    gw, _ = await gateway_factory()
    request = (f"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               f"Content-Length: {length}\r\n\r\n").encode("latin-1")
    status, _, answer, _ = await http(gw.port, request)
    assert status == 411 and answer["error"]["code"] == "length_required"


# -- time limits and the connection cap -----------------------------------------------------

async def test_a_connection_that_sends_nothing_is_closed_after_the_head_limit(gateway_factory):
    gw, _ = await gateway_factory(head_timeout=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", gw.port)
    assert await closed_within(reader) == b""  # nothing to answer: just closed
    writer.close()
    # The gateway is still serving.
    status, _, _, _ = await http(gw.port, HEALTH)
    assert status == 200


async def test_a_head_sent_a_byte_at_a_time_is_cut_off_with_408(gateway_factory):
    gw, _ = await gateway_factory(head_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", gw.port)

    async def trickle():
        for byte in b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 1000:
            writer.write(bytes([byte]))
            await asyncio.sleep(0.05)
    sender = asyncio.create_task(trickle())
    try:
        answer = await closed_within(reader)
    finally:
        sender.cancel()
        writer.close()
    assert answer.startswith(b"HTTP/1.1 408 ")


async def test_a_keep_alive_connection_left_idle_is_closed(gateway_factory):
    gw, _ = await gateway_factory(idle_timeout=0.3)
    status, _, _, (reader, writer) = await http(gw.port, HEALTH)
    assert status == 200
    assert await closed_within(reader) == b""
    writer.close()


async def test_a_body_that_never_finishes_is_cut_off(gateway_factory):
    gw, _ = await gateway_factory(body_timeout=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", gw.port)
    writer.write(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000\r\n\r\n{\"input\":")
    assert await closed_within(reader) == b""
    writer.close()


async def test_an_idle_websocket_is_closed_but_never_while_a_response_is_in_flight(gateway_factory):
    # The answer takes ~1 s at 15 deltas/s, well over the idle limit: it must still arrive whole.
    gw, _ = await gateway_factory(text="one two three four five six seven eight nine ten eleven twelve", rate=15,
                                  idle_timeout=0.3)
    async with connect(gw.url, compression=None) as ws:
        events = await turn(ws, {"input": "go"})
        assert events[-1]["type"] == "response.completed"
        assert events[-1]["response"]["output"][0]["content"][0]["text"].endswith("twelve")
        await within(ws.wait_closed(), 10)
        assert ws.close_code == 1001 and ws.close_reason == "idle timeout"


async def test_the_real_client_reconnects_after_an_idle_close(gateway_factory, client_factory):
    gw, _ = await gateway_factory(idle_timeout=0.2)
    client = await client_factory(gw.url)
    first = await client.create(input="one")
    await events_of(first)
    await asyncio.sleep(0.6)  # the gateway closes the idle connection meanwhile
    second = await client.create(input="two", previous_response_id=first.response_id)
    events = await events_of(second)
    assert isinstance(events[-1], Completed)
    assert client.generation == 2  # a second connection, the chain intact on the gateway


async def test_the_token_is_checked_before_the_body_is_read(gateway_factory):
    gw, _ = await gateway_factory(token="s3cret-token", body_timeout=30)
    # Announces a 1 MB body and sends none of it: the refusal must not wait for it.
    request = (b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 1000000\r\n\r\n")
    status, headers, answer, (reader, writer) = await http(gw.port, request)
    assert status == 401 and headers["connection"] == "close"
    assert await closed_within(reader) == b""
    writer.close()


async def test_the_connection_cap_refuses_with_503_and_still_answers_health(gateway_factory):
    gw, _ = await gateway_factory(max_connections=2, head_timeout=30)
    held = [await asyncio.open_connection("127.0.0.1", gw.port) for _ in range(2)]

    async def until(predicate):
        for _ in range(200):
            if predicate():
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the gateway never got there")
    await until(lambda: gw.connections == 2)
    status, _, answer, _ = await http(gw.port, HEALTH)
    assert status == 200 and answer["connections"] == 2 and answer["max_connections"] == 2
    status, headers, answer, _ = await http(gw.port, post('{"input":"hi"}'))
    assert status == 503 and answer["error"]["code"] == "too_many_connections" and headers["retry-after"] == "1"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(gw.url, compression=None, open_timeout=10):
            pass
    assert refused.value.response.status_code == 503
    # A freed slot is served again.
    held[0][1].close()
    await until(lambda: gw.connections < 2)
    status, _, answer, _ = await http(gw.port, post('{"input":"hi"}'))
    assert status == 200 and answer["status"] == "completed"
    for _, writer in held[1:]:
        writer.close()


async def test_health_is_answered_while_a_flood_holds_more_connections_than_descriptors(tmp_path):
    # A real `steer serve` with 200 file descriptors and a cap asked for far above that: it fits
    # the cap under the limit, so 250 held connections never exhaust its descriptors (past the
    # limit accept() fails and nothing at all is answered).
    import resource

    replay = tmp_path / "answer.txt"
    replay.write_text("ok")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    proc = await asyncio.create_subprocess_exec(
        *STEER, "serve", "--engine", "replay", "--replay", str(replay), "--port", "0",
        "--max-connections", "5000", "--head-timeout", "60", "--exit-with-stdin", cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard)))
    held = []
    try:
        line = (await within(proc.stdout.readline(), 60)).decode()
        port = int(line.split()[3].rsplit(":", 1)[1].split("/")[0])
        for _ in range(250):
            held.append(await within(asyncio.open_connection("127.0.0.1", port), 10))
        answer = None
        for _ in range(50):  # bounded: over-cap connections are let go within about 2 s
            try:
                status, _, answer, conn = await asyncio.wait_for(http(port, HEALTH), 1)
                conn[1].close()
                if status == 200:
                    break
            except (asyncio.TimeoutError, ConnectionError, asyncio.IncompleteReadError):
                pass
            await asyncio.sleep(0.2)
        assert answer and answer.get("status") == "ok", answer
        assert answer["max_connections"] == 200 - 128 - 32 and answer["connections"] == answer["max_connections"]
    finally:
        for _, writer in held:
            writer.close()
        proc.stdin.close()
        await within(proc.wait(), 20)
    assert b"serving at most 40 connections" in await proc.stderr.read()


# -- transcripts bounded in bytes -------------------------------------------------------------

async def prewarm(ws, text: str) -> str:
    events = await turn(ws, {"input": text, "generate": False})
    assert events[-1]["type"] == "response.completed", events[-1]
    return events[-1]["response"]["id"]


async def test_transcripts_are_evicted_by_bytes_and_an_evicted_one_is_not_found(gateway_factory):
    budget = 1024 * 1024
    gw, _ = await gateway_factory(store_bytes=budget)
    size = 200 * 1024
    async with connect(gw.url, compression=None, max_size=None) as ws:
        ids = [await prewarm(ws, (f"file {i} " * size)[:size]) for i in range(12)]
        assert gw.store.bytes <= budget
        assert ids[0] not in gw.store and ids[-1] in gw.store
        assert 3 <= len(gw.store) < 12
        gone = await turn(ws, {"input": "go", "previous_response_id": ids[0]})
        assert gone[-1]["type"] == "error" and gone[-1]["error"]["code"] == "previous_response_not_found"
        kept = await turn(ws, {"input": "go", "previous_response_id": ids[-1]})
        assert kept[-1]["type"] == "response.completed"


async def test_the_newest_transcript_is_kept_even_over_the_budget(gateway_factory):
    gw, _ = await gateway_factory(store_bytes=64 * 1024)
    async with connect(gw.url, compression=None, max_size=None) as ws:
        rid = await prewarm(ws, "x" * 300_000)
        events = await turn(ws, {"input": "go", "previous_response_id": rid})
        assert events[-1]["type"] == "response.completed"


async def test_a_long_chain_over_a_big_file_counts_the_file_once(gateway_factory):
    gw, _ = await gateway_factory(store_bytes=3 * 1024 * 1024)
    async with connect(gw.url, compression=None, max_size=None) as ws:
        prev = await prewarm(ws, "y" * 1024 * 1024)
        chain = [prev]
        for i in range(20):
            events = await turn(ws, {"input": f"turn {i}", "previous_response_id": prev})
            prev = events[-1]["response"]["id"]
            chain.append(prev)
    assert all(rid in gw.store for rid in chain)  # 21 entries of over 1 MB each, one 1 MB file
    assert gw.store.bytes < 2 * 1024 * 1024


def test_the_store_charges_shared_text_while_anything_built_on_it_is_stored():
    from steer_tui.server.transcripts import MESSAGE_OVERHEAD, TranscriptStore

    store = TranscriptStore(max_entries=1, max_bytes=1 << 30)
    big = "f" * 1_000_000
    a = [{"role": "user", "content": big}, {"role": "assistant", "content": "ok"}]
    store.put("a", a, "k")
    b = [dict(m) for m in a] + [{"role": "user", "content": "more"}]
    store.put("b", b, "k", "a")  # "a" is evicted (one entry at most), its file lives on in "b"
    assert "a" not in store and 1_000_000 < store.bytes < 1_010_000
    c = [{"role": "user", "content": "unrelated"}]
    store.put("c", c, "k")
    assert store.bytes == sys.getsizeof("unrelated") + MESSAGE_OVERHEAD  # nothing holds the file now
    # Built on "c" but with its first message replaced: nothing is shared, all of it is charged.
    d = [{"role": "system", "content": "x" * 5000}, {"role": "user", "content": "unrelated again"}]
    store.max_entries = 2
    store.put("d", d, "k", "c")
    assert store.bytes == (sys.getsizeof("unrelated") + sys.getsizeof("x" * 5000)
                           + sys.getsizeof("unrelated again") + 3 * MESSAGE_OVERHEAD)


async def test_the_client_replays_a_transcript_the_gateway_evicted(gateway_factory, client_factory):
    gw, _ = await gateway_factory(store_bytes=256 * 1024)
    client = await client_factory(gw.url)
    first = await within(client.prewarm(input="a" * 200_000))
    for i in range(3):
        await within(client.prewarm(input=f"{i}" * 200_000))
    assert first not in gw.store
    stream = await client.create(input="go on", previous_response_id=first)
    events = await events_of(stream)
    assert isinstance(events[-1], Completed)
    assert any(isinstance(e, Notice) and e.code == "replayed" for e in events)


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
async def test_big_prewarms_leave_the_gateway_process_within_its_budget(tmp_path):
    # A real `steer serve`: 40 prewarms of 2 MB each (80 MB sent) with an 8 MB budget.
    replay = tmp_path / "answer.txt"
    replay.write_text("ok")
    proc = await asyncio.create_subprocess_exec(
        *STEER, "serve", "--engine", "replay", "--replay", str(replay), "--port", "0",
        "--store-mb", "8", "--exit-with-stdin", cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        line = (await within(proc.stdout.readline(), 60)).decode()
        assert line.startswith("steer serve ready:"), line
        url = line.split()[3]
        size = 2 * 1024 * 1024
        async with connect(url, compression=None, max_size=None) as ws:
            await prewarm(ws, "warm-up")
            before = _rss_kb(proc.pid)
            for i in range(40):
                await prewarm(ws, (f"prewarm {i} " * size)[:size])
        await asyncio.sleep(0.3)
        grown_mb = (_rss_kb(proc.pid) - before) / 1024
        # 8 MB of transcripts plus the last frame's buffers and the allocator's slack; without
        # a byte budget it is 80 MB and more.
        assert grown_mb < 40, f"the gateway grew by {grown_mb:.0f} MB"
    finally:
        proc.stdin.close()
        await within(proc.wait(), 20)


# -- credentials are never shown -----------------------------------------------------------

class EchoingUpstream:
    """An OpenAI-compatible server that refuses every request and echoes what it was sent
    (headers and URL) in its error body, as some proxies do."""

    def __init__(self):
        self.seen: list[tuple[str, dict]] = []

    async def start(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def handle(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            await reader.readexactly(int(headers.get("content-length", "0")))
            self.seen.append((lines[0], headers))
            payload = json.dumps({"error": {"message": f"bad credentials in {lines[0]}; headers were "
                                                       f"{json.dumps(headers)}"}}).encode()
            writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n%s" % (len(payload), payload))
            await writer.drain()
        finally:
            writer.close()

    async def close(self):
        self.server.close()
        await self.server.wait_closed()


SECRETS = ["alice", "pw-s3cret", "qk-98765", "sk-test-key-123", base64.b64encode(b"alice:pw-s3cret").decode()]


def assert_no_secret(text: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{leaked} shown in: {text[:500]}"


async def test_upstream_credentials_are_used_but_never_shown():
    upstream = await EchoingUpstream().start()
    url = f"http://alice:pw-s3cret@127.0.0.1:{upstream.port}/v1?key=qk-98765"
    engine = UpstreamEngine(url, "m", api_key="sk-test-key-123", timeout=10)
    gw = Gateway(engine)
    await gw.start("127.0.0.1", 0)
    try:
        assert_no_secret(engine.label + repr(engine))
        status, _, health, _ = await http(gw.port, HEALTH)
        assert status == 200 and "127.0.0.1" in health["label"]
        assert_no_secret(json.dumps(health))
        async with connect(gw.url, compression=None) as ws:
            events = await turn(ws, {"input": "hi"})
        assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.failed"
        message = events[-1]["response"]["error"]["message"]
        assert message.startswith("upstream HTTP 401")
        assert_no_secret(json.dumps(events))
        # The credentials did go to the upstream: Basic auth from the URL, the key in the query.
        request_line, headers = upstream.seen[0]
        assert request_line.startswith("POST /v1/chat/completions?key=qk-98765 ")
        assert headers["authorization"] == "Basic " + base64.b64encode(b"alice:pw-s3cret").decode()
    finally:
        await gw.close()
        await upstream.close()


@pytest.mark.parametrize("text, shown", [
    ("http://alice:pw-s3cret@h:8/v1", "http://***@h:8/v1"),
    ("https://alice:p@ss@h/v1 and wss://tok@h2/x", "https://***@h/v1 and wss://***@h2/x"),
    ("http://h/v1?key=qk-98765&model=m;token=t0k", "http://h/v1?key=***&model=m;token=***"),
    ('{"authorization": "Bearer sk-test-key-123"}', '{"authorization": "Bearer ***"}'),
    ("Authorization: Basic YWxpY2U6cHctczNjcmV0", "Authorization: Basic ***"),
    ("upstream http://127.0.0.1:8000/v1 (Qwen/Qwen2.5-Coder-7B)", "upstream http://127.0.0.1:8000/v1 (Qwen/Qwen2.5-Coder-7B)"),
])
def test_redact(text, shown):
    from steer_tui.netutil import redact
    assert redact(text) == shown


def test_the_gateway_log_hides_credentials(caplog):
    log = logging.getLogger("steer.gateway")
    with caplog.at_level(logging.ERROR, logger="steer.gateway"):
        try:
            raise RuntimeError("cannot reach http://alice:pw-s3cret@host/v1?key=qk-98765")
        except RuntimeError:
            log.exception("engine %s failed with %s", "upstream", "Authorization: Bearer sk-test-key-123")
    assert "engine upstream failed" in caplog.text and "RuntimeError" in caplog.text
    assert_no_secret(caplog.text)


async def test_the_ready_line_hides_credentials():
    proc = await asyncio.create_subprocess_exec(
        *STEER, "serve", "--engine", "upstream", "--model", "m", "--port", "0",
        "--upstream", "http://alice:pw-s3cret@127.0.0.1:9/v1?key=qk-98765", "--exit-with-stdin", cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=dict(os.environ, STEER_UPSTREAM_API_KEY="sk-test-key-123"))
    try:
        line = (await within(proc.stdout.readline(), 60)).decode()
        assert line.startswith("steer serve ready:") and "127.0.0.1:9/v1" in line, line
        assert_no_secret(line)
    finally:
        proc.stdin.close()
        await within(proc.wait(), 20)
    assert_no_secret((await proc.stderr.read()).decode())


# -- the steer right behind its create ---------------------------------------------------------

HANDSHAKE = (b"GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


async def read_server_frames(reader, done, seconds: float = 20) -> list[dict]:
    """Decode the gateway's (unmasked, unfragmented text) frames until `done(events)`."""
    events: list[dict] = []

    async def run():
        while not done(events):
            b0, b1 = await reader.readexactly(2)
            size = b1 & 0x7F
            if size == 126:
                size = struct.unpack("!H", await reader.readexactly(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", await reader.readexactly(8))[0]
            data = await reader.readexactly(size)
            if b0 & 0x0F == 1:
                events.append(json.loads(data))
        return events
    return await within(run(), seconds)


@pytest.mark.parametrize("stream_id", [None, "lane-a"])
async def test_a_steer_in_the_same_write_as_its_create_applies_to_it(gateway_factory, stream_id):
    gw, _ = await gateway_factory(rate="max")
    reader, writer = await asyncio.open_connection("127.0.0.1", gw.port)
    lane = {"stream_id": stream_id} if stream_id else {}
    create = {"type": "response.create", "input": "rename x", **lane}
    steer = {"type": "response.steer", "input": "and call it y", **lane}  # no id: it is not known yet
    # The handshake, the create and the steer in one write, so they arrive together.
    writer.write(HANDSHAKE + text_frame(json.dumps(create).encode(), b"abcd")
                 + text_frame(json.dumps(steer).encode(), b"efgh"))
    await writer.drain()
    await within(reader.readuntil(b"\r\n\r\n"), 10)
    events = await read_server_frames(reader, lambda evs: any(e["type"] == "response.completed" for e in evs))
    writer.close()
    created = next(e for e in events if e["type"] == "response.created")
    rid = created["response"]["id"]
    accepted = [e for e in events if e["type"] == "response.steer.accepted"]
    assert accepted and accepted[0]["response_id"] == rid, events[:3]
    assert not [e for e in events if e["type"] == "response.steer.failed"]
    # The steer's words are part of that response's transcript.
    assert [m["content"] for m in gw.store[rid].messages if m["role"] == "user"] == ["rename x", "and call it y"]


async def test_a_steer_with_no_id_redirects_the_running_response(gateway_factory):
    gw, _ = await gateway_factory(rate=20)
    async with connect(gw.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "response.create", "input": "go"}))
        await ws_events_until(ws, lambda evs: any(e["type"] == "response.output_text.delta" for e in evs))
        await ws.send(json.dumps({"type": "response.steer", "input": "no, stop there"}))
        events = await ws_events_until(ws, lambda evs: [e["type"] for e in evs].count("response.completed") == 1)
    kinds = [e["type"] for e in events]
    assert "response.steer.accepted" in kinds
    incomplete = next(e for e in events if e["type"] == "response.incomplete")
    assert incomplete["response"]["incomplete_details"]["reason"] == "steered"
    successor = next(e for e in events if e["type"] == "response.created")
    assert successor["response"]["previous_response_id"] == incomplete["response"]["id"]


# -- SSE clients that reset the connection -------------------------------------------------------

async def test_sse_clients_resetting_the_connection_leave_no_unretrieved_task_errors(gateway_factory):
    loop = asyncio.get_running_loop()
    reported: list[dict] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        gw, engine = await gateway_factory(text="word " * 2000, rate=200)
        body = json.dumps({"input": "hi", "stream": True}).encode()
        for _ in range(5):
            sock = socket.socket()
            sock.setblocking(False)
            await loop.sock_connect(sock, ("127.0.0.1", gw.port))
            await loop.sock_sendall(sock, post(body))
            await within(loop.sock_recv(sock, 4096), 10)  # the stream has begun
            # SO_LINGER 0: close() sends RST, the way a killed client or a middlebox does.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        for _ in range(250):
            if engine.active == 0:
                break
            await asyncio.sleep(0.02)
        assert engine.active == 0, "a reset SSE client left its response running"
        await asyncio.sleep(0.1)
        gc.collect()
        await asyncio.sleep(0.05)
    finally:
        loop.set_exception_handler(previous)
    assert not reported, [c.get("message") for c in reported]
    status, _, _, _ = await http(gw.port, HEALTH)
    assert status == 200
