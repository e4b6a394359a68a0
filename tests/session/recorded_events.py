"""Event sequences recorded from the real client and gateway, and replaying them to a Session.

`python -m tests.session.recorded_events` records them again: each answer in data/ is played by
the replay engine behind a real Gateway, read through a real ResponsesClient, and every typed
event the client hands out is written to data/events/NAME.json. FakeBackend replays those
sequences to a Session in memory (no socket, no gateway): a test drives turns with them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

from steer_tui.transport import events as E

DATA = Path(__file__).parent / "data"
EVENTS = DATA / "events"
_TYPES = {cls.__name__: cls for cls in (E.Created, E.TextDelta, E.TextDone, E.Completed, E.Incomplete, E.Failed,
                                         E.Error, E.Disconnected, E.SteerAccepted, E.SteerFailed, E.Notice, E.Other)}
# name -> (answer file, max_output_tokens, cancel after this many deltas)
RECORDINGS = {
    "fix_mean": ("fix_mean.txt", None, None),
    "bad_mean": ("bad_mean.txt", None, None),
    "two_hunks": ("two_hunks.txt", None, None),
    "noop_loop": ("noop_loop.txt", None, None),
    "echo_same": ("echo_same.txt", None, None),
    "clamp_loop": ("clamp_loop.txt", None, None),
    "long_answer_cut_off": ("long_answer.txt", 40, None),
    "long_answer_cancelled": ("long_answer.txt", None, 30),
}


def load(name: str) -> list:
    """The recorded events of `name`, as the client's own classes."""
    rows = json.loads((EVENTS / f"{name}.json").read_text(encoding="utf-8"))
    return [_TYPES[row["type"]](**row["fields"]) for row in rows]


async def _record(name: str) -> list[dict]:
    from steer_tui.server.engines.replay import ReplayEngine
    from steer_tui.server.gateway import Gateway
    from steer_tui.transport.client import ResponsesClient

    answer, limit, cancel_after = RECORDINGS[name]
    engine = ReplayEngine((DATA / answer).read_text(encoding="utf-8"), rate=0 if cancel_after is None else 200)
    gw = Gateway(engine)
    url = await gw.start("127.0.0.1", 0)
    client = ResponsesClient(url)
    rows = []
    try:
        await client.connect()
        stream = await client.create(input=[{"role": "user", "content": "edit calc.py"}], stream_id="s-recorded",
                                     max_output_tokens=limit)
        deltas = 0
        async for ev in stream:
            rows.append({"type": type(ev).__name__, "fields": dataclasses.asdict(ev)})
            deltas += isinstance(ev, E.TextDelta)
            if cancel_after is not None and deltas == cancel_after:
                await stream.cancel()
    finally:
        await client.close()
        await gw.close()
    return rows


def main() -> None:
    EVENTS.mkdir(exist_ok=True)
    for name in RECORDINGS:
        rows = asyncio.run(_record(name))
        lines = ",\n".join(json.dumps(row, separators=(",", ":")) for row in rows)
        (EVENTS / f"{name}.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")
        print(f"{name}: {len(rows)} events, last {rows[-1]['type']}")


if __name__ == "__main__":
    main()


class FakeStream:
    """One recorded sequence played as steer_tui.backend.TurnStream. `gate` (an asyncio.Event) holds the
    stream after `pause_after` deltas until it is set; cancel() ends it the way the recorded
    cancellation ended (its terminal event)."""

    def __init__(self, events: list, pause_after: int | None = None, gate: asyncio.Event | None = None):
        self.events = events
        self.pause_after = pause_after
        self.gate = gate or asyncio.Event()
        self.stats = E.Stats()
        self.cancelled = False
        self.steered: list[str] = []

    def __aiter__(self):
        return self._play()

    async def _play(self):
        deltas = 0
        for ev in self.events:
            if isinstance(ev, E.TextDelta):
                deltas += 1
                if self.pause_after is not None and deltas > self.pause_after and not self.gate.is_set():
                    await self.gate.wait()
            if self.cancelled:
                yield load("long_answer_cancelled")[-1]
                return
            if isinstance(ev, E.TextDelta):
                self.stats.deltas += 1
            elif isinstance(ev, E.TERMINAL):
                self.stats.usage = dict(getattr(ev, "usage", {}) or {})
            yield ev

    async def cancel(self) -> None:
        self.cancelled = True
        self.gate.set()

    async def steer(self, words: str):
        self.steered.append(words)
        return self


class FakeBackend:
    """steer_tui.backend.Backend in memory: each generating request plays the next recorded sequence (the
    last one repeats); prewarms are only counted. Not a model: recorded answers only."""

    url = "memory://recorded"
    server_info = None

    def __init__(self, names: list[str], *, pause_after: int | None = None):
        self.sequences = [load(n) for n in names]
        self.pause_after = pause_after
        self.gate = asyncio.Event()
        self.requests: list[dict] = []
        self.prewarms: list[dict] = []
        self.streams: list[FakeStream] = []
        self.closed = False

    async def create(self, *, input, model=None, instructions=None, stream_id=None, max_output_tokens=None,
                     temperature=None) -> FakeStream:
        self.requests.append({"input": input, "instructions": instructions, "stream_id": stream_id,
                              "max_output_tokens": max_output_tokens})
        events = self.sequences[min(len(self.requests), len(self.sequences)) - 1]
        stream = FakeStream(events, self.pause_after, self.gate)
        self.streams.append(stream)
        return stream

    async def prewarm(self, *, input, model=None, instructions=None, stream_id=None) -> str:
        self.prewarms.append({"input": input, "instructions": instructions, "stream_id": stream_id})
        return "resp_prewarmed"

    async def close(self) -> None:
        self.closed = True
