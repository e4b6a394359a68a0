"""Byte-level I/O for the gateway: HTTP/1.1 request heads, chunked SSE, and WebSocket frames.

The gateway serves WebSocket and plain HTTP (server-sent events) on one port, so it
reads the request head itself and, for an upgrade, hands the bytes to the sans-I/O
`websockets.server.ServerProtocol`. That keeps `websockets` the only server
dependency (its own server cannot answer POST).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from websockets.exceptions import InvalidState, PayloadTooBig, ProtocolError
from websockets.frames import CloseCode, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from steer_tui.wsframes import FrameSplitter, text_frame

MAX_HEAD = 64 * 1024


def _make_encode():
    """json.dumps(obj, separators=(",", ":")) for the events, one per delta: the C encoder made once
    and called directly rather than rebuilt by encode()/iterencode() on every call. No circular
    check: events are trees the gateway builds."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        return json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
    encoder = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None, ":", ",",
                   False, False, True)
    return lambda obj: "".join(encoder(obj, 0))


_encode = _make_encode()


ws_text_frame = text_frame  # called with the payload alone: unmasked, server to client

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 408: "Request Timeout", 411: "Length Required", 413: "Payload Too Large",
           415: "Unsupported Media Type", 431: "Request Header Fields Too Large", 426: "Upgrade Required", 429: "Too Many Requests",
           500: "Internal Server Error", 503: "Service Unavailable"}


class Deadline:
    """One connection's current time limit (head, body or idle). When it passes, `on_expire`
    may write a last word, then the transport is closed (aborted if the peer is not reading),
    so whatever waits on the connection's reader sees its end. A limit of None or 0 is none.

    Arming and disarming only note the due time: the one timer, when it fires early, waits on
    for the rest. A turn re-arms the idle limit twice, and a timer made and cancelled each time
    is loop work for nothing."""

    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer
        self.expired: str | None = None  # the limit that passed, once one has
        self._loop = asyncio.get_running_loop()
        self._due: float | None = None
        self._reason = ""
        self._on_expire = None
        self._handle: asyncio.TimerHandle | None = None

    def arm(self, seconds: float | None, reason: str, on_expire=None) -> None:
        if not seconds:
            self._due = None
            return
        due = self._loop.time() + seconds
        self._due, self._reason, self._on_expire = due, reason, on_expire
        if self._handle is not None:
            if self._handle.when() <= due:
                return  # it fires first and waits on for the rest
            self._handle.cancel()
        self._handle = self._loop.call_at(due, self._fire)

    def disarm(self) -> None:
        self._due = None

    def _fire(self) -> None:
        self._handle = None
        if self._due is None:
            return
        if self._loop.time() < self._due:
            self._handle = self._loop.call_at(self._due, self._fire)
            return
        self._due = None
        self.expired = self._reason
        transport = self.writer.transport
        if transport.is_closing():
            return
        try:
            if self._on_expire is not None:
                self._on_expire()
        except Exception:  # the last word is a courtesy; the close is what matters
            pass
        if transport.get_write_buffer_size():
            transport.abort()
        else:
            transport.close()

    def cancel(self) -> None:
        """No limit any more, and no timer left behind (the connection is done)."""
        self._due = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class HttpError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Head:
    method: str
    path: str
    version: str
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    raw: bytes  # the head exactly as received, for the WebSocket handshake
    query: str = ""

    def header(self, name: str, default: str = "") -> str:
        return self.headers.get(name.lower(), default)

    @property
    def keep_alive(self) -> bool:
        conn = self.header("connection").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in conn
        return "close" not in conn

    @property
    def is_upgrade(self) -> bool:
        return "websocket" in self.header("upgrade").lower()


@dataclass
class Buffered:
    """A StreamReader with a push-back buffer (bytes read past a head, pipelined requests)."""

    reader: asyncio.StreamReader
    buf: bytearray = field(default_factory=bytearray)

    async def read_head(self, on_start=None) -> Head | None:
        """The next request head; None at the end of the stream. `on_start()` is called once
        the head's first byte is here (the moment a head time limit starts)."""
        if self.buf and on_start is not None:
            on_start()
            on_start = None
        while b"\r\n\r\n" not in self.buf:
            if len(self.buf) > MAX_HEAD:
                raise HttpError(431, "head_too_large", "request head too large")
            data = await self.reader.read(65536)
            if not data:
                return None
            self.buf += data
            if on_start is not None:
                on_start()
                on_start = None
        end = self.buf.index(b"\r\n\r\n") + 4
        raw = bytes(self.buf[:end])
        del self.buf[:end]
        try:
            lines = raw[:-4].decode("latin-1").split("\r\n")
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            raise HttpError(400, "bad_request", "malformed request line") from None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise HttpError(400, "bad_request", "malformed header line")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        path, _, query = target.partition("?")
        return Head(method.upper(), path, version.strip().upper(), headers, raw, query)

    async def read_exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            data = await self.reader.read(max(65536, n - len(self.buf)))
            if not data:
                raise HttpError(400, "bad_request", "connection closed inside the request body")
            self.buf += data
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out


