"""One response as the client tracks it: its status (checked against one transition table), text, stats and undelivered events."""

from __future__ import annotations

from collections import deque
from enum import StrEnum

from steer_tui.transport.events import Event, Notice, Stats, TextDelta

END = object()  # the last item of an ended turn's event buffer


class Status(StrEnum):
    """A response's status; a str, so `stream.status == "completed"` holds as it always did."""

    PENDING = "pending"  # response.create sent (or about to be), no response.created yet
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    INCOMPLETE = "incomplete"  # stopped early: cancelled, steered, a token limit
    FAILED = "failed"
    ERROR = "error"  # the server refused the request
    DISCONNECTED = "disconnected"


P, R = Status.PENDING, Status.IN_PROGRESS
C, I, F, E, D = Status.COMPLETED, Status.INCOMPLETE, Status.FAILED, Status.ERROR, Status.DISCONNECTED

# Every allowed change of status, in one place; Turn.set_status refuses any other.
# A turn may stay where it is (a resend is PENDING -> PENDING, a terminal re-ended with its own status).
TRANSITIONS: dict[Status, frozenset[Status]] = {
    # created; refused; dropped or the connection failed; abandoned before created (no cancel);
    # a terminal event for a request whose response.created never came
    P: frozenset({P, R, E, D, I, C, F}),
    # its terminal event, or the connection dropped
    R: frozenset({R, C, I, F, D}),
    # Terminal, but a steer starts a successor on the same turn (PENDING again); a turn whose
    # successor is on its way is not over: a drop or an interrupt (no cancel) ends it meanwhile.
    C: frozenset({C, P, I, D}),
    I: frozenset({I, P, D}),
    F: frozenset({F, P, D}),
    E: frozenset({E, P}),
    D: frozenset({D, P}),
}
del P, R, C, I, F, E, D


class InvalidTransition(RuntimeError):
    """A status change the transition table does not allow: a client bug, never the server's."""


class Turn:
    """One caller's turn: the current response, the steered ones before it (`history`) and what
    the caller has not read yet (`events`, ending with END once the turn is over).

    Plain data, changed only by the TurnProtocol (steer_tui/transport/protocol.py). `readers` is the
    asyncio side's (the futures of whoever waits to read the turn); the protocol only hands
    the list out in a Wake action. Nothing here points back at the ResponseStream, so a turn
    and its stream are freed as soon as the caller drops the stream, without a cycle for the
    garbage collector to find."""

    __slots__ = ("stream_id", "wire_stream_id", "response_id", "previous_response_id", "params", "prompt", "parts",
                 "status", "stats", "final", "history", "event_id", "events", "ended", "interrupted",
                 "cancel_requested", "steer_words", "fallback_words", "successor_pending", "replayed", "server_text",
                 "connection", "readers", "wake")

    def __init__(self, stream_id: str | None, params: dict, prompt: list[dict] | None):
        self.stream_id = stream_id  # the caller's lane
        self.wire_stream_id: str | None = None  # the lane on the wire (differs after an abandon)
        self.response_id: str | None = None
        self.previous_response_id: str | None = params.get("previous_response_id")
        self.params = params  # model, instructions, input (as given), max_output_tokens, ...
        self.prompt = prompt  # full transcript before the output, None if unknown (unknown previous id)
        self.parts: list[str] = []  # output of the current response so far: see `text`
        self.status = Status.PENDING
        self.stats = Stats()
        self.final: Event | None = None  # the last terminal event
        self.history: list[tuple[str | None, str, str]] = []  # (response_id, status, text) of steered predecessors
        self.event_id: str | None = None
        self.events: deque = deque()  # not yet read by the caller; END last once ended
        self.ended = False
        self.interrupted = False  # cancel() or steer() called on the current response: drop its deltas
        self.cancel_requested = False  # response.cancel goes out as soon as the response has an id
        self.steer_words: list[dict] | None = None  # waiting for the server's answer to response.steer
        self.fallback_words: list[dict] | None = None  # steer by interrupt + new turn, after the interrupt
        self.successor_pending = False  # a successor (steer) or resend is on its way: don't end
        self.replayed = False  # the whole transcript was sent once (a lost server cache)
        self.server_text: str | None = None  # what the server generated for the interrupted response
        self.connection = None  # the connection the current request went out on (opaque here)
        self.readers: list = []  # the asyncio side's waiters; see the class docstring
        self.wake: tuple = ()  # the protocol's (Wake(self.readers),), made once: a delta's actions allocate nothing

    @property
    def text(self) -> str:
        """The output of the current response so far.

        Kept as pieces and joined when read: `text += delta` on an attribute copies the whole
        text per delta (CPython's in-place concatenation needs a local), quadratic in a long answer.
        """
        parts = self.parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    @text.setter
    def text(self, value: str) -> None:
        self.parts = [value] if value else []

    def set_status(self, status: Status) -> None:
        if status not in TRANSITIONS[self.status]:
            raise InvalidTransition(f"response {self.response_id}: {self.status.value} -> {status.value}")
        self.status = status

    def push(self, event: Event) -> None:
        if self.ended and not isinstance(event, Notice):
            return
        self.events.append(event)

    def purge_deltas(self) -> None:
        """The current response was interrupted: drop its deltas not yet read; they are the tail
        of `text`, which then holds exactly what the caller was given."""
        self.interrupted = True
        events = self.events
        if not events:
            return
        kept = [e for e in events if not isinstance(e, TextDelta)]
        dropped = [e for e in events if isinstance(e, TextDelta)]
        if dropped:
            chars = sum(len(e.delta) for e in dropped)
            if chars:
                self.text = self.text[:-chars]
                self.stats.deltas -= len(dropped)
        events.clear()
        events.extend(kept)

    def reopen(self) -> None:
        """A successor follows: the turn goes on (a reader that saw its end iterates again)."""
        if END in self.events:
            kept = [e for e in self.events if e is not END]
            self.events.clear()
            self.events.extend(kept)
        self.ended = False

    def end(self, final: Event) -> None:
        self.final = final
        self.ended = True
        self.events.append(final)
        self.events.append(END)

    def new_response(self, now: float) -> None:
        """A successor starts: the current response becomes history."""
        if self.response_id is not None or self.text:
            self.history.append((self.response_id, self.status, self.text))
        self.response_id = None
        self.text = ""
        self.set_status(Status.PENDING)
        # The predecessor's terminal is history too: left here, cancel() took it for this
        # response's own end and ended the stream without stopping the successor.
        self.final = None
        self.stats = Stats(sent_at=now)
        self.interrupted = False
        self.cancel_requested = False
