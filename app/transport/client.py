"""The Responses-over-WebSocket client: one persistent connection, typed events, cancel and steer.

The same client talks to our gateway (`provider="gateway"`: `response.cancel` and
`response.steer` are native), to OpenAI (`"openai"`: no cancel, so an interrupt abandons
the lane and later turns move to a fresh `stream_id`) and to xAI (`"xai"`: an interrupt
reconnects). It keeps every transcript itself, so a lost server cache
(`previous_response_not_found`), a connection-age limit or a dropped connection ends in
a reconnect (with backoff) and a replay of the transcript, never in lost context.

Guarantee: once `cancel()` or `steer()` returns, no delta of the interrupted response
is yielded any more. API keys go into the Authorization header only; they are never
logged, printed or kept in a repr.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import ssl as ssl_module
import time
from collections import OrderedDict, deque
from dataclasses import dataclass

from websockets.asyncio.client import ClientConnection, connect as ws_connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidStatus, InvalidHandshake
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import State

from app.netutil import is_loopback_url, set_nodelay
from app.transport.events import (TERMINAL, Completed, Created, Disconnected, Error, Event, Failed, Incomplete,
                                  Notice, Stats, SteerAccepted, SteerFailed, TextDelta, TextDone, parse_event)
from app.wsframes import FrameSplitter, text_frame

log = logging.getLogger("steer.transport")

_END = object()
_decoder = json.JSONDecoder()
_decode, _scan = _decoder.decode, _decoder.scan_once


def _loads(text: str):
    """json.loads(text) for one message: the C scanner straight away, without decode()'s two
    whitespace regex matches and wrappers; anything else (surrounding whitespace, an error)
    goes through json's own decode(), so the result or the error is json's."""
    try:
        obj, end = _scan(text, 0)
    except StopIteration:
        return _decode(text)
    return obj if end == len(text) else _decode(text)

# Errors after which the client reconnects and replays instead of failing the turn.
RECONNECT_CODES = {"websocket_connection_limit_reached"}
REPLAY_CODES = {"previous_response_not_found"}


class Secret:
    """Holds an API key; its repr and str never show it (so a stray log or debugger dump cannot)."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = value

    def get(self) -> str | None:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret(<hidden>)" if self._value else "Secret(None)"

    __str__ = __repr__


class TransportError(Exception):
    """The client could not do what was asked (no connection, refused handshake, ...)."""


class ConnectError(TransportError):
    """No connection could be opened after the retries."""


@dataclass(frozen=True)
class Provider:
    name: str
    cancel: bool  # has response.cancel
    steer: bool  # has response.steer
    interrupt: str  # without cancel: "abandon" (move to a fresh stream_id) or "reconnect"
    send_event_ids: bool  # echoes our event_id on errors (ours does; others may reject the field)


PROVIDERS = {
    "gateway": Provider("gateway", True, True, "cancel", True),
    "openai": Provider("openai", False, False, "abandon", False),
    "xai": Provider("xai", False, False, "reconnect", False),
}


@dataclass
class _Turn:
    """What the client knows about one response, enough to replay it."""

    messages: list[dict]  # full transcript: prompt + this response's output (assistant)
    prompt: list[dict]  # full transcript before the output
    parent: str | None
    server_ok: bool  # the server's stored state matches `messages` (False after an abandon/drop)


class _Events:
    """One stream's event FIFO: a deque plus the readers waiting on it.

    It replaces asyncio.Queue on the per-delta path (one future per wait, none per item)."""

    __slots__ = ("items", "_waiters")

    def __init__(self):
        self.items: deque = deque()
        self._waiters: list[asyncio.Future] = []

    def put_nowait(self, item) -> None:
        self.items.append(item)
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def get_nowait(self):
        return self.items.popleft()

    def empty(self) -> bool:
        return not self.items

    async def get(self):
        while not self.items:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return self.items.popleft()


