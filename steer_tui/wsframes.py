"""WebSocket frames (RFC 6455 5.2) on the client's and the gateway's fast paths: headers, text frames, splitting."""

from __future__ import annotations

import struct

from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # built without its C extension
    from websockets.utils import apply_mask

OPCODES = frozenset((0, 1, 2, 8, 9, 10))  # continuation, text, binary, close, ping, pong


def frame_header(data: bytes, pos: int, size: int) -> tuple[int, int, int, int] | None:
    """(first byte, second byte, payload length, payload start) of the frame at `pos`, or None
    while its header has not fully arrived. The mask key, if any, starts at payload start."""
    if size - pos < 2:
        return None
    b0, b1 = data[pos], data[pos + 1]
    length, start = b1 & 0x7F, pos + 2
    if length == 126:
        if size - pos < 4:
            return None
        length, start = int.from_bytes(data[start:start + 2], "big"), start + 2
    elif length == 127:
        if size - pos < 10:
            return None
        length, start = int.from_bytes(data[start:start + 8], "big"), start + 8
    return b0, b1, length, start


def text_frame(payload: bytes, mask_key: bytes | None = None) -> bytes:
    """One unfragmented text frame: unmasked (server to client), or masked with `mask_key`
    (client to server). No extension is ever negotiated."""
    n, mask = len(payload), 0x80 if mask_key is not None else 0
    if n < 126:
        head = bytes((0x81, mask | n))
    elif n < 65536:
        head = struct.pack("!BBH", 0x81, mask | 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, mask | 127, n)
    if mask_key is None:
        return head + payload
    return head + mask_key + apply_mask(payload, mask_key)


class FrameSplitter:
    """Splits received bytes into frames for a connection's fast path, in front of a `websockets`
    protocol that keeps the handshake, control frames and the closing handshake.

    An unfragmented data frame on an open connection is unmasked (`masked`: the peer is a
    client), decoded and handed to `on_message` (str for text, bytes for binary) right here;
    every other frame (ping, pong, close, fragments, frames after the close started) goes to
    `to_library` one whole frame at a time, so the library's parser always sits at a frame
    boundary; `to_library` returns False when nothing after that frame is to be read here.
    A frame the library must refuse (masked the wrong way, reserved bits, an unknown opcode,
    over `max_size`, a long or fragmented control frame) switches the splitter off (`active`
    False) and hands the library every byte from that frame on: it refuses it with the right
    close code as soon as it sees the header. A text frame that is not UTF-8 goes to
    `on_bad_utf8(exc)`, which fails the connection; the rest of the bytes are dropped."""

    __slots__ = ("protocol", "masked", "max_size", "on_message", "to_library", "on_bad_utf8", "active", "_rx",
                 "_need", "_in_fragments")

    def __init__(self, protocol, *, masked: bool, max_size: int | None, on_message, to_library, on_bad_utf8,
                 active: bool = True):
        self.protocol = protocol
        self.masked = masked
        self.max_size = max_size
        self.on_message = on_message
        self.to_library = to_library
        self.on_bad_utf8 = on_bad_utf8
        self.active = active  # the splitter owns the received byte stream
        self._rx = bytearray()  # the start of a frame not complete yet
        self._need = 0  # bytes `_rx` must hold before parsing again
        self._in_fragments = False  # a fragmented message is under way (its frames go to the library)

    def feed(self, data: bytes) -> None:
        rx = self._rx
        if rx:
            rx += data
            if len(rx) < self._need:
                return  # a long frame still arriving: no copy, no parse until it is all here
            data = bytes(rx)
            rx.clear()
        size, pos = len(data), 0
        handler, max_size, protocol, masked = self.on_message, self.max_size, self.protocol, self.masked
        mask_bit = 0x80 if masked else 0
        self._need = 0
        while (head := frame_header(data, pos, size)) is not None:
            b0, b1, length, start = head
            opcode = b0 & 0x0F
            if (b1 & 0x80 != mask_bit or b0 & 0x70 or opcode not in OPCODES
                    or (max_size is not None and length > max_size)
                    or (opcode >= 8 and (length > 125 or not b0 & 0x80))):
                self.active = False
                self.to_library(data[pos:])
                return
            stop = start + 4 + length if masked else start + length
            if stop > size:
                self._need = stop - pos
                break
            if (b0 == 0x81 or b0 == 0x82) and not self._in_fragments and protocol.state is State.OPEN:
                payload = apply_mask(data[start + 4:stop], data[start:start + 4]) if masked else data[start:stop]
                if b0 == 0x82:
                    handler(payload)
                else:
                    try:
                        text = payload.decode()
                    except UnicodeDecodeError as exc:
                        self.on_bad_utf8(exc)
                        return
                    handler(text)
            else:
                if opcode == 1 or opcode == 2:
                    self._in_fragments = not b0 & 0x80
                elif opcode == 0 and b0 & 0x80:
                    self._in_fragments = False
                if not self.to_library(data[pos:stop]):
                    return
            pos = stop
        if pos < size:
            rx += data[pos:]

    def take_rest(self) -> bytes:
        """Switch off at the end of the stream and return a frame cut short by it (b"" if none),
        for the library to see as it would have."""
        self.active = False
        data = bytes(self._rx)
        self._rx.clear()
        return data
