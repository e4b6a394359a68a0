"""Session events between two frames: held in order, handed over together at most once per frame."""

from __future__ import annotations

import time
from typing import Callable

from textual.app import App

FRAME_S = 1 / 60  # session events are applied to the screen at most once per frame


class FrameBatch:
    """An inbox with at most one timer pending: `add` per event, `flush` called once per frame, `take` empties it."""

    def __init__(self, host: App, flush: Callable[[], None]) -> None:
        self._host = host
        self._flush = flush  # called by the timer; it calls take()
        self._items: list = []
        self._timer = None
        self._last_flush = 0.0

    def add(self, item) -> None:
        # Runs per delta: keep it to an append and, at most once per frame, a timer.
        self._items.append(item)
        if self._timer is None:
            # Textual timers need a positive interval.
            delay = max(0.001, self._last_flush + FRAME_S - time.perf_counter())
            self._timer = self._host.set_timer(delay, self._flush, name="flush")

    def cancel(self) -> None:
        """Stop the pending timer (the caller flushes now)."""
        if self._timer is not None:
            self._timer.stop()

    def take(self) -> tuple[list, float]:
        """(the events held, in order; the time of this flush), the inbox empty again."""
        self._timer = None
        now = time.perf_counter()
        self._last_flush = now
        items, self._items = self._items, []
        return items, now