class _Connection(ClientConnection):
    """A `websockets` client connection with a fast path for the frames of a turn.

    Received: once the handshake is done, a FrameSplitter (app/wsframes.py) splits the byte
    stream into frames and hands each unfragmented data frame to `on_message` right there,
    inside data_received; every other frame goes to the library one whole frame at a time,
    and anything the library must refuse switches the fast path off for good.

    Sent: a text message on an open connection is framed and masked here and written in
    one call; fragmented sends, binary and non-open states go through the library.

    The library's generator-based parser, message assembler and send context cost more
    per turn than the rest of a turn's client work; the handshake, proxies, TLS, pings
    and the closing handshake stay the library's.
    """

    on_message = None  # callable(str for text | bytes for binary); set before the connection receives data
    _fragments: list[bytes] | None = None
    _fragments_text = False  # the fragmented message under way is text
    _failed = False  # failed for a text message that is not UTF-8: nothing more is delivered
    _splitter: FrameSplitter | None = None  # splits the received byte stream once the handshake is done
    _given_up = False  # the handshake was refused: the library owns the byte stream for good
    _head_tail = b""  # the end of the handshake bytes so far, to find CRLFCRLF across reads

    def data_received(self, data: bytes) -> None:
        splitter = self._splitter
        if splitter is not None and splitter.active:
            splitter.feed(data)
        elif self._given_up or self.on_message is None or self.protocol.state is not State.CONNECTING:
            super().data_received(data)
        else:
            self._receive_handshake(data)

    def _receive_handshake(self, data: bytes) -> None:
        # The library gets exactly the response head; what follows it is frames, ours to split.
        seen = self._head_tail + data
        at = seen.find(b"\r\n\r\n")
        if at < 0:
            self._head_tail = seen[-3:]
            super().data_received(data)
            return
        end = at + 4 - len(self._head_tail)
        self._head_tail = b""
        super().data_received(data[:end])
        if self.protocol.state is State.OPEN:
            # The library's limit for an unfragmented message (see Protocol.parse).
            limits = [n for n in (self.protocol.max_message_size, self.protocol.max_fragment_size) if n is not None]
            self._splitter = FrameSplitter(self.protocol, masked=False, max_size=min(limits) if limits else None,
                                           on_message=self.on_message, to_library=self._to_library,
                                           on_bad_utf8=self._invalid_utf8)
            if end < len(data):
                self._splitter.feed(data[end:])
        else:  # refused: the library reads the rest (a body) and fails
            self._given_up = True
            if end < len(data):
                super().data_received(data[end:])

    def _to_library(self, data: bytes) -> bool:
        super().data_received(data)
        return not self._failed  # after a failure the library discards the rest

    def eof_received(self) -> None:
        self._flush_partial()
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._flush_partial()
        super().connection_lost(exc)

    def _flush_partial(self) -> None:
        # A frame cut short by the end of the stream: the library sees it as it would have.
        if self._splitter is not None:
            data = self._splitter.take_rest()
            if data and self.protocol.state is not State.CLOSED:
                super().data_received(data)

    async def send(self, message, text: bool | None = None) -> None:
        if (text is None and type(message) is str and self.protocol.state is State.OPEN
                and self.send_in_progress is None and not self.paused):
            self.transport.write(_client_text_frame(message.encode()))
            if self.paused:  # that filled the write buffer: wait for it as the library does
                async with self.send_context():
                    pass
            return
        await super().send(message, text=text)

    def _invalid_utf8(self, exc: UnicodeDecodeError) -> None:
        # RFC 6455 8.1: a text message that is not UTF-8 fails the connection with 1007, as the
        # library's recv() does; no message after it is delivered and the library discards
        # every byte from here on. (Dropping it as "not JSON" left its stream waiting forever.)
        self._failed = True
        if self._splitter is not None:
            self._splitter.active = False
        self.set_connection_exc(exc)
        self.protocol.fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
        self.send_data()
        if self.close_deadline is None and self.close_timeout is not None:
            self.close_deadline = self.loop.time() + self.close_timeout

    def _deliver(self, text: bool, data) -> None:
        if not text:
            self.on_message(data)
            return
        try:
            message = bytes(data).decode()
        except UnicodeDecodeError as exc:
            self._invalid_utf8(exc)
            return
        self.on_message(message)

    def process_event(self, event) -> None:
        """Frames the library parsed (fragments, frames after the close started)."""
        handler = self.on_message
        if handler is None or self.response is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake response, or no handler
            return
        opcode = event.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if self._failed:
                return
            if event.fin:
                self._deliver(opcode is Opcode.TEXT, event.data)
            else:
                self._fragments, self._fragments_text = [bytes(event.data)], opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            if self._fragments is not None and not self._failed:
                self._fragments.append(bytes(event.data))
                if event.fin:
                    data, self._fragments = b"".join(self._fragments), None
                    self._deliver(self._fragments_text, data)
        else:
            super().process_event(event)


class _MaskKeys:
    """Masking keys (RFC 6455 5.3: fresh and unpredictable per frame) from os.urandom, fetched
    4 KiB at a time rather than one getrandom() call per frame.

    No key is handed out twice, whatever thread switch comes in between: a key's offset is
    claimed by one next() on an itertools.count (a single step under the GIL) before the pool
    is read, and a refill is a new (pool, offsets) pair whose first key is the refiller's. A
    forked child starts a pool of its own (reset), or it would send the parent's next keys."""

    __slots__ = ("_state",)

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self._state = (b"", itertools.count(0, 4))

    def next(self) -> bytes:
        pool, offsets = self._state
        at = next(offsets)
        if at + 4 > len(pool):
            pool, at = os.urandom(4096), 0
            self._state = (pool, itertools.count(4, 4))
        return pool[at:at + 4]


_mask_keys = _MaskKeys()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mask_keys.reset)


def _client_text_frame(payload: bytes) -> bytes:
    """One unfragmented text frame, masked with a fresh key (client to server)."""
    return text_frame(payload, _mask_keys.next())


def _messages_to_input(messages: list[dict]) -> list[dict]:
    return [{"type": "message", "role": m["role"], "content": m["content"]} for m in messages]


def _normalize(input_) -> list[dict]:
    if isinstance(input_, str):
        return [{"role": "user", "content": input_}]
    out = []
    for item in input_ or []:
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
        out.append({"role": item.get("role", "user"), "content": content or ""})
    return out


def _with_answer(messages: list[dict], text: str) -> list[dict]:
    """A new list: `messages` followed by the assistant's answer `text` (none for an empty answer)."""
    return [*messages, {"role": "assistant", "content": text}] if text else list(messages)


def _with_instructions(messages: list[dict], instructions: str | None) -> list[dict]:
    messages = [dict(m) for m in messages]
    if instructions is None:
        return messages
    if messages and messages[0]["role"] == "system":
        messages[0] = {"role": "system", "content": instructions}
    else:
        messages.insert(0, {"role": "system", "content": instructions})
    return messages


