"""The one loop that reads a response stream (steer_tui.transport): its events go to a reader's
callbacks and how the stream ended comes back. An edit's answer (steer_tui.turn.Turn) and a
question's (steer_tui.ask.Asking) are both read through it."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

from steer_tui.transport import events as E

# Deltas the client has already buffered come without a suspension: at an unlimited rate a whole
# answer is one burst. The loop yields after this many deltas or this much work (seconds), so
# Esc (and a redraw) is handled mid-burst.
BURST_DELTAS = 256
BURST_S = 0.004


@dataclass(frozen=True)
class End:
    """How reading a stream ended."""

    how: str  # completed | stopped (the reader's should_stop) | gave_up (its on_text) | cancelled | cut_off | failed | disconnected
    message: str = ""  # cut_off: the reason; failed and disconnected: the server's or the client's message
    code: str = ""  # failed: the error's code


class Reader(Protocol):
    """What the loop tells the one who reads a stream."""

    def should_stop(self) -> bool:
        """Nothing more is read (checked before every event and after every yield)."""

    def on_text(self, delta: str) -> bool:
        """A delta of the answer; True gives the answer up (the loop ends, `gave_up`)."""

    def on_steered(self) -> None:
        """The answer so far was steered: the successor's output replaces it."""

    def on_created(self) -> None:
        """The server took the request."""

    def on_notice(self, message: str) -> None:
        """The server says something that is not the answer."""

    def on_steer_failed(self, message: str) -> None:
        """A steer (a redirect's words) did not reach the model."""


async def read(stream, reader: Reader) -> End:
    """Feed `stream`'s events to `reader` until it ends, the reader stops or gives it up."""
    burst, burst_t0 = 0, time.perf_counter()
    async for ev in stream:
        if reader.should_stop():
            return End("stopped")
        if isinstance(ev, E.TextDelta):
            if reader.on_text(ev.delta):
                return End("gave_up")
            burst += 1
            if burst >= BURST_DELTAS or time.perf_counter() - burst_t0 >= BURST_S:
                await asyncio.sleep(0)
                burst, burst_t0 = 0, time.perf_counter()
                if reader.should_stop():  # Esc ran during the yield
                    return End("stopped")
        elif isinstance(ev, E.Incomplete) and ev.reason == "steered":
            reader.on_steered()
        elif isinstance(ev, E.Created):
            reader.on_created()
        elif isinstance(ev, E.Completed):
            return End("completed")
        elif isinstance(ev, E.Incomplete):
            return End("cancelled") if ev.reason == "cancelled" else End("cut_off", ev.reason)
        elif isinstance(ev, (E.Failed, E.Error)):
            return End("failed", ev.message or "", ev.code or "")
        elif isinstance(ev, E.Disconnected):
            return End("disconnected", ev.message)
        elif isinstance(ev, E.Notice):
            reader.on_notice(ev.message)
        elif isinstance(ev, E.SteerFailed):
            reader.on_steer_failed(ev.message or ev.code)
    return End("completed")
