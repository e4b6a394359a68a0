"""WebSocket frame headers (RFC 6455 5.2), read by the client's and the gateway's fast paths."""

from __future__ import annotations


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
