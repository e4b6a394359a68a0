"""The gateway: the Responses protocol over WebSocket and HTTP/SSE in front of one Engine.

One port serves `GET /v1/responses` (WebSocket upgrade), `POST /v1/responses` (JSON or
server-sent events), `POST /v1/responses/{id}/cancel` and `GET /health`. On a WebSocket,
responses on different `stream_id` lanes run side by side and one lane runs in order.
`response.cancel` and `response.steer` reach the engine through its cancel event and by
cancelling the task that pulls its deltas, so an engine that is waiting on I/O stops too.
Finished transcripts are kept (bounded in count and bytes, in memory; steer_tui/server/transcripts.py)
so `previous_response_id` chains work across connections and transports; an evicted one, or
any after a restart, is answered `previous_response_not_found` (the client then replays).

Abuse limits: a request head must arrive within `head_timeout` of its first byte (a new
connection's first head within `head_timeout` of the connect), a body within `body_timeout`;
a connection with no response in flight is closed after `idle_timeout`; at most
`max_connections` are served at once (a few more are told 503, or answered /health). Every
malformed request (bad JSON, nesting too deep, a number too long, a wrong type) is answered:
an `error` event on a WebSocket that keeps serving, a 400 over HTTP. Nothing the gateway
shows (health, events, logs, forwarded errors) carries URL userinfo or keys.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import logging
import os
import ssl as ssl_module
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

try:
    import resource
except ImportError:  # not on Windows: there is no descriptor limit to fit the cap under
    resource = None

from steer_tui import __version__
from steer_tui.netutil import is_loopback, redact, set_nodelay
from steer_tui.server.engines.base import Engine, EngineError, EngineRequest
from steer_tui.server.httpio import Buffered, Deadline, Head, HttpError, SseWriter, WebSocket, error_body, simple_response
from steer_tui.server.transcripts import DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, TranscriptStore


class _Redacting(logging.Filter):
    """Hides URL userinfo and keys in the gateway's log records, tracebacks included."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.msg, record.args = redact(record.getMessage()), None
            if record.exc_info:
                record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
                record.exc_info = None
        except Exception:  # a record that cannot be formatted: its handler reports that, as usual
            pass
        return True


log = logging.getLogger("steer.gateway")
log.addFilter(_Redacting())

PATH = "/v1/responses"
DEFAULT_MAX_FRAME = 16 * 1024 * 1024
DEFAULT_MAX_CONNECTIONS = 512
DEFAULT_HEAD_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 60.0
DEFAULT_IDLE_TIMEOUT = 300.0
# Connections over the cap that are still read (for /health) and told 503; any beyond are closed unread.
OVERFLOW_CONNECTIONS = 32
OVERFLOW_HEAD_TIMEOUT = 2.0
# File descriptors left to everything else when the cap is fitted under RLIMIT_NOFILE.
RESERVED_FDS = 128
MAX_TOKENS_LIMIT = 2**31 - 1
MAX_AVOID_CHARS = 1_000_000  # a rejected answer sent back in `avoid`
JSON_ERRORS = (ValueError, RecursionError)  # JSONDecodeError, UnicodeDecodeError, int digits limit; nesting
ROLES = {"user", "assistant", "system", "developer"}


class GatewayError(Exception):
    """The gateway cannot start (e.g. a non-loopback bind without a token)."""


class BadRequest(Exception):
    def __init__(self, code: str, message: str, param: str | None = None):
        super().__init__(message)
        self.code, self.message, self.param = code, message, param


def _shown(value) -> str:
    """A short repr of a client's value for an error message (never the whole of a huge one)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a very long integer"
        return text if len(text) <= 80 else text[:77] + "..."
    return f"a JSON {'array' if isinstance(value, list) else 'object' if isinstance(value, dict) else 'value'}"


def _json_problem(exc: Exception) -> str:
    """What is wrong with a JSON text, from the error json.loads raised."""
    if isinstance(exc, RecursionError):
        return "it is nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at position {exc.pos}"
    if isinstance(exc, UnicodeDecodeError):
        return f"it is not UTF-8 ({exc.reason} at byte {exc.start})"
    return "a number in it is too long" if "digits" in str(exc) else str(exc)[:200]


def new_id() -> str:
    return "resp_" + uuid.uuid4().hex


def normalize_input(value) -> list[dict]:
    """Responses `input` (a string or a list of message items) -> chat messages."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if not isinstance(value, list):
        raise BadRequest("invalid_type", "input must be a string or a list of message items", "input")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise BadRequest("invalid_type", f"input[{i}] must be an object", f"input[{i}]")
        kind = item.get("type", "message")
        role = item.get("role")
        if kind != "message" or not isinstance(role, str) or role not in ROLES:
            raise BadRequest("invalid_value", f"input[{i}]: only message items with role user, assistant, system "
                             f"or developer are supported (got type={_shown(kind)}, role={_shown(role)})",
                             f"input[{i}]")
        content = item.get("content")
        if isinstance(content, list):
            texts = []
            for part in content:
                if not isinstance(part, dict) or part.get("type") not in ("input_text", "output_text", "text"):
                    raise BadRequest("invalid_value", f"input[{i}].content: only text parts are supported",
                                     f"input[{i}].content")
                text = part.get("text")
                if text is not None and not isinstance(text, str):
                    raise BadRequest("invalid_type", f"input[{i}].content: a part's text must be a string",
                                     f"input[{i}].content")
                texts.append(text or "")
            content = "".join(texts)
        elif not isinstance(content, str):
            raise BadRequest("invalid_type", f"input[{i}].content must be a string or a list of text parts",
                             f"input[{i}].content")
        out.append({"role": "system" if role == "developer" else role, "content": content})
    return out


