"""The client's WebSocket connection: the `websockets` connection with a fast path for a turn's frames."""

from __future__ import annotations

import itertools
import os

from websockets.asyncio.client import ClientConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import State

from steer_tui.wsframes import FrameSplitter, text_frame


class Connection(ClientConnection):
    """A `websockets` client connection with a fast path for the frames of a turn.

    Received: once the handshake is done, a FrameSplitter (steer_tui/wsframes.py) splits the byte
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