class ResponseStream:
    """One turn (and, after a steer, its successors). Iterate it for typed events."""

    def __init__(self, client: "ResponsesClient", stream_id: str | None, params: dict, prompt: list[dict] | None):
        self._client = client
        self.stream_id = stream_id  # the caller's lane
        self.wire_stream_id: str | None = None  # the lane on the wire (differs after an abandon)
        self.response_id: str | None = None
        self.previous_response_id: str | None = params.get("previous_response_id")
        self.params = params  # model, instructions, input (as given), max_output_tokens, ...
        self.prompt = prompt  # full transcript before the output, None if unknown (unknown previous id)
        self._parts: list[str] = []  # output of the current response so far: see `text`
        self.status = "pending"  # pending|in_progress|completed|incomplete|failed|error|disconnected|cancelled
        self.stats = Stats()
        self.final: Event | None = None  # the last terminal event
        self.history: list[tuple[str | None, str, str]] = []  # (response_id, status, text) of steered predecessors
        self.event_id: str | None = None
        self._queue = _Events()
        self._interrupted = False  # cancel() or steer() called on the current response: drop its deltas
        self._cancel_requested = False
        self._steer_words: list[dict] | None = None  # waiting for the server's answer to response.steer
        self._successor_pending = False  # a successor (steer) or resend is on its way: don't end
        self._replayed = False
        self._fallback_words: list[dict] | None = None  # steer by interrupt + new turn, after the interrupt
        self._server_text: str | None = None
        self._ws = None  # the connection the current request went out on
        self._ended = False
        self._done = asyncio.Event()

    @property
    def text(self) -> str:
        """The output of the current response so far.

        Kept as pieces and joined when read: `text += delta` on an attribute copies the whole
        text per delta (CPython's in-place concatenation needs a local), quadratic in a long answer.
        """
        parts = self._parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    @text.setter
    def text(self, value: str) -> None:
        self._parts = [value] if value else []

    # -- iteration -------------------------------------------------------------------

    def __aiter__(self):
        return self

    async def __anext__(self) -> Event:
        queue = self._queue
        item = queue.items.popleft() if queue.items else await queue.get()
        if item is _END:
            self._queue.put_nowait(_END)  # keep answering StopAsyncIteration
            raise StopAsyncIteration
        return item

    async def collect(self) -> str:
        """Consume the remaining events; returns the final text."""
        async for _ in self:
            pass
        return self.text

    async def wait(self) -> Event | None:
        """Wait until the turn (with any successors) has ended; returns the terminal event."""
        await self._done.wait()
        return self.final

    @property
    def done(self) -> bool:
        return self._ended

    # -- control ---------------------------------------------------------------------

    async def cancel(self) -> None:
        """Stop this response. After it returns no more of its deltas are yielded.

        Against our gateway the engine is stopped and the server's
        `response.incomplete` (reason "cancelled") follows; against providers without
        cancel the client makes that event itself and stops listening to the response.
        """
        if self._ended and not self._successor_pending:
            return
        self._interrupt()
        self._successor_pending = False
        self._steer_words = None
        self._fallback_words = None
        client = self._client
        if self.response_id in client._successor_of:
            del client._successor_of[self.response_id]
            client._kill_successor_of.add(self.response_id)
        if self.final is not None and not self._ended:  # the terminal already came: just end
            client._end_stream(self, self.final, self.status)
            return
        await client._interrupt(self, reason="cancelled")

    async def steer(self, words: str | list[dict]) -> "ResponseStream":
        """Redirect: stop now and continue with the partial answer plus `words`.

        Returns self; keep iterating (again, if the loop had ended) to get
        Incomplete(reason="steered"), then Created for the successor and its deltas.
        """
        items = _normalize(words)
        if not items:
            raise ValueError("steer() needs some words")
        await self._client._steer(self, items)
        return self

    # -- internals used by the client ------------------------------------------------

    def _interrupt(self) -> None:
        self._interrupted = True
        # Purge deltas already queued but not yet taken by the caller; they are the tail of
        # `text`, which then holds exactly what the caller was given.
        items = self._drain()
        dropped = sum(len(e.delta) for e in items if isinstance(e, TextDelta))
        if dropped:
            self.text = self.text[:-dropped]
            self.stats.deltas -= sum(1 for e in items if isinstance(e, TextDelta))
        for e in items:
            if not isinstance(e, TextDelta):
                self._queue.put_nowait(e)

    def _drain(self) -> list:
        items = []
        while not self._queue.empty():
            items.append(self._queue.get_nowait())
        return items

    def _push(self, event: Event) -> None:
        if self._ended and not isinstance(event, Notice):
            return
        self._queue.put_nowait(event)

    def _reopen(self) -> None:
        items = [e for e in self._drain() if e is not _END]
        for e in items:
            self._queue.put_nowait(e)
        self._ended = False
        self._done.clear()

    def _end(self, final: Event) -> None:
        self.final = final
        self._ended = True
        self._done.set()
        self._queue.put_nowait(_END)

    def _new_response(self) -> None:
        """A successor starts: the current response becomes history."""
        if self.response_id is not None or self.text:
            self.history.append((self.response_id, self.status, self.text))
        self.response_id = None
        self.text = ""
        self.status = "pending"
        # The predecessor's terminal is history too: left here, cancel() took it for this
        # response's own end and ended the stream without stopping the successor.
        self.final = None
        self.stats = Stats(sent_at=time.perf_counter())
        self._interrupted = False
        self._cancel_requested = False

    def __repr__(self) -> str:
        return f"ResponseStream(id={self.response_id!r}, stream_id={self.stream_id!r}, status={self.status!r})"


