"""Replay engine: plays a recorded response text in ~one-token deltas at a fixed rate.

It is not a model: it ignores the prompt and always plays the same recording. It
exists for demos, tests and benchmarks of the real gateway and client, and says
so in its label wherever the engine is named. It is never a default.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path
from typing import AsyncIterator

from steer_tui.server.engines.base import Engine, EngineError, EngineRequest, estimate_tokens
from steer_tui.server.engines.stops import StopCut

# A run of whitespace plus up to 4 non-space characters: words of <= 4 characters
# come whole, longer words in 4-character pieces, whitespace rides with the next
# piece. Every character of the text lands in exactly one piece.
_TOKEN = re.compile(r"\s*\S{1,4}|\s+")


def split_tokens(text: str) -> list[str]:
    """Split `text` into ~one-token pieces at word boundaries (''.join gives the text back)."""
    return _TOKEN.findall(text)


def parse_rate(value: str | float | int | None) -> float:
    """Deltas per second; 0 (or "max", "unlimited") means as fast as possible."""
    if value is None:
        return 0.0
    if isinstance(value, str) and value.strip().lower() in ("max", "unlimited", "inf"):
        return 0.0
    rate = float(value)
    if rate < 0:
        raise ValueError("rate must be >= 0")
    return rate


class ReplayEngine(Engine):
    name = "replay"
    label = "replay (recorded text, not a model)"
    # A recording ends at a request's stop strings as a model's answer would.
    features = frozenset({"stop"})

    def __init__(self, text: str | None = None, *, path: str | Path | None = None, rate: float | str = 0):
        if text is None and path is None:
            raise ValueError("ReplayEngine needs a text or a path")
        self.path = Path(path) if path is not None else None
        self._text = text
        self.rate = parse_rate(rate)
        self.tokens: list[str] = []
        # Observability for tests and benchmarks: streams now running, deltas produced in total.
        self.active = 0
        self.produced = 0

    async def start(self) -> None:
        if self._text is None:
            try:
                self._text = self.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise EngineError("replay_file_unreadable", f"cannot read replay file {self.path}: {exc}") from exc
        self.tokens = split_tokens(self._text)
        if not self.tokens:
            raise EngineError("replay_file_empty", f"replay file {self.path} is empty")

    @property
    def model_name(self) -> str:
        return f"replay:{self.path.name}" if self.path else "replay"

    async def stream(self, request: EngineRequest, cancel: threading.Event) -> AsyncIterator[str]:
        if not self.tokens and self._text is not None:
            self.tokens = split_tokens(self._text)
        request.usage.input_tokens = estimate_tokens(request.messages)
        request.usage.evaluated_tokens = request.usage.input_tokens
        self.active += 1
        try:
            if not request.generate:
                request.finish_reason = "stop"
                return
            limit = request.max_output_tokens
            interval = 1.0 / self.rate if self.rate > 0 else 0.0
            start = time.perf_counter()
            cut = StopCut(request.stop)
            for i, token in enumerate(self.tokens):
                if cancel.is_set():
                    request.finish_reason = "cancelled"
                    return
                if limit is not None and i >= limit:
                    request.finish_reason = "length"
                    return
                if interval:
                    # Schedule against the start time so the rate does not drift.
                    delay = start + i * interval - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    if cancel.is_set():
                        request.finish_reason = "cancelled"
                        return
                elif i % 64 == 63:
                    await asyncio.sleep(0)  # unlimited rate: still let other connections run
                request.usage.output_tokens += 1
                self.produced += 1
                sent, ended = cut.feed(token)
                if sent:
                    yield sent
                if ended:
                    break
            tail = cut.flush()
            if tail:
                yield tail
            request.finish_reason = "stop"
        finally:
            self.active -= 1
