"""steer_tui.stream_reader.read on a list of events: what reaches the reader and how reading ends."""

from __future__ import annotations

import pytest

from steer_tui import stream_reader
from steer_tui.stream_reader import BURST_DELTAS, End, read
from steer_tui.transport import events as E


class Events:
    """A stream: the events given, then the end (no terminal event unless given)."""

    def __init__(self, *events):
        self.events = list(events)
        self.read = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.read == len(self.events):
            raise StopAsyncIteration
        self.read += 1
        return self.events[self.read - 1]


class Reader:
    def __init__(self, stop_after: int | None = None, give_up_at: str | None = None):
        self.got: list = []
        self.stop_after, self.give_up_at = stop_after, give_up_at

    def should_stop(self) -> bool:
        return self.stop_after is not None and len(self.got) >= self.stop_after

    def on_text(self, delta: str) -> bool:
        self.got.append(delta)
        return delta == self.give_up_at

    def on_steered(self) -> None:
        self.got.append("<steered>")

    def on_created(self) -> None:
        self.got.append("<created>")

    def on_notice(self, message: str) -> None:
        self.got.append(f"<notice {message}>")

    def on_steer_failed(self, message: str) -> None:
        self.got.append(f"<steer failed {message}>")


@pytest.mark.parametrize("last,end", [
    (E.Completed(), End("completed")),
    (E.Incomplete(reason="cancelled"), End("cancelled")),
    (E.Incomplete(reason="max_output_tokens"), End("cut_off", "max_output_tokens")),
    (E.Failed(code="server_error", message="boom"), End("failed", "boom", "server_error")),
    (E.Error(code="bad_request", message="no"), End("failed", "no", "bad_request")),
    (E.Disconnected(message="reset"), End("disconnected", "reset")),
])
async def test_each_way_a_stream_ends(last, end):
    reader = Reader()
    stream = Events(E.Created(), E.TextDelta(delta="a"), last, E.TextDelta(delta="never read"))
    assert await read(stream, reader) == end
    assert reader.got == ["<created>", "a"]


async def test_a_stream_without_a_terminal_event_ends_completed():
    assert await read(Events(E.TextDelta(delta="a")), Reader()) == End("completed")


async def test_steers_notices_and_failed_steers_reach_the_reader_and_reading_goes_on():
    reader = Reader()
    stream = Events(E.TextDelta(delta="a"), E.Incomplete(reason="steered"), E.Notice(message="hi"),
                    E.SteerFailed(code="x", message=""), E.TextDelta(delta="b"), E.Completed())
    assert await read(stream, reader) == End("completed")
    assert reader.got == ["a", "<steered>", "<notice hi>", "<steer failed x>", "b"]


async def test_the_reader_stops_reading_before_the_next_event():
    reader = Reader(stop_after=2)
    stream = Events(*[E.TextDelta(delta=str(i)) for i in range(5)], E.Completed())
    assert await read(stream, reader) == End("stopped")
    assert reader.got == ["0", "1"] and stream.read == 3


async def test_a_stop_during_a_bursts_yield_is_seen_before_the_next_event(monkeypatch):
    monkeypatch.setattr(stream_reader, "BURST_S", 1e9)  # the burst ends by its count alone
    reader = Reader(stop_after=BURST_DELTAS)
    stream = Events(*[E.TextDelta(delta="x")] * (BURST_DELTAS + 5))
    assert await read(stream, reader) == End("stopped")
    assert stream.read == BURST_DELTAS  # not one event more than the burst


async def test_the_reader_gives_the_answer_up():
    reader = Reader(give_up_at="loop")
    stream = Events(E.TextDelta(delta="a"), E.TextDelta(delta="loop"), E.TextDelta(delta="b"), E.Completed())
    assert await read(stream, reader) == End("gave_up")
    assert reader.got == ["a", "loop"]