def simple_response(status: int, body: dict | str, *, keep_alive: bool = True, extra: dict | None = None) -> bytes:
    if isinstance(body, dict):
        payload, ctype = json.dumps(body).encode(), "application/json"
    else:
        payload, ctype = body.encode(), "text/plain; charset=utf-8"
    headers = {"Content-Type": ctype, "Content-Length": str(len(payload)),
               "Connection": "keep-alive" if keep_alive else "close", **(extra or {})}
    head = f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("latin-1") + b"\r\n" + payload


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "type": "invalid_request_error"}}


class _Batched:
    """Frames or chunks queued for one writer. Those queued in the same loop iteration leave in one
    write (a burst of deltas costs one syscall, not one each); a backlog of 64 is written and drained
    at once, and a transport holding over 256 KiB unsent is drained, so a slow reader pushes back on
    the engine. Each user writes the batch in its own `_flush`, which clears `_scheduled`."""

    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer
        self._pending: list[bytes] = []
        self._scheduled = False

    async def _queue(self, data: bytes) -> None:
        self._pending.append(data)
        if len(self._pending) >= 64:
            self._flush()
            await self.writer.drain()
        elif not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)
        if self.writer.transport.get_write_buffer_size() > 256 * 1024:
            await self.writer.drain()


class SseWriter(_Batched):
    """Streams server-sent events in an HTTP/1.1 chunked response (so keep-alive works)."""

    def __init__(self, writer: asyncio.StreamWriter, keep_alive: bool):
        super().__init__(writer)
        self.keep_alive = keep_alive
        self.started = False

    async def start(self) -> None:
        head = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                f"Transfer-Encoding: chunked\r\nConnection: {'keep-alive' if self.keep_alive else 'close'}\r\n\r\n")
        self._pending.append(head.encode("latin-1"))
        self.started = True

    async def send(self, obj: dict) -> None:
        data = f"event: {obj['type']}\ndata: {_encode(obj)}\n\n".encode()
        await self._queue(b"%x\r\n%s\r\n" % (len(data), data))

    def _flush(self) -> None:
        self._scheduled = False
        if self._pending and not self.writer.transport.is_closing():
            self.writer.write(b"".join(self._pending))
        self._pending.clear()

    async def finish(self) -> None:
        self._pending.append(b"0\r\n\r\n")
        self._flush()
        await self.writer.drain()