def _check(payload: dict, name: str, types, *, check=None, what: str = ""):
    value = payload.get(name)
    if value is None:
        return None
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise BadRequest("invalid_type", f"{name} must be {what}", name)
    if not isinstance(value, types) or (check is not None and not check(value)):
        raise BadRequest("invalid_type" if not isinstance(value, types) else "invalid_value", f"{name} must be {what}", name)
    return value


def _avoid(value) -> tuple[str, int, bool] | None:
    """A request's `avoid` (steer's extension): {"text": a rejected answer, "after": the character
    of it from which the new answer may depart, "skip": whether it may depart by leaving out lines
    of it (default false)}."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"text", "after", "skip"}:
        raise BadRequest("invalid_type", 'avoid must be an object {"text": string, "after": integer, "skip": boolean}',
                         "avoid")
    text, after = value.get("text"), value.get("after", 0)
    if not isinstance(text, str) or not text or len(text) > MAX_AVOID_CHARS:
        raise BadRequest("invalid_value", f"avoid.text must be a non-empty string of at most {MAX_AVOID_CHARS:,} "
                         "characters", "avoid.text")
    if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= len(text):
        raise BadRequest("invalid_value", "avoid.after must be an integer from 0 to the length of avoid.text",
                         "avoid.after")
    skip = value.get("skip", False)
    if not isinstance(skip, bool):
        raise BadRequest("invalid_type", "avoid.skip must be a boolean", "avoid.skip")
    return text, len(text[:after].encode("utf-8")), skip


MAX_PREFIX_CHARS = 100_000  # a request's `prefix`
MAX_STOPS, MAX_STOP_CHARS = 4, 64  # a request's `stop`


def _stops(value) -> tuple[str, ...]:
    """A request's `stop` (steer's extension, as in chat completions): a string or a list of up to
    four, each non-empty; the answer ends before the first of them it writes, unsent."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_STOPS \
            or not all(isinstance(v, str) and 0 < len(v) <= MAX_STOP_CHARS for v in items):
        raise BadRequest("invalid_value", f"stop must be a string or a list of 1 to {MAX_STOPS} strings, each of "
                         f"1 to {MAX_STOP_CHARS} characters", "stop")
    return tuple(items)


@dataclass
class Response:
    """One response in flight (queued or running) and, after a steer, its successors."""

    id: str
    messages: list[dict]
    session_key: str
    stream_id: str | None = None
    model: str | None = None
    previous_response_id: str | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    generate: bool = True
    event_id: str | None = None
    client: str | None = None  # the WebSocket connection it came on (EngineRequest.client)
    avoid: tuple[str, int, bool] | None = None  # EngineRequest.avoid
    prefix: str | None = None  # EngineRequest.prefix
    stops: tuple[str, ...] = ()  # EngineRequest.stop (not `stop`: that is the method)
    detach: bool = False  # a prewarm that runs on after its connection closes (Gateway.detach)
    cancel: threading.Event = field(default_factory=threading.Event)
    pump: asyncio.Task | None = None  # the task pulling deltas from the engine, while it does
    stopping: bool = False  # stop() cancelled `pump`: the CancelledError that follows is ours
    steer_input: list[dict] | None = None
    started: bool = False
    done: bool = False
    seq: itertools.count = field(default_factory=itertools.count)

    def stop(self) -> None:
        self.cancel.set()
        pump = self.pump
        if pump is not None and not self.stopping and not pump.done() and pump is not asyncio.current_task():
            # Interrupt an engine that is waiting (network, a decode thread) right now rather
            # than at its next delta; deltas produced after this point are never sent.
            self.stopping = True
            pump.cancel()


class Lane:
    def __init__(self):
        self.queue: deque[Response] = deque()
        self.task: asyncio.Task | None = None
        self.current: Response | None = None


