"""ResponseStream: the caller's handle on one turn, read as an async iterator of typed events."""

from __future__ import annotations

import asyncio
from typing import Protocol

from steer_tui.transport.events import Event, Stats
from steer_tui.transport.turn import END, Status, Turn


class TurnControl(Protocol):
    """What a stream asks of the client that made it (steer_tui.transport.client.ResponsesClient)."""

    async def cancel_turn(self, turn: Turn) -> None: ...

    async def steer_turn(self, turn: Turn, words: str) -> None: ...


def wake_readers(readers: list) -> None:
    """A turn has new events or ended: resolve its readers' futures (the list is emptied)."""
    waiters = readers[:]
    readers.clear()
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(None)


class ResponseStream:
    """One turn (and, after a steer, its successors). Iterate it for typed events.

    The turn's state is a Turn (steer_tui/transport/turn.py) that the client's TurnProtocol keeps;
    this object reads it and waits, with one future per wait (none per event) in the turn's
    `readers`, until the client wakes them (`wake_readers`)."""

    __slots__ = ("_client", "_turn", "_events", "_readers")

    def __init__(self, client: TurnControl, turn: Turn):
        self._client = client
        self._turn = turn
        self._events = turn.events  # the same deque for the turn's whole life
        self._readers: list[asyncio.Future] = turn.readers  # the same list for the turn's whole life

    # -- the turn, read-only for the caller --------------------------------------------

    @property
    def stream_id(self) -> str | None:
        """The caller's lane."""
        return self._turn.stream_id

    @property
    def wire_stream_id(self) -> str | None:
        """The lane on the wire (differs after an abandon)."""
        return self._turn.wire_stream_id

    @property
    def response_id(self) -> str | None:
        return self._turn.response_id

    @property
    def previous_response_id(self) -> str | None:
        return self._turn.previous_response_id

    @property
    def params(self) -> dict:
        """model, instructions, input (as given), max_output_tokens, ..."""
        return self._turn.params

    @property
    def prompt(self) -> list[dict] | None:
        """The full transcript before the output; None if unknown (an unknown previous id)."""
        return self._turn.prompt

    @property
    def text(self) -> str:
        """The output of the current response so far."""
        return self._turn.text

    @property
    def status(self) -> Status:
        return self._turn.status

    @property
    def stats(self) -> Stats:
        return self._turn.stats

    @property
    def final(self) -> Event | None:
        """The last terminal event."""
        return self._turn.final

    @property
    def history(self) -> list[tuple[str | None, str, str]]:
        """(response_id, status, text) of the steered predecessors."""
        return self._turn.history

    @property
    def event_id(self) -> str | None:
        return self._turn.event_id

    @property
    def done(self) -> bool:
        return self._turn.ended

    @property
    def _interrupted(self) -> bool:
        # cancel() or steer() was called on the current response (its deltas are dropped)
        return self._turn.interrupted

    # -- iteration -------------------------------------------------------------------

    async def _changed(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        readers = self._readers
        readers.append(waiter)
        try:
            await waiter
        finally:
            if waiter in readers:
                readers.remove(waiter)

    def __aiter__(self):
        return self

    async def __anext__(self) -> Event:
        events = self._events
        while not events:
            await self._changed()
        item = events.popleft()
        if item is END:
            events.appendleft(END)  # keep answering StopAsyncIteration
            raise StopAsyncIteration
        return item

    async def collect(self) -> str:
        """Consume the remaining events; returns the final text."""
        async for _ in self:
            pass
        return self.text

    async def wait(self) -> Event | None:
        """Wait until the turn (with any successors) has ended; returns the terminal event."""
        while not self._turn.ended:
            await self._changed()
        return self._turn.final

    # -- control ---------------------------------------------------------------------

    async def cancel(self) -> None:
        """Stop this response. After it returns no more of its deltas are yielded.

        Against our gateway the engine is stopped and the server's
        `response.incomplete` (reason "cancelled") follows; against providers without
        cancel the client makes that event itself and stops listening to the response.
        """
        await self._client.cancel_turn(self._turn)

    async def steer(self, words: str | list[dict]) -> "ResponseStream":
        """Redirect: stop now and continue with the partial answer plus `words`.

        Returns self; keep iterating (again, if the loop had ended) to get
        Incomplete(reason="steered"), then Created for the successor and its deltas.
        """
        await self._client.steer_turn(self._turn, words)
        return self

    def __repr__(self) -> str:
        return f"ResponseStream(id={self.response_id!r}, stream_id={self.stream_id!r}, status={self.status.value!r})"