class ResponsesClient:
    """One persistent WebSocket to a Responses endpoint, reused for every turn."""

    def __init__(self, url: str, *, api_key: str | None = None, provider: str = "gateway",
                 headers: dict | None = None, model: str | None = None, ssl: ssl_module.SSLContext | None = None,
                 connect_timeout: float = 10.0, reconnect_attempts: int = 6, backoff: float = 0.1,
                 backoff_max: float = 3.0, max_size: int | None = 64 * 1024 * 1024, history_size: int = 512):
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
        self.url = url
        self.provider = PROVIDERS[provider]
        self.model = model
        self._api_key = Secret(api_key)
        self._headers = dict(headers or {})
        self._ssl = ssl
        self.connect_timeout = connect_timeout
        self.reconnect_attempts = reconnect_attempts
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.max_size = max_size
        self.history_size = history_size
        self.gateway = None  # a GatewayProcess this client owns (set by open_backend); stopped by close()
        self.reconnects = 0
        self.generation = 0  # bumps on every new connection
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task | None = None
        self._connect_lock = asyncio.Lock()
        self._closing = False
        self._event_ids = itertools.count(1)
        self._lane_alias: dict[str | None, str | None] = {}
        self._alias_n = itertools.count(1)
        self._history: OrderedDict[str, _Turn] = OrderedDict()
        self._by_id: dict[str, ResponseStream] = {}
        self._by_event: dict[str, ResponseStream] = {}
        self._waiting: dict[str | None, deque[ResponseStream]] = {}  # sent, not yet created, per wire lane
        self._active_lane: dict[str | None, ResponseStream] = {}  # streaming now, per wire lane
        self._successor_of: dict[str, ResponseStream] = {}  # steered id -> stream awaiting the successor
        self._abandoned: dict[str, str | None] = {}  # response id -> its wire lane
        self._kill_successor_of: set[str] = set()
        self._abandoned_lanes: set[str | None] = set()
        self._streams: set[ResponseStream] = set()  # not ended
        self._tasks: set[asyncio.Task] = set()

    def __repr__(self) -> str:
        return f"ResponsesClient(url={self.url!r}, provider={self.provider.name!r}, connected={self.connected})"

    async def __aenter__(self):
        await self.connect()
        return self

    async def __aexit__(self, *exc):
        await self.close()

    @property
    def connected(self) -> bool:
        return self._ws is not None

    # -- connection ------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the connection now (turns also connect lazily), retrying with backoff."""
        await self._ensure_connected()

    async def _open_once(self) -> ClientConnection:
        headers = dict(self._headers)
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.get()}"
        kwargs = {}
        if self._ssl is not None:
            kwargs["ssl"] = self._ssl

        def make_connection(*args, **kw) -> _Connection:
            conn = _Connection(*args, **kw)
            conn.on_message = self._on_message
            return conn

        return await ws_connect(self.url, additional_headers=headers, compression=None,
                                open_timeout=self.connect_timeout, max_size=self.max_size,
                                proxy=None if is_loopback_url(self.url) else True,
                                create_connection=make_connection, **kwargs)

    async def _ensure_connected(self) -> ClientConnection:
        if self._ws is not None:
            return self._ws
        async with self._connect_lock:
            if self._ws is not None:
                return self._ws
            delay = self.backoff
            last: Exception | None = None
            for attempt in range(max(1, self.reconnect_attempts)):
                if attempt:
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, self.backoff_max)
                try:
                    ws = await self._open_once()
                except InvalidStatus as exc:
                    status = exc.response.status_code
                    if status in (401, 403, 404):  # retrying will not help
                        body = exc.response.body.decode("utf-8", "replace").strip()[:200]
                        raise ConnectError(f"{self.url} refused the connection: HTTP {status} {body}") from None
                    last = exc
                except (OSError, asyncio.TimeoutError, InvalidHandshake) as exc:
                    last = exc
                else:
                    if self.generation:
                        self.reconnects += 1
                    self.generation += 1
                    # Ids and lanes abandoned on the old connection cannot appear on this one.
                    self._abandoned.clear()
                    self._abandoned_lanes.clear()
                    set_nodelay(ws.transport)
                    self._ws = ws
                    self._reader = asyncio.create_task(self._read_loop(ws))
                    return ws
            raise ConnectError(f"cannot connect to {self.url} after {max(1, self.reconnect_attempts)} "
                               f"attempts: {type(last).__name__}: {last}")

    async def close(self) -> None:
        """Close the connection (ending open streams) and stop an owned gateway."""
        self._closing = True
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()
        if self._reader is not None:
            await asyncio.wait({self._reader}, timeout=5)
        for task in list(self._tasks):
            task.cancel()
        for stream in list(self._streams):
            self._end_stream(stream, Disconnected(stream.response_id, stream.stream_id,
                                                  "the client was closed", stream.text), "disconnected")
        if self.gateway is not None:
            await self.gateway.stop()
        self._closing = False

    async def reconnect(self) -> None:
        """Drop the connection and open a new one (responses in flight end as Disconnected)."""
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()
            if self._reader is not None:
                await asyncio.wait({self._reader}, timeout=5)
        await self._ensure_connected()

    def _on_message(self, raw) -> None:
        """Called by the connection, inside data_received, for each complete message."""
        try:
            obj = _loads(raw.decode() if not isinstance(raw, str) else raw)
        except (TypeError, ValueError):  # UnicodeDecodeError is a ValueError
            log.warning("ignoring a frame that is not JSON")
            return
        if isinstance(obj, dict):
            try:
                self._dispatch(obj)
            except Exception:  # a client bug must not silently stall every stream
                log.exception("dispatching %s failed", obj.get("type"))

    async def _read_loop(self, ws: ClientConnection) -> None:
        """Messages are dispatched as they arrive (_on_message); this waits for the end."""
        reason = "the server closed the connection"
        try:
            await ws.wait_closed()
            exc = ws.protocol.close_exc
            if not isinstance(exc, ConnectionClosedOK):
                reason = f"connection lost ({exc})"
        except Exception as exc:
            reason = f"connection lost ({type(exc).__name__}: {exc})"
        finally:
            self._lost(ws, reason)

    def _lost(self, ws: ClientConnection, reason: str) -> None:
        if self._ws is ws:
            self._ws = None
        # Streams on that connection: a response under way keeps what arrived and ends as
        # Disconnected; a request not yet answered is sent again on a new connection.
        for stream in list(self._streams):
            if stream._ws is not ws:
                continue
            if stream.response_id is None and stream.status == "pending" and not self._closing:
                self._forget_routes(stream)
                self._spawn(self._resend(stream, notice=("reconnecting", f"{reason}; sending the request again")))
                continue
            if stream.response_id is not None and stream.prompt is not None:
                self._remember(stream.response_id, stream.prompt, stream.text, stream.previous_response_id,
                               server_ok=False)
            msg = (f"{reason} after {stream.stats.deltas} deltas of response {stream.response_id}; "
                   "the partial text is kept" if stream.response_id else reason)
            self._end_stream(stream, Disconnected(stream.response_id, stream.stream_id, msg, stream.text),
                             "disconnected")

    def _retire(self, ws) -> None:
        """Stop using `ws` for new requests and close it; the reader then runs _lost()."""
        if self._ws is ws:
            self._ws = None
        if ws is not None:
            self._spawn(ws.close())

    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- requests --------------------------------------------------------------------

    async def create(self, *, input, model: str | None = None, instructions: str | None = None,
                     previous_response_id: str | None = None, stream_id: str | None = None,
                     max_output_tokens: int | None = None, temperature: float | None = None,
                     generate: bool = True, extra: dict | None = None) -> ResponseStream:
        """Send response.create; returns the stream at once (raises ConnectError without a connection)."""
        params = {"model": model or self.model, "instructions": instructions, "input": input,
                  "previous_response_id": previous_response_id, "max_output_tokens": max_output_tokens,
                  "temperature": temperature, "generate": generate, "extra": extra or {}}
        items = _normalize(input)
        prompt = None
        if previous_response_id is None:
            prompt = _with_instructions([], instructions) + items
        elif previous_response_id in self._history:
            prompt = _with_instructions(self._history[previous_response_id].messages, instructions) + items
        stream = ResponseStream(self, stream_id, params, prompt)
        self._streams.add(stream)
        try:
            await self._send_create(stream)
        except BaseException:
            self._streams.discard(stream)
            raise
        return stream

    async def prewarm(self, *, input, model: str | None = None, instructions: str | None = None,
                      stream_id: str | None = None, previous_response_id: str | None = None) -> str:
        """`generate: false`: have the server evaluate and cache the prompt; returns a chainable id."""
        stream = await self.create(input=input, model=model, instructions=instructions, stream_id=stream_id,
                                   previous_response_id=previous_response_id, generate=False)
        try:
            final = await stream.wait()
        except asyncio.CancelledError:
            # Superseded (the file changed again) or closing: the server must not go on
            # evaluating a prompt nobody will use while the next request waits in its lane.
            stopping = asyncio.ensure_future(stream.cancel())
            stopping.add_done_callback(lambda t: t.cancelled() or t.exception())
            raise
        if not isinstance(final, Completed) or stream.response_id is None:
            detail = getattr(final, "message", "") or getattr(final, "reason", "") or type(final).__name__
            raise TransportError(f"prewarm failed: {detail}")
        return stream.response_id

    def transcript(self, response_id: str) -> list[dict] | None:
        """The full chat transcript up to and including `response_id`'s output, as the client kept it."""
        turn = self._history.get(response_id)
        return [dict(m) for m in turn.messages] if turn else None

    def _wire_lane(self, stream_id: str | None) -> str | None:
        return self._lane_alias.get(stream_id, stream_id)

    def _payload(self, stream: ResponseStream, *, replay: bool) -> dict:
        p = stream.params
        payload = {"type": "response.create"}
        if p["model"]:
            payload["model"] = p["model"]
        prev = p["previous_response_id"]
        turn = self._history.get(prev) if prev else None
        if prev and turn is not None and not replay and not turn.server_ok:
            # The server never had this chain as we know it (a drop or an abandon cut the
            # answer short): send the whole transcript rather than a wrong chain.
            replay = True
            stream._push(Notice(None, stream.stream_id, "replayed",
                                "sent the whole transcript: the server does not hold the previous response "
                                "as this client knows it"))
        if replay and stream.prompt is not None:
            payload["input"] = _messages_to_input(stream.prompt)
            stream._replayed = True
        else:
            if prev:
                payload["previous_response_id"] = prev
            if p["instructions"] is not None:
                payload["instructions"] = p["instructions"]
            payload["input"] = p["input"] if not isinstance(p["input"], list) else [
                dict(i, type=i.get("type", "message")) if isinstance(i, dict) else i for i in p["input"]]
        for key in ("max_output_tokens", "temperature"):
            if p[key] is not None:
                payload[key] = p[key]
        if not p["generate"]:
            payload["generate"] = False
        payload.update(p["extra"])
        wire_lane = self._wire_lane(stream.stream_id)
        stream.wire_stream_id = wire_lane
        if wire_lane is not None:
            payload["stream_id"] = wire_lane
        if self.provider.send_event_ids:
            stream.event_id = f"evt_{next(self._event_ids)}"
            payload["event_id"] = stream.event_id
        return payload

    async def _send_create(self, stream: ResponseStream, *, replay: bool = False) -> None:
        ws = await self._ensure_connected()
        payload = self._payload(stream, replay=replay)
        stream.status = "pending"
        stream._ws = ws
        self._waiting.setdefault(stream.wire_stream_id, deque()).append(stream)
        if stream.event_id:
            self._by_event[stream.event_id] = stream
        stream.stats.sent_at = time.perf_counter()
        try:
            await ws.send(json.dumps(payload))
        except ConnectionClosed:
            # Normally the reader notices and _lost() resends this pending request; if it
            # already ran, nobody else will.
            if self._ws is not ws and stream.status == "pending":
                self._forget_routes(stream)
                self._spawn(self._resend(stream, notice=("reconnecting", "connection lost; sending again")))

    async def _resend(self, stream: ResponseStream, *, replay: bool = False, notice: tuple | None = None) -> None:
        if notice:
            stream._push(Notice(stream.response_id, stream.stream_id, *notice))
        try:
            await self._send_create(stream, replay=replay)
        except ConnectError as exc:
            self._end_stream(stream, Disconnected(None, stream.stream_id, str(exc), stream.text), "disconnected")

    # -- interrupts ------------------------------------------------------------------

    async def _interrupt(self, stream: ResponseStream, *, reason: str) -> None:
        rid = stream.response_id
        if self.provider.cancel:
            stream._cancel_requested = True
            if rid is not None and self._ws is not None:
                try:
                    await self._ws.send(json.dumps({"type": "response.cancel", "response_id": rid}))
                except ConnectionClosed:
                    pass  # the drop ends the stream anyway
            # Without an id yet the cancel goes out when response.created arrives.
            return
        # No cancel on the server: stop listening to this response and answer for it.
        self._abandon(stream)
        if stream.prompt is not None and rid is not None:
            self._remember(rid, stream.prompt, stream.text, stream.previous_response_id, server_ok=False)
        self._end_stream(stream, Incomplete(rid, stream.stream_id, reason, stream.text, {}), "incomplete")
        if self.provider.interrupt == "reconnect":
            self._spawn(self._reconnect_quietly())

    def _abandon(self, stream: ResponseStream) -> None:
        if stream.response_id is not None:
            self._abandoned[stream.response_id] = stream.wire_stream_id
            self._by_id.pop(stream.response_id, None)
        else:
            self._forget_routes(stream)
            # Its response.created is still to come: route it nowhere.
            self._abandoned_lanes.add(stream.wire_stream_id)
        if self.provider.interrupt == "abandon":
            # The server runs a lane FIFO, so later turns must not queue behind the abandoned one.
            self._abandoned_lanes.add(stream.wire_stream_id)
            self._lane_alias[stream.stream_id] = f"{stream.stream_id or 'lane'}~{next(self._alias_n)}"
        if self._active_lane.get(stream.wire_stream_id) is stream:
            del self._active_lane[stream.wire_stream_id]

    async def _reconnect_quietly(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            # Streams still on it end as Disconnected; the interrupted one already ended.
            await ws.close()
        try:
            await self._ensure_connected()
        except ConnectError:
            pass  # the next create() retries and reports

    async def _steer(self, stream: ResponseStream, items: list[dict]) -> None:
        in_progress = not stream._ended and stream.response_id is not None and stream.status == "in_progress"
        if self.provider.steer and in_progress:
            stream._interrupt()
            stream._steer_words = items
            stream._successor_pending = True
            self._successor_of[stream.response_id] = stream
            try:
                await self._ws.send(json.dumps({"type": "response.steer", "response_id": stream.response_id,
                                                "input": _messages_to_input(items)}))
            except (ConnectionClosed, AttributeError):
                pass
            return
        # Fallback: interrupt (if still going) and start a new turn carrying the partial answer.
        prev_stream_state = stream.response_id, stream.text
        if not stream._ended or stream._successor_pending:
            stream._interrupt()
            stream._successor_pending = True
            if self.provider.cancel:
                await self._interrupt(stream, reason="steered")
                # The gateway answers with response.incomplete (cancelled); the successor follows it.
                stream._fallback_words = items
                return
            self._abandon(stream)
            rid, text = prev_stream_state
            if stream.prompt is not None and rid is not None:
                self._remember(rid, stream.prompt, text, stream.previous_response_id, server_ok=False)
            stream._push(Incomplete(rid, stream.stream_id, "steered", text, {}))
            stream.status = "incomplete"
            if self.provider.interrupt == "reconnect":
                await self._reconnect_quietly()
        await self._start_successor(stream, items)

    async def _start_successor(self, stream: ResponseStream, items: list[dict]) -> None:
        """A new turn after `stream`'s response: chained on it, with its partial answer and `items`."""
        old_id, old_text = stream.response_id, stream.text
        old_prompt = stream.prompt
        stream._reopen()
        stream._new_response()
        stream._successor_pending = False
        stream._push(Notice(old_id, stream.stream_id, "steer_fallback",
                            "continuing in a new turn that carries the partial answer and the new words"))
        prompt = None
        if old_prompt is not None:
            prompt = _with_answer(old_prompt, old_text) + items
        turn = self._history.get(old_id) if old_id else None
        parent = self._history.get(turn.parent) if turn is not None and turn.parent else None
        if turn is not None and turn.server_ok:
            prev, input_ = old_id, items  # the server has the partial answer already
        elif turn is not None and parent is not None and parent.server_ok:
            # Chain on the parent, resending the abandoned turn's input and partial answer.
            prev = turn.parent
            input_ = _with_answer(turn.prompt[len(parent.messages):], old_text) + items
        else:
            prev, input_ = None, prompt or items
        stream.previous_response_id = prev
        stream.prompt = prompt
        stream.params = dict(stream.params, input=_messages_to_input(input_), previous_response_id=prev,
                             instructions=None, generate=True)
        self._streams.add(stream)
        try:
            await self._send_create(stream)
        except ConnectError as exc:
            self._end_stream(stream, Disconnected(None, stream.stream_id, str(exc), ""), "disconnected")

    # -- events in -------------------------------------------------------------------

    def _route(self, event: Event, obj: dict) -> ResponseStream | None:
        if isinstance(event, Created):
            return None  # handled by _on_created
        rid = event.response_id
        if rid is not None:
            if rid in self._abandoned:
                if isinstance(event, TERMINAL + (Error,)):
                    # The abandoned response is over: its lane carries no stray events any more.
                    self._abandoned_lanes.discard(self._abandoned.pop(rid))
                return None
            stream = self._by_id.get(rid)
            if stream is not None:
                return stream
            if isinstance(event, (SteerAccepted, SteerFailed)):
                return self._successor_of.get(rid)
        event_id = obj.get("event_id")
        if event_id and event_id in self._by_event:
            return self._by_event[event_id]
        sid = event.stream_id
        if sid in self._abandoned_lanes and rid is None:
            return None
        if isinstance(event, Error):
            lane = self._waiting.get(sid)
            if lane:
                return lane[0]
            waiting = [s for q in self._waiting.values() for s in q]
            if waiting:
                return waiting[0]
        return self._active_lane.get(sid)

    def _dispatch(self, obj: dict) -> None:
        event = parse_event(obj)
        if isinstance(event, Created):
            self._on_created(event)
            return
        stream = self._route(event, obj)
        if stream is None:
            if isinstance(event, Error) and event.code in RECONNECT_CODES:
                self._retire(self._ws)
            elif isinstance(event, Error):
                log.warning("server error not tied to a request: %s", event.code)
            return
        if isinstance(event, TextDelta):
            if stream._interrupted or stream._ended:
                return
            now = time.perf_counter()
            st = stream.stats
            if st.first_delta_at is None:
                st.first_delta_at = now
                st.ttft_s = now - st.sent_at
            st.last_delta_at = now
            st.deltas += 1
            st.chars += len(event.delta)
            stream._parts.append(event.delta)
            if event.stream_id is None:
                event.stream_id = stream.stream_id
            if event.response_id is None:
                event.response_id = stream.response_id
            stream._push(event)
            return
        if isinstance(event, Error) and stream.status == "pending":
            self._on_create_error(stream, event)
            return
        if isinstance(event, SteerFailed):
            self._on_steer_failed(stream, event)
            return
        if isinstance(event, TERMINAL):
            self._on_terminal(stream, event)
            return
        if isinstance(event, TextDone) and stream._interrupted:
            return
        stream._push(event)

    def _forget_routes(self, stream: ResponseStream) -> None:
        for q in self._waiting.values():
            if stream in q:
                q.remove(stream)
        if stream.event_id:
            self._by_event.pop(stream.event_id, None)

    def _on_created(self, event: Created) -> None:
        stream = None
        if event.previous_response_id in self._kill_successor_of and event.response_id:
            # The caller cancelled while a steer was on its way: stop the successor too.
            self._kill_successor_of.discard(event.previous_response_id)
            self._abandoned[event.response_id] = event.stream_id
            if self.provider.cancel:
                self._spawn(self._send_quietly({"type": "response.cancel", "response_id": event.response_id}))
            return
        if event.previous_response_id and event.previous_response_id in self._successor_of:
            stream = self._successor_of.pop(event.previous_response_id)
            stream._reopen()
            stream._new_response()
            stream._successor_pending = False
            stream.previous_response_id = event.previous_response_id
            words = stream._steer_words or []
            stream._steer_words = None
            if stream.history and stream.prompt is not None:
                # The server continued from what it had generated (it may have run a little past
                # the point where we stopped showing deltas).
                old_text = stream._server_text if stream._server_text is not None else stream.history[-1][2]
                stream.prompt = _with_answer(stream.prompt, old_text) + words
            stream._server_text = None
        else:
            lane = self._waiting.get(event.stream_id)
            if not lane and event.stream_id is None:
                lane = next((q for q in self._waiting.values() if q), None)
            if lane:
                stream = lane.popleft()
            if stream is None:
                if event.response_id:
                    self._abandoned[event.response_id] = event.stream_id
                return
        if stream.event_id:
            self._by_event.pop(stream.event_id, None)
        stream.response_id = event.response_id
        stream.status = "in_progress"
        stream.stats.created_s = time.perf_counter() - stream.stats.sent_at
        if event.stream_id is None:
            event.stream_id = stream.stream_id
        if event.response_id:
            self._by_id[event.response_id] = stream
        self._active_lane[stream.wire_stream_id] = stream
        stream._push(event)
        if stream._cancel_requested and self.provider.cancel and event.response_id:
            self._spawn(self._send_quietly({"type": "response.cancel", "response_id": event.response_id}))

    async def _send_quietly(self, obj: dict) -> None:
        if self._ws is not None:
            try:
                await self._ws.send(json.dumps(obj))
            except ConnectionClosed:
                pass

    def _on_create_error(self, stream: ResponseStream, event: Error) -> None:
        self._forget_routes(stream)
        if event.code in REPLAY_CODES and not stream._replayed and stream.prompt is not None:
            self._spawn(self._resend(stream, replay=True, notice=(
                "replayed", "the server no longer has the previous response; replaying the transcript")))
            return
        if event.code in RECONNECT_CODES:
            self._retire(stream._ws)
            self._spawn(self._resend(stream, replay=True, notice=("reconnected", event.message or event.code)))
            return
        self._end_stream(stream, event, "error")

    def _on_steer_failed(self, stream: ResponseStream, event: SteerFailed) -> None:
        words = stream._steer_words
        stream._steer_words = None
        if event.response_id:
            self._successor_of.pop(event.response_id, None)
        stream._push(event)
        if words is None:
            return
        if stream._ended or stream.final is not None:
            # The response finished before the steer arrived: continue with a new turn.
            self._spawn(self._start_successor(stream, words))
        else:
            stream._fallback_words = words
            self._spawn(self._interrupt(stream, reason="steered"))

    def _on_terminal(self, stream: ResponseStream, event: Event) -> None:
        rid = stream.response_id
        st = stream.stats
        st.total_s = time.perf_counter() - st.sent_at
        usage = getattr(event, "usage", None)
        if usage:
            st.usage = usage
        if isinstance(event, Completed):
            status = "completed"
        elif isinstance(event, Incomplete):
            status = "incomplete"
        elif isinstance(event, Failed):
            status = "failed"
        else:
            status = "disconnected"
        if isinstance(event, (Completed, Incomplete)) and rid and stream.prompt is not None:
            # The server's stored text is what it generated; ours is what we showed. They agree
            # unless we interrupted; then the chain continues from the server's.
            server_text = event.text if isinstance(event, Incomplete) and event.text else stream.text
            stream._server_text = server_text
            self._remember(rid, stream.prompt, server_text, stream.previous_response_id, server_ok=True)
        if isinstance(event, Incomplete) and stream._interrupted:
            # The caller gets the text it was shown; deltas in flight at the interrupt were dropped.
            event.text = stream.text
        if rid:
            self._by_id.pop(rid, None)
        if self._active_lane.get(stream.wire_stream_id) is stream:
            del self._active_lane[stream.wire_stream_id]
        if event.stream_id is None:
            event.stream_id = stream.stream_id
        if event.response_id is None:
            event.response_id = rid
        stream.status = status
        fallback = getattr(stream, "_fallback_words", None)
        if fallback is not None and not isinstance(event, Failed):
            stream._fallback_words = None
            if isinstance(event, Incomplete) and event.reason == "cancelled":
                event.reason = "steered"
            stream._push(event)
            stream.final = event
            self._spawn(self._start_successor(stream, fallback))
            return
        if stream._steer_words is not None or (stream._successor_pending and isinstance(event, Incomplete)
                                                and event.reason == "steered"):
            stream._push(event)  # the successor's response.created follows
            stream.final = event
            return
        self._end_stream(stream, event, status)

    def _end_stream(self, stream: ResponseStream, final: Event, status: str) -> None:
        if stream._ended:
            return
        stream.status = status
        stream._successor_pending = False
        if stream.response_id:
            self._by_id.pop(stream.response_id, None)
        self._forget_routes(stream)
        if self._active_lane.get(stream.wire_stream_id) is stream:
            del self._active_lane[stream.wire_stream_id]
        if stream.stats.total_s is None and stream.stats.sent_at:
            stream.stats.total_s = time.perf_counter() - stream.stats.sent_at
        stream._queue.put_nowait(final)
        stream._end(final)
        self._streams.discard(stream)

    def _remember(self, rid: str, prompt: list[dict], text: str, parent: str | None, *, server_ok: bool) -> None:
        messages = _with_answer(prompt, text)
        self._history[rid] = _Turn(messages, prompt, parent, server_ok)
        self._history.move_to_end(rid)
        while len(self._history) > self.history_size:
            self._history.popitem(last=False)