class Gateway:
    """Serves one engine to any number of clients. `await start()` returns the WebSocket URL."""

    def __init__(self, engine: Engine, *, token: str | None = None, max_frame: int = DEFAULT_MAX_FRAME,
                 max_in_flight: int = 32, store_size: int = DEFAULT_MAX_ENTRIES, store_bytes: int = DEFAULT_MAX_BYTES,
                 allow_origins: bool = False, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 head_timeout: float | None = DEFAULT_HEAD_TIMEOUT, body_timeout: float | None = DEFAULT_BODY_TIMEOUT,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT):
        self.engine = engine
        self.token = token or None
        self.max_frame = max_frame
        self.max_in_flight = max_in_flight  # queued + running responses per connection
        # Browsers send Origin; refusing it stops a web page from driving a loopback gateway.
        self.allow_origins = allow_origins
        self.store = TranscriptStore(store_size, store_bytes)
        self.max_connections = max_connections
        self.head_timeout, self.body_timeout, self.idle_timeout = head_timeout, body_timeout, idle_timeout
        self.connections = 0  # being served (under the cap)
        self._overflow = 0  # over the cap, being told so
        self._label = ("", "")  # the engine's label and its redacted form
        self.inflight: dict[str, Response] = {}
        # Prewarms running on past their connection (detach), by response id.
        self._detached: dict[str, tuple[Response, asyncio.Task]] = {}
        self.detached_count = 0  # taken since start (/health)
        self.server: asyncio.AbstractServer | None = None
        self.url = self.http_url = ""
        self.host, self.port = "127.0.0.1", 0
        self._conn_tasks: set[asyncio.Task] = set()
        self._conn_ids = itertools.count(1)
        self._engine_started = False
        self._quiet_since = time.monotonic()  # when the last connection ended (or the gateway began)

    # -- lifecycle -------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0, *, ssl: ssl_module.SSLContext | None = None) -> str:
        if not is_loopback(host) and not self.token:
            raise GatewayError(f"refusing to bind {host}: a non-loopback address needs --token "
                               "(clients then send 'Authorization: Bearer TOKEN')")
        if not self._engine_started:
            await self.engine.start()
            self._engine_started = True
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0] if resource is not None else -1
        if soft >= 0 and self.max_connections > soft - RESERVED_FDS - OVERFLOW_CONNECTIONS:
            # Past the descriptor limit accept() fails and nothing is answered, /health included.
            fitted = max(8, soft - RESERVED_FDS - OVERFLOW_CONNECTIONS)
            log.warning("serving at most %d connections (not %d): the open-file limit is %d",
                        fitted, self.max_connections, soft)
            self.max_connections = fitted
        self.server = await asyncio.start_server(self._serve_conn, host, port, ssl=ssl,
                                                 limit=self.max_frame + 65536)
        sock = self.server.sockets[0].getsockname()
        self.host, self.port = host, sock[1]
        shown = f"[{host}]" if ":" in host else host
        self.url = f"{'wss' if ssl else 'ws'}://{shown}:{self.port}{PATH}"
        self.http_url = f"{'https' if ssl else 'http'}://{shown}:{self.port}{PATH}"
        self._quiet_since = time.monotonic()  # the idle limit counts from here, not from the model's load
        return self.url

    async def idle(self, seconds: float) -> None:
        """Returns once no connection has been open and no response in flight for `seconds`: a
        shared engine (steer_tui/transport/daemon.py) then exits instead of holding a model in
        memory that nobody uses."""
        poll = min(max(seconds / 4, 0.05), 5.0)
        while True:
            if self._conn_tasks or self.inflight:
                self._quiet_since = time.monotonic()
            elif time.monotonic() - self._quiet_since >= seconds:
                return
            await asyncio.sleep(poll)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for resp in [*self.inflight.values(), *(r for r, _ in self._detached.values())]:
            resp.stop()
        if self._detached:
            await asyncio.wait([t for _, t in self._detached.values()], timeout=5)
        for task in list(self._conn_tasks):
            task.cancel()
        if self._conn_tasks:
            await asyncio.wait(self._conn_tasks, timeout=5)
        if self.server is not None:
            await self.server.wait_closed()
            self.server = None
        if self._engine_started:
            await self.engine.close()
            self._engine_started = False

    # -- connections -----------------------------------------------------------------

    @property
    def engine_label(self) -> str:
        """The engine's label as shown (health, events): URL userinfo and keys hidden."""
        label = self.engine.label
        if label != self._label[0]:
            self._label = (label, redact(label))
        return self._label[1]

    async def _serve_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._conn_tasks.add(task)
        conn_id = f"c{next(self._conn_ids)}"
        set_nodelay(writer)
        buf = Buffered(reader)
        deadline = Deadline(writer)
        over = self.connections >= self.max_connections
        if over:
            self._overflow += 1
        else:
            self.connections += 1
        try:
            if over:
                await self._refuse_over_cap(buf, writer, deadline)
                return
            first = True
            while True:
                # A new connection's first head must come within head_timeout; on a kept-alive
                # one the wait for the next head is idle time. Once a head has begun, it must be
                # complete within head_timeout, however slowly its bytes trickle in.
                if first:
                    deadline.arm(self.head_timeout, "head", self._head_expired(writer, buf))
                else:
                    deadline.arm(self.idle_timeout, "idle")
                try:
                    head = await buf.read_head(
                        None if first else lambda: deadline.arm(self.head_timeout, "head",
                                                                self._head_expired(writer, buf)))
                except HttpError as exc:
                    writer.write(simple_response(exc.status, error_body(exc.code, exc.message), keep_alive=False))
                    break
                first = False
                if head is None:
                    break
                deadline.disarm()
                if head.is_upgrade:
                    await self._serve_websocket(conn_id, head, buf, writer, deadline)
                    break
                if not await self._serve_http(conn_id, head, buf, writer, deadline):
                    break
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        except Exception:  # one client's failure never takes the server down
            log.exception("connection %s failed", conn_id)
        finally:
            deadline.cancel()
            if over:
                self._overflow -= 1
            else:
                self.connections -= 1
            self._conn_tasks.discard(task)
            self._quiet_since = time.monotonic()
            try:
                writer.close()
            except Exception:
                pass

    @staticmethod
    def _head_expired(writer, buf: Buffered):
        def expire() -> None:
            if buf.buf:  # a head had begun: say why it ends (an empty connection is just closed)
                writer.write(simple_response(408, error_body("request_timeout", "the request head took too long"),
                                             keep_alive=False))
        return expire

    async def _refuse_over_cap(self, buf: Buffered, writer, deadline: Deadline) -> None:
        """A connection over the cap: /health is still answered, anything else gets 503."""
        if self._overflow > OVERFLOW_CONNECTIONS:
            return  # closed unread: the descriptor is needed more than the courtesy
        deadline.arm(min(self.head_timeout or OVERFLOW_HEAD_TIMEOUT, OVERFLOW_HEAD_TIMEOUT), "head")
        try:
            head = await buf.read_head()
        except HttpError:
            head = None
        if head is not None and not head.is_upgrade and head.method == "GET" \
                and head.path in ("/health", "/v1/health") and self._auth_problem(head) is None:
            writer.write(simple_response(200, self._health(), keep_alive=False))
        elif not deadline.expired:
            writer.write(simple_response(503, error_body(
                "too_many_connections", f"the gateway serves at most {self.max_connections} connections; "
                "try again shortly"), keep_alive=False, extra={"Retry-After": "1"}))
        deadline.arm(self.idle_timeout or OVERFLOW_HEAD_TIMEOUT, "idle")  # bounds the drain
        await writer.drain()

    def _health(self) -> dict:
        return {"status": "ok", "engine": self.engine.name, "label": self.engine_label,
                "model": self.engine.model_name, "features": sorted({*self.engine.features, "detach"}),
                "context_tokens": self.engine.context_tokens, "connections": self.connections,
                "max_connections": self.max_connections, "pid": os.getpid(),
                "version": __version__, "in_flight": len(self.inflight), "detached_prewarms": self.detached_count,
                **({"counters": self.engine.counters.snapshot()} if hasattr(self.engine, "counters") else {})}

    def _auth_problem(self, head: Head) -> tuple[int, str, str] | None:
        if head.header("origin") and not self.allow_origins:
            return 403, "origin_not_allowed", "requests from web pages (with an Origin header) are refused"
        if self.token:
            auth = head.header("authorization")
            given = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return 401, "unauthorized", "missing or wrong bearer token"
        return None

    # -- WebSocket -------------------------------------------------------------------

    async def _serve_websocket(self, conn_id: str, head: Head, buf: Buffered, writer, deadline: Deadline) -> None:
        ws = WebSocket(buf, writer, self.max_frame)
        problem = self._auth_problem(head)
        if head.path != PATH:
            problem = problem or (404, "not_found", f"no WebSocket endpoint at {head.path}; use {PATH}")
        if not ws.handshake(head, None if problem is None else (problem[0], problem[2])):
            deadline.arm(self.idle_timeout, "idle")  # bounds the drain
            await writer.drain()
            return
        session = WsSession(self, conn_id, ws, deadline)
        try:
            async for message in ws.messages():
                await session.handle(message)
        finally:
            await session.shutdown()
            await ws.close()

    # -- HTTP ------------------------------------------------------------------------

    async def _serve_http(self, conn_id: str, head: Head, buf: Buffered, writer, deadline: Deadline) -> bool:
        """Answer one HTTP request; False when the connection must close."""
        keep = head.keep_alive
        problem = self._auth_problem(head)
        if problem is not None:
            keep = False  # refused before its body is read: the connection cannot go on
        # Writing an answer to a client that does not read must not hold the connection forever.
        deadline.arm(self.idle_timeout, "idle")
        if head.method == "GET" and head.path in ("/health", "/v1/health") and problem is None:
            writer.write(simple_response(200, self._health(), keep_alive=keep))
            await writer.drain()
            return keep
        body = b""
        length = head.header("content-length")
        if head.method == "POST" and problem is None:
            if not (length.isascii() and length.isdigit() and len(length) <= 18):
                problem = (411, "length_required", "POST needs a Content-Length body")
                keep = False
            elif int(length) > self.max_frame:
                problem = (413, "request_too_large", f"body over {self.max_frame} bytes")
                keep = False
            else:
                deadline.arm(self.body_timeout, "body")
                try:
                    body = await buf.read_exact(int(length))
                except HttpError:
                    return False  # the client went away (or the body limit passed) mid-body
                deadline.arm(self.idle_timeout, "idle")
        if problem is None:
            if head.path == PATH and head.method == "POST":
                if "json" not in head.header("content-type").lower():
                    problem = (415, "unsupported_media_type", "send Content-Type: application/json")
                else:
                    return await self._http_create(conn_id, head, body, buf, writer, keep, deadline)
            elif head.path.startswith(PATH + "/") and head.path.endswith("/cancel") and head.method == "POST":
                rid = head.path[len(PATH) + 1:-len("/cancel")]
                resp = self.inflight.get(rid)
                if resp is None:
                    problem = (404, "response_not_found", f"no response {rid!r} in progress")
                else:
                    resp.stop()
                    writer.write(simple_response(200, {"id": rid, "status": "cancelling"}, keep_alive=keep))
                    await writer.drain()
                    return keep
            elif head.path == PATH:
                problem = (405 if head.method != "GET" else 426, "method_not_allowed",
                           f"{head.method} {PATH}: use POST, or GET with a WebSocket upgrade")
            else:
                problem = (404, "not_found", f"nothing at {head.path}")
        writer.write(simple_response(problem[0], error_body(problem[1], problem[2]), keep_alive=keep))
        await writer.drain()
        return keep

    async def _http_create(self, conn_id, head, body, buf: Buffered, writer, keep, deadline: Deadline) -> bool:
        try:
            try:
                payload = json.loads(body)
            except JSON_ERRORS as exc:
                raise BadRequest("invalid_json", f"the body is not valid JSON: {_json_problem(exc)}") from None
            if not isinstance(payload, dict):
                raise BadRequest("invalid_request", "the body must be a JSON object")
            stream = payload.get("stream", False)
            if not isinstance(stream, bool):
                raise BadRequest("invalid_type", "stream must be a boolean", "stream")
            if payload.get("detach") is True:  # an HTTP response is its connection: nothing outlives it
                raise BadRequest("invalid_value", "detach is for prewarms over the WebSocket", "detach")
            try:
                resp = self.build_response(payload, f"http:{conn_id}")
            except BadRequest:
                raise
            except Exception as exc:  # answered like the WebSocket's catch-all: a 400, and a log line
                log.exception("request on %s failed", conn_id)
                raise BadRequest("invalid_request", f"the request could not be handled ({type(exc).__name__})") \
                    from None
        except BadRequest as exc:
            status = 404 if exc.code == "previous_response_not_found" else 400
            writer.write(simple_response(status, error_body(exc.code, exc.message), keep_alive=keep))
            await writer.drain()
            return keep
        # A client that goes away mid-stream cancels the engine; bytes it sends meanwhile
        # (a pipelined request) are kept for the next head.
        async def watch():
            try:
                data = await buf.reader.read(65536)
            except (ConnectionError, OSError):  # a reset: as gone as a close
                data = b""
            if data:
                buf.buf += data
            else:
                resp.stop()
        watcher = asyncio.create_task(watch())
        deadline.disarm()  # a response in flight
        try:
            if stream:
                sse = SseWriter(writer, keep)
                await sse.start()
                final = await self.run(resp, sse.send)
                await sse.finish()
            else:
                async def discard(obj):  # only the terminal event, which run() returns, is answered
                    pass
                final = await self.run(resp, discard)
                body_obj = final.get("response") or final
                deadline.arm(self.idle_timeout, "idle")
                writer.write(simple_response(200, body_obj, keep_alive=keep))
                await writer.drain()
        except (ConnectionError, OSError):
            resp.stop()
            return False
        finally:
            deadline.arm(self.idle_timeout, "idle")
            if not watcher.done():
                watcher.cancel()
                await asyncio.wait({watcher})
        if watcher.done() and not watcher.cancelled() and resp.cancel.is_set() and not buf.buf:
            return False
        return keep

    # -- the protocol core -----------------------------------------------------------

    def build_response(self, payload: dict, session_key: str, client: str | None = None) -> Response:
        """Validate a response.create payload (WebSocket event or HTTP body) into a Response."""
        model = _check(payload, "model", str, what="a string")
        instructions = _check(payload, "instructions", str, what="a string")
        prev = _check(payload, "previous_response_id", str, what="a string")
        stream_id = _check(payload, "stream_id", str, check=lambda v: 0 < len(v) <= 200,
                           what="a non-empty string of at most 200 characters")
        max_out = _check(payload, "max_output_tokens", int, check=lambda v: 1 <= v <= MAX_TOKENS_LIMIT,
                         what=f"an integer from 1 to {MAX_TOKENS_LIMIT}")
        temperature = _check(payload, "temperature", (int, float), check=lambda v: 0 <= v <= 2,
                             what="a number between 0 and 2")
        event_id = _check(payload, "event_id", str, what="a string")
        generate = payload.get("generate", True)
        if not isinstance(generate, bool):
            raise BadRequest("invalid_type", "generate must be a boolean", "generate")
        avoid = _avoid(payload.get("avoid"))
        detach = payload.get("detach", False)
        if not isinstance(detach, bool):
            raise BadRequest("invalid_type", "detach must be a boolean", "detach")
        if detach and generate:
            raise BadRequest("invalid_value", "detach is for prewarms only (generate: false)", "detach")
        prefix = _check(payload, "prefix", str, check=lambda v: 0 < len(v) <= MAX_PREFIX_CHARS,
                        what=f"a non-empty string of at most {MAX_PREFIX_CHARS:,} characters")
        stop = _stops(payload.get("stop"))
        for name, asked in (("prefix", prefix), ("stop", stop)):
            if asked and name not in self.engine.features:
                raise BadRequest("unsupported_parameter", f"{name} is not supported by this engine "
                                 f"({self.engine_label})", name)
        items = normalize_input(payload.get("input", []))
        if prev is not None:
            stored = self.store.get(prev)
            if stored is None:
                raise BadRequest("previous_response_not_found",
                                 f"Previous response with id '{prev}' not found.", "previous_response_id")
            messages = [dict(m) for m in stored.messages]
            session_key = stored.session_key  # same chain, same engine cache slot
            if instructions is not None:
                if messages and messages[0]["role"] == "system":
                    messages[0] = {"role": "system", "content": instructions}
                else:
                    messages.insert(0, {"role": "system", "content": instructions})
        else:
            messages = [{"role": "system", "content": instructions}] if instructions else []
        messages += items
        if not messages:
            raise BadRequest("missing_input", "input is empty and there is no previous response", "input")
        return Response(new_id(), messages, session_key, stream_id, model, prev, max_out,
                        float(temperature) if temperature is not None else None, generate, event_id, client,
                        avoid=avoid, prefix=prefix, stops=stop, detach=detach)

    def _remember(self, resp: Response, output: str | None) -> None:
        output = (resp.prefix or "") + (output or "")  # the assistant's turn holds the prefix it went on from
        self.store.put(resp.id, resp.messages + ([{"role": "assistant", "content": output}] if output else []),
                       resp.session_key, resp.previous_response_id)

    def _envelope(self, resp: Response, status: str, **extra) -> dict:
        body = {"id": resp.id, "object": "response", "created_at": int(time.time()), "status": status,
                "model": resp.model or self.engine.model_name, "previous_response_id": resp.previous_response_id,
                "engine": self.engine_label}
        if resp.stream_id is not None:
            body["stream_id"] = resp.stream_id
        body.update(extra)
        return body

    def _event(self, resp: Response, kind: str, **fields) -> dict:
        obj = {"type": kind, "sequence_number": next(resp.seq), "response_id": resp.id}
        if resp.stream_id is not None:
            obj["stream_id"] = resp.stream_id
        obj.update(fields)
        return obj

    async def run(self, resp: Response, send, on_successor=None) -> dict:
        """Run `resp` (and the successors a steer creates) to the end; returns the last terminal event."""
        for other, _ in list(self._detached.values()):
            if other is not resp:
                other.stop()  # a request someone waits for goes first; what it evaluated stays cached
        while True:
            resp.started = True
            self.inflight[resp.id] = resp
            try:
                await send(self._event(resp, "response.created", response=self._envelope(resp, "in_progress")))
                final, text = await self._generate(resp, send)
            finally:
                self.inflight.pop(resp.id, None)
            if resp.steer_input is None or final["type"] == "response.failed":
                return final
            # Steer: the successor sees the partial output and the new words, on the same
            # session key so an engine with a prefix cache continues from what it evaluated.
            text = (resp.prefix or "") + text
            succ = Response(new_id(), resp.messages + ([{"role": "assistant", "content": text}] if text else [])
                            + resp.steer_input, resp.session_key, resp.stream_id, resp.model, resp.id,
                            resp.max_output_tokens, resp.temperature, True, client=resp.client)
            if on_successor is not None:
                on_successor(resp, succ)
            resp = succ

    def detach(self, resp: Response, send) -> None:
        """Run prewarm `resp` on its own task, not its connection's: it goes on after the connection
        closes (`steer edit` leaves the file it wrote evaluated for the next command on it). `send`
        reaches the connection while it is open. Any later request stops it: the engine keeps what
        it evaluated, and nobody waits behind a prewarm that nobody may use."""

        async def running() -> None:
            try:
                await self.run(resp, send)
            except Exception:  # the connection's end is send's concern; nothing else may escape a task
                log.exception("detached prewarm %s failed", resp.id)
            finally:
                self._detached.pop(resp.id, None)

        self.detached_count += 1
        self._detached[resp.id] = (resp, asyncio.create_task(running()))

    async def _pump(self, resp: Response, agen, parts: list[str], item_id: str, send) -> None:
        async for delta in agen:
            if resp.cancel.is_set():
                return  # never send a delta produced after the cancel
            if not isinstance(delta, str) or not delta:
                continue
            parts.append(delta)
            await send(self._event(resp, "response.output_text.delta", item_id=item_id, output_index=0,
                                   content_index=0, delta=delta))

    @staticmethod
    async def _close_quietly(agen) -> None:
        try:
            await agen.aclose()
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # a cancellation of our own task, not stop()'s echo
                raise
        except Exception:  # an engine's cleanup must not fail the turn
            pass

    async def _generate(self, resp: Response, send) -> tuple[dict, str]:
        request = EngineRequest(response_id=resp.id, messages=[dict(m) for m in resp.messages],
                                session_key=resp.session_key, model=resp.model,
                                max_output_tokens=resp.max_output_tokens, temperature=resp.temperature,
                                generate=resp.generate, client=resp.client, avoid=resp.avoid,
                                prefix=resp.prefix if resp.generate else None, stop=resp.stops)
        parts: list[str] = []
        failure: EngineError | None = None
        item_id = "msg_" + resp.id[5:]
        if not resp.cancel.is_set():
            agen = self.engine.stream(request, resp.cancel)
            # The deltas are pulled by the task running this response (the lane or the HTTP
            # connection), not by a task of their own: a task per response cost two loop
            # iterations per turn and split one burst of events into several writes. stop()
            # cancels this task while it is inside the pump only (resp.pump is set just for
            # that span), and the CancelledError it causes is absorbed here; any other
            # cancellation (connection closing, gateway shutdown) still propagates.
            task = asyncio.current_task()
            resp.pump = task
            try:
                await self._pump(resp, agen, parts, item_id, send)
            except asyncio.CancelledError:
                if not resp.stopping or task.uncancel() > 0:
                    resp.pump = None
                    resp.cancel.set()
                    await self._close_quietly(agen)
                    raise
            except EngineError as exc:
                failure = exc
            except (ConnectionError, OSError):
                resp.pump = None
                resp.cancel.set()
                await self._close_quietly(agen)
                raise
            except Exception as exc:  # an engine bug must not kill the connection
                log.error("engine %s failed", self.engine.name, exc_info=exc)
                failure = EngineError("engine_error", f"{type(exc).__name__}: {exc}")
            if failure is not None:
                failure.message = redact(failure.message)
            resp.pump = None
            await self._close_quietly(agen)
        text = "".join(parts)
        usage = request.usage
        if not usage.output_tokens:
            usage.output_tokens = len(parts)
        output = [{"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]}] if text else []
        resp.done = True
        if failure is not None:
            final = self._event(resp, "response.failed", response=self._envelope(
                resp, "failed", error={"code": failure.code, "message": failure.message}, output=output,
                usage=usage.to_json()))
            await send(final)
            return final, text
        reason = None
        if resp.steer_input is not None:
            reason = "steered"
        elif resp.cancel.is_set():
            reason = "cancelled"
        elif request.finish_reason == "length":
            reason = "max_output_tokens"
        elif request.finish_reason == "cancelled":
            reason = "cancelled"
        if text:
            await send(self._event(resp, "response.output_text.done", item_id=item_id, output_index=0,
                                   content_index=0, text=text))
        self._remember(resp, text)
        if reason is None:
            final = self._event(resp, "response.completed", response=self._envelope(
                resp, "completed", output=output, usage=usage.to_json()))
        else:
            final = self._event(resp, "response.incomplete", response=self._envelope(
                resp, "incomplete", incomplete_details={"reason": reason}, output=output, usage=usage.to_json()))
        await send(final)
        return final, text


class WsSession:
    """The state of one WebSocket connection: its lanes and responses in flight."""

    def __init__(self, gateway: Gateway, conn_id: str, ws: WebSocket, deadline: Deadline):
        self.gw = gateway
        self.conn_id = conn_id
        self.ws = ws
        self.lanes: dict[str | None, Lane] = {}
        # This connection's responses, queued or running, oldest first (a steer's successor
        # takes the place of the newest).
        self.responses: dict[str, Response] = {}
        self.deadline = deadline
        self._idle()

    def _idle(self) -> None:
        """(Re)start the idle limit if nothing is in flight: a connection that only holds a
        descriptor, sends pings or trickles half a frame is closed when it runs out."""
        if not self.responses:
            self.deadline.arm(self.gw.idle_timeout, "idle", self._say_idle)

    def _say_idle(self) -> None:
        self.ws.close_now(1001, "idle timeout")

    async def error(self, code: str, message: str, param: str | None = None, *, event_id=None,
                    response_id=None, stream_id=None) -> None:
        obj = {"type": "error", "error": {"type": "invalid_request_error", "code": code, "message": message,
                                          "param": param}}
        for key, value in (("event_id", event_id), ("response_id", response_id), ("stream_id", stream_id)):
            if value is not None:
                obj[key] = value
        await self.ws.send_json(obj)

    async def handle(self, message: str | bytes) -> None:
        try:
            await self._handle(message)
        except (ConnectionError, OSError):
            raise
        except Exception as exc:  # one bad event never ends the connection's other responses
            log.exception("event on %s failed", self.conn_id)
            await self.error("invalid_request", f"the event could not be handled ({type(exc).__name__})")
        finally:
            self._idle()

    async def _handle(self, message: str | bytes) -> None:
        if isinstance(message, bytes):
            await self.error("unsupported_frame", "binary frames are not supported; send JSON text frames")
            return
        try:
            obj = json.loads(message)
        except JSON_ERRORS as exc:
            await self.error("invalid_json", f"the frame is not valid JSON: {_json_problem(exc)}")
            return
        if not isinstance(obj, dict):
            await self.error("invalid_event", "an event must be a JSON object with a 'type'")
            return
        kind = obj.get("type")
        event_id = obj.get("event_id") if isinstance(obj.get("event_id"), str) else None
        sid = obj.get("stream_id") if isinstance(obj.get("stream_id"), str) else None
        if kind == "response.create":
            await self.create(obj, event_id, sid)
        elif kind == "response.cancel":
            await self.cancel(obj, event_id, sid)
        elif kind == "response.steer":
            await self.steer(obj, event_id, sid)
        else:
            await self.error("unknown_event_type", f"unknown event type {_shown(kind)}; expected response.create, "
                             "response.cancel or response.steer", "type", event_id=event_id, stream_id=sid)

    async def create(self, obj: dict, event_id, sid) -> None:
        if len(self.responses) >= self.gw.max_in_flight:
            await self.error("too_many_in_flight", f"at most {self.gw.max_in_flight} responses may be queued or "
                             "running on one connection", event_id=event_id, stream_id=sid)
            return
        try:
            resp = self.gw.build_response(obj, f"{self.conn_id}:{sid or '-'}", client=self.conn_id)
        except BadRequest as exc:
            await self.error(exc.code, exc.message, exc.param, event_id=event_id, stream_id=sid)
            return
        if resp.detach:
            self.gw.detach(resp, self._send_while_open)
            return
        self.responses[resp.id] = resp
        self.deadline.disarm()  # a response in flight
        lane = self.lanes.setdefault(resp.stream_id, Lane())
        lane.queue.append(resp)
        if lane.task is None or lane.task.done():
            lane.task = asyncio.create_task(self._run_lane(lane))

    async def _send_while_open(self, obj: dict) -> None:
        """Send `obj` if the connection is still open (a detached prewarm outlives it)."""
        try:
            await self.ws.send_json(obj)
        except (ConnectionError, OSError):
            pass

    async def _run_lane(self, lane: Lane) -> None:
        while lane.queue:
            resp = lane.queue.popleft()
            lane.current = resp
            try:
                await self.gw.run(resp, self.ws.send_json, self._successor)
                self.ws.flush()  # the terminal event leaves now, not one loop iteration later
            except (ConnectionError, OSError):
                for r in self.responses.values():
                    r.stop()
                return
            except Exception:
                log.exception("lane failed on %s", self.conn_id)
            finally:
                current, lane.current = lane.current, None
                self.responses.pop(resp.id, None)
                if current is not None:
                    self.responses.pop(current.id, None)
                self._idle()

    def _successor(self, old: Response, succ: Response) -> None:
        self.responses.pop(old.id, None)
        self.responses[succ.id] = succ
        lane = self.lanes.get(succ.stream_id)
        if lane is not None:
            lane.current = succ

    async def cancel(self, obj: dict, event_id, sid) -> None:
        rid = obj.get("response_id")
        if rid is None or not isinstance(rid, str):
            await self.error("missing_required_parameter" if rid is None else "invalid_type",
                             "response.cancel needs a response_id (a string)", "response_id",
                             event_id=event_id, stream_id=sid)
            return
        resp = self.responses.get(rid)
        if resp is None:
            # Already finished: nothing to stop, and a race with completion is not an error worth a code path.
            if rid in self.gw.store:
                return
            await self.error("response_not_found", f"no response {rid!r} in progress on this connection",
                             "response_id", event_id=event_id, response_id=rid, stream_id=sid)
            return
        resp.stop()

    async def steer(self, obj: dict, event_id, sid) -> None:
        rid = obj.get("response_id") or obj.get("previous_response_id")
        if rid is not None and not isinstance(rid, str):
            await self.ws.send_json({"type": "response.steer.failed", "response_id": None, "event_id": event_id,
                                     "error": {"code": "invalid_type", "message": "response_id must be a string",
                                               "param": "response_id"}})
            return
        target = self.responses.get(rid) if rid is not None else None
        if target is None and rid is None:
            # No id (a client that steers before its response.created arrived, e.g. in the same
            # write as its create): the newest response queued or running on this connection,
            # on the steer's lane when it names one.
            target = next((r for r in reversed(self.responses.values())
                           if not r.done and (sid is None or r.stream_id == sid)), None)
        try:
            items = normalize_input(obj.get("input", []))
            if not items:
                raise BadRequest("missing_input", "response.steer needs input", "input")
        except BadRequest as exc:
            await self.ws.send_json({"type": "response.steer.failed", "response_id": rid, "event_id": event_id,
                                     "error": {"code": exc.code, "message": exc.message, "param": exc.param}})
            return
        if target is None or target.done:
            await self.ws.send_json({"type": "response.steer.failed", "response_id": rid, "event_id": event_id,
                                     "error": {"code": "response_not_in_progress",
                                               "message": f"response {rid!r} is not in progress; "
                                                          "send response.create with previous_response_id"}})
            return
        if not target.started:
            target.messages += items  # still queued: the new words simply join its input
        else:
            target.steer_input = (target.steer_input or []) + items
            target.stop()
        msg = {"type": "response.steer.accepted", "response_id": target.id, "event_id": event_id}
        if target.stream_id is not None:
            msg["stream_id"] = target.stream_id
        await self.ws.send_json(msg)

    async def shutdown(self) -> None:
        for resp in list(self.responses.values()):
            resp.stop()
        tasks = [lane.task for lane in self.lanes.values() if lane.task is not None and not lane.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        for task in tasks:
            if not task.done():
                task.cancel()