class WebSocket(_Batched):
    """One accepted WebSocket on top of the sans-I/O protocol. JSON text frames only.

    Received bytes are split into frames by a FrameSplitter (steer_tui/wsframes.py): an unfragmented
    data frame on an open connection is unmasked and decoded right away; every other frame goes
    to the protocol one whole frame at a time, and a frame the protocol must refuse hands it
    every byte from there on. The library's generator-based parser costs more than the rest of
    reading a request."""

    def __init__(self, reader: Buffered, writer: asyncio.StreamWriter, max_size: int):
        super().__init__(writer)  # _pending: data frames not yet written
        self.reader = reader
        self.protocol = ServerProtocol(max_size=max_size)
        self.max_size = max_size
        self._fragments: list[bytes] = []
        self._fragment_opcode: Opcode | None = None
        self._received: list[str | bytes] = []  # messages split off but not yet yielded
        self._batch: list[str | bytes] = []  # messages completed by the bytes _receive is reading
        # Off until the handshake: the protocol reads the request head.
        self._splitter = FrameSplitter(self.protocol, masked=True, max_size=max_size, on_message=self._batch.append,
                                       to_library=self._to_library, on_bad_utf8=self._invalid_utf8, active=False)

    def handshake(self, head: Head, reject: tuple[int, str] | None = None) -> bool:
        """Answer the upgrade; True when the connection is open."""
        self.protocol.receive_data(head.raw)
        request = next((e for e in self.protocol.events_received() if isinstance(e, Request)), None)
        if request is None:
            response = self.protocol.reject(400, "bad WebSocket handshake\n")
        elif reject is not None:
            response = self.protocol.reject(reject[0], reject[1] + "\n")
        else:
            response = self.protocol.accept(request)
        self.protocol.send_response(response)
        self._flush()
        if self.protocol.state is not State.OPEN:
            return False
        self._splitter.active = True  # the protocol has read exactly the head: it is at a frame boundary
        if self.reader.buf:  # bytes that arrived right behind the head
            pending = bytes(self.reader.buf)
            self.reader.buf.clear()
            self._received = self._receive(pending)
        return True

    @property
    def open(self) -> bool:
        return self.protocol.state is State.OPEN

    def _flush(self) -> None:
        self._scheduled = False
        pending, self._pending = self._pending, []
        chunks = self.protocol.data_to_send()  # handshake, pongs, close: after the data frames
        if self.writer.transport.is_closing():
            return  # nowhere to go
        data = b"".join(pending + chunks)
        if data:
            self.writer.write(data)  # one write, so one syscall for the whole batch
        if chunks and not chunks[-1] and self.writer.can_write_eof():
            try:
                self.writer.write_eof()
            except OSError:
                pass

    def flush(self) -> None:
        """Write the queued frames now (they would otherwise go at the end of this loop iteration)."""
        if self._pending:
            self._flush()

    async def send_json(self, obj: dict) -> None:
        """Queue one frame (batched and drained as _Batched says)."""
        # The frame is built here rather than by protocol.send_text(): same bytes, a fraction
        # of the cost; the protocol still owns the handshake, control frames and closing.
        if self.protocol.state is not State.OPEN:
            raise ConnectionError("WebSocket is closed")
        await self._queue(ws_text_frame(_encode(obj).encode()))

    async def messages(self):
        """Yield each complete message: str for text; bytes for binary (the caller refuses them)."""
        protocol = self.protocol
        while True:
            received, self._received = self._received, []
            for message in received:
                yield message
            self._flush()  # pongs and close replies
            if protocol.state is State.CLOSED or protocol.close_expected():
                return
            try:
                data = await self.reader.reader.read(65536)
            except (ConnectionError, OSError):
                return
            if data:
                self._received = self._receive(data)
            else:
                self._end_of_stream()
                protocol.receive_eof()
            if isinstance(protocol.parser_exc, (PayloadTooBig, ProtocolError)):
                self._flush()
                return

    def _receive(self, data: bytes) -> list[str | bytes]:
        """The messages completed by `data`, in order."""
        if self._splitter.active:
            self._splitter.feed(data)
        else:
            self._to_library(data)
        out = self._batch[:]
        self._batch.clear()
        return out

    def _to_library(self, data: bytes) -> bool:
        self.protocol.receive_data(data)
        self._batch += self._from_protocol()
        return self.protocol.parser_exc is None and self._splitter.active

    def _end_of_stream(self) -> None:
        # A frame cut short by the end of the stream: the protocol sees it as it would have.
        data = self._splitter.take_rest()
        if data:
            self.protocol.receive_data(data)

    def _from_protocol(self) -> list[str | bytes]:
        out = []
        for event in self.protocol.events_received():
            try:
                message = self._assemble(event)
            except UnicodeDecodeError as exc:
                self._invalid_utf8(exc)
                break
            if message is not None:
                out.append(message)
        return out

    def _invalid_utf8(self, exc: UnicodeDecodeError) -> None:
        # RFC 6455 8.1: a text message that is not UTF-8 fails the connection with 1007, as the
        # library's own recv() does (the sans-I/O protocol leaves that check to its caller).
        # Every byte after it is the protocol's, which discards them while it closes.
        self._splitter.active = False
        self.protocol.fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")

    def _assemble(self, frame) -> str | bytes | None:
        opcode = frame.opcode
        if opcode in (Opcode.TEXT, Opcode.BINARY):
            if frame.fin:
                return frame.data.decode() if opcode is Opcode.TEXT else bytes(frame.data)
            self._fragment_opcode = opcode
            self._fragments = [bytes(frame.data)]
            return None
        if opcode is Opcode.CONT and self._fragment_opcode is not None:
            self._fragments.append(bytes(frame.data))
            if not frame.fin:
                return None
            data = b"".join(self._fragments)
            kind, self._fragment_opcode, self._fragments = self._fragment_opcode, None, []
            return data.decode() if kind is Opcode.TEXT else data
        return None

    def close_now(self, code: int, reason: str) -> None:
        """Write a close frame now, without waiting (for a timer that closes the transport next)."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
            self._flush()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.protocol.state is State.OPEN:
            try:
                self.protocol.send_close(code, reason)
                self._flush()
                await self.writer.drain()
            except (InvalidState, ConnectionError, OSError):
                pass
