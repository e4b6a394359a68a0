"""The client's steer/cancel races, played against the sans-I/O TurnProtocol with no socket.

Each case is a script of steps, a client call or a server event (the JSON objects the
gateway sends), each with the actions the protocol must answer with; then what the
caller reads and the turn's status. A step's actions are spelled "wake", "send <type>",
"create[ replay][ notice=<code>]", "successor", "retire", "reconnect[ background]".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest

from steer_tui.transport.protocol import (PROVIDERS, Reconnect, Retire, Send, SendCreate, StartSuccessor, TurnProtocol,
                                    Wake)
from steer_tui.transport.turn import END, TRANSITIONS, InvalidTransition, Status, Turn

# -- server events ---------------------------------------------------------------------------


def created(rid, prev=None, sid=None):
    return {"type": "response.created", "response": {"id": rid, "previous_response_id": prev, "stream_id": sid}}


def delta(rid, text):
    return {"type": "response.output_text.delta", "response_id": rid, "delta": text}


def _output(text):
    return [{"type": "message", "content": [{"type": "output_text", "text": text}]}]


def completed(rid, text):
    return {"type": "response.completed", "response": {"id": rid, "output": _output(text)}}


def incomplete(rid, reason, text):
    return {"type": "response.incomplete",
            "response": {"id": rid, "incomplete_details": {"reason": reason}, "output": _output(text)}}


def failed(rid):
    return {"type": "response.failed", "response": {"id": rid, "error": {"code": "engine_error"}}}


def error(code, event_id=None):
    return {"type": "error", "error": {"code": code, "message": code}, "event_id": event_id}


def steer_accepted(rid):
    return {"type": "response.steer.accepted", "response_id": rid}


def steer_failed(rid, code="response_finished"):
    return {"type": "response.steer.failed", "response_id": rid, "error": {"code": code}}


# -- client calls and what the shell does between them ----------------------------------------


@dataclass(frozen=True)
class Call:
    name: str  # create | steer | cancel | successor (the shell carries out StartSuccessor) | lost
    arg: object = None


def create(input_="q"):
    return Call("create", input_)


def steer(words="more"):
    return Call("steer", words)


CANCEL = Call("cancel")
SUCCESSOR = Call("successor")  # the shell starting the successor a StartSuccessor asked for
LOST = Call("lost")  # the connection dropped
RESEND = Call("resend")  # the shell sending the turn's request again, as a SendCreate asked
READ = Call("read")  # the caller reads everything queued so far


def spell(action) -> str:
    if isinstance(action, Wake):
        return "wake"
    if isinstance(action, Send):
        return f"send {action.payload['type']}"
    if isinstance(action, SendCreate):
        return "create" + (" replay" if action.replay else "") + (f" notice={action.notice[0]}" if action.notice else "")
    if isinstance(action, StartSuccessor):
        return "successor"
    if isinstance(action, Retire):
        return "retire"
    if isinstance(action, Reconnect):
        return "reconnect" + (" background" if action.background else "")
    raise AssertionError(action)


class Wire:
    """One TurnProtocol, the turn under test and what was sent, with a clock that ticks by 1."""

    def __init__(self, provider: str):
        self.protocol = TurnProtocol(PROVIDERS[provider], clock=itertools.count(1).__next__)
        self.connection = object()
        self.turn: Turn | None = None
        self.sent: list[dict] = []
        self.pending_successor: list | None = None
        self.pending_resend: SendCreate | None = None
        self.reads: list[str] = []

    def step(self, step) -> list[str]:
        p = self.protocol
        if isinstance(step, dict):
            actions = p.receive(step)
        elif step.name == "create":
            self.turn = p.new_turn(input=step.arg, model=None, instructions=None, previous_response_id=None,
                                   stream_id=None, max_output_tokens=None, temperature=None, generate=True,
                                   extra=None)
            self.sent.append(p.request(self.turn, self.connection))
            actions = []
        elif step.name == "steer":
            actions = p.steer(self.turn, step.arg)
        elif step.name == "cancel":
            actions = p.cancel(self.turn)
        elif step.name == "successor":
            actions = p.successor(self.turn, self.pending_successor)
        elif step.name == "resend":
            action, self.pending_resend = self.pending_resend, None
            if action.notice:
                p.notice(self.turn, *action.notice)
            self.sent.append(p.request(self.turn, self.connection, replay=action.replay))
            actions = []
        elif step.name == "read":
            self.read()
            actions = []
        elif step.name == "lost":
            actions = p.connection_lost(self.connection, "connection lost")
            self.connection = object()
        else:
            raise AssertionError(step)
        for action in actions:
            if isinstance(action, StartSuccessor):
                self.pending_successor = action.items
            elif isinstance(action, SendCreate):
                self.pending_resend = action
            elif isinstance(action, Send):
                self.sent.append(action.payload)
        return [spell(a) for a in actions]

    def read(self) -> list[str]:
        """Everything the caller has read: event class names (with a delta's text, a terminal's
        reason or a notice's code)."""
        while self.turn.events and self.turn.events[0] is not END:
            e = self.turn.events.popleft()
            name = type(e).__name__
            detail = getattr(e, "reason", None) or getattr(e, "code", None) or getattr(e, "delta", None)
            self.reads.append(f"{name}:{detail}" if detail else name)
        return self.reads


@dataclass
class Case:
    title: str
    steps: list[tuple]  # (step, expected actions)
    reads: list[str]  # everything the caller reads, in order
    status: str
    ended: bool
    provider: str = "gateway"
    sent: list[str] = field(default_factory=list)  # the types of what went out after the first create
    text: str | None = None


CASES = [
    Case("steer mid-response: the server steers natively and the successor follows on the same stream",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (READ, []),
          (steer("shorter"), ["send response.steer"]),
          (delta("r1", "cd"), []),  # in flight at the steer: the caller never sees it
          (steer_accepted("r1"), ["wake"]),
          (incomplete("r1", "steered", "abcd"), ["wake"]),
          (created("r2", prev="r1"), ["wake"]), (delta("r2", "xy"), ["wake"]),
          (completed("r2", "xy"), ["wake"])],
         ["Created", "TextDelta:ab", "SteerAccepted", "Incomplete:steered", "Created", "TextDelta:xy", "Completed"],
         "completed", True, sent=["response.steer"], text="xy"),
    Case("deltas queued but not read when steer() is called are taken back, and out of `text`",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (delta("r1", "cd"), ["wake"]),
          (steer("shorter"), ["send response.steer"])],
         ["Created"], "in_progress", False, sent=["response.steer"], text=""),
    Case("the steer crosses the response's end: steer.failed after completed starts a new turn",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (READ, []),
          (steer("more"), ["send response.steer"]),
          (completed("r1", "ab"), ["wake"]),  # held open: the steer's answer is still to come
          (steer_failed("r1"), ["wake", "successor"]),
          (SUCCESSOR, ["wake", "create"]), (RESEND, []),
          (created("r2", prev="r1"), ["wake"]), (completed("r2", "z"), ["wake"])],
         ["Created", "TextDelta:ab", "Completed", "SteerFailed:response_finished", "Notice:steer_fallback",
          "Created", "Completed"],
         "completed", True, sent=["response.steer", "response.create"]),
    Case("steer.failed while the response still runs: cancel it, then continue in a new turn",
         [(create(), []), (created("r1"), ["wake"]),
          (steer("more"), ["send response.steer"]),
          (steer_failed("r1", "not_steerable"), ["wake", "send response.cancel"]),
          (incomplete("r1", "cancelled", ""), ["wake", "successor"]),
          (SUCCESSOR, ["wake", "create"]), (RESEND, []), (created("r2", prev="r1"), ["wake"])],
         ["Created", "SteerFailed:not_steerable", "Incomplete:steered", "Notice:steer_fallback", "Created"],
         "in_progress", False, sent=["response.steer", "response.cancel", "response.create"]),
    Case("cancel while a steer is on its way: the successor the server starts anyway is cancelled too",
         [(create(), []), (created("r1"), ["wake"]),
          (steer("more"), ["send response.steer"]),
          (CANCEL, ["send response.cancel"]),
          (incomplete("r1", "steered", ""), ["wake"]),
          (created("r2", prev="r1"), ["send response.cancel"]),  # routed nowhere
          (delta("r2", "zz"), []), (incomplete("r2", "cancelled", "zz"), [])],
         ["Created", "Incomplete:steered"], "incomplete", True, sent=["response.steer", "response.cancel",
                                                                     "response.cancel"]),
    Case("cancel before response.created: the cancel goes out with the id",
         [(create(), []), (CANCEL, []), (created("r1"), ["wake", "send response.cancel"]),
          (delta("r1", "ab"), []), (incomplete("r1", "cancelled", "ab"), ["wake"])],
         ["Created", "Incomplete:cancelled"], "incomplete", True, sent=["response.cancel"], text=""),
    Case("cancel mid-response: later deltas are dropped and the terminal carries what the caller read",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (READ, []),
          (CANCEL, ["send response.cancel"]), (delta("r1", "cd"), []),
          (incomplete("r1", "cancelled", "abcd"), ["wake"]), (delta("r1", "late"), []), (CANCEL, [])],
         ["Created", "TextDelta:ab", "Incomplete:cancelled"], "incomplete", True, sent=["response.cancel"],
         text="ab"),
    Case("cancel after the steered response ended, before the successor came: just end",
         [(create(), []), (created("r1"), ["wake"]), (steer("more"), ["send response.steer"]),
          (incomplete("r1", "steered", ""), ["wake"]), (CANCEL, ["wake"]),
          (created("r2", prev="r1"), ["send response.cancel"])],
         ["Created", "Incomplete:steered", "Incomplete:steered"], "incomplete", True,
         sent=["response.steer", "response.cancel"]),
    Case("no cancel on the server (openai): the client ends the response itself and abandons it",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (READ, []),
          (CANCEL, ["wake"]), (delta("r1", "cd"), []), (completed("r1", "abcd"), [])],
         ["Created", "TextDelta:ab", "Incomplete:cancelled"], "incomplete", True, provider="openai", text="ab"),
    Case("no cancel, and the provider wants a reconnect (xai)",
         [(create(), []), (created("r1"), ["wake"]), (CANCEL, ["wake", "reconnect background"])],
         ["Created", "Incomplete:cancelled"], "incomplete", True, provider="xai"),
    Case("no steer on the server (openai): interrupt, then a new turn with the partial answer",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (READ, []),
          (steer("more"), ["wake", "successor"]), (SUCCESSOR, ["wake", "create"]), (RESEND, []),
          (created("r2"), ["wake"]), (completed("r2", "z"), ["wake"])],
         ["Created", "TextDelta:ab", "Incomplete:steered", "Notice:steer_fallback", "Created", "Completed"],
         "completed", True, provider="openai", sent=["response.create"]),
    Case("no steer, reconnecting provider (xai): the reconnect is awaited before the successor",
         [(create(), []), (created("r1"), ["wake"]), (steer("more"), ["wake", "reconnect", "successor"])],
         ["Created", "Incomplete:steered"], "incomplete", False, provider="xai"),
    Case("steer after the turn completed: a successor at once",
         [(create(), []), (created("r1"), ["wake"]), (completed("r1", "ab"), ["wake"]),
          (steer("more"), ["successor"]), (SUCCESSOR, ["wake", "create"]), (RESEND, [])],
         ["Created", "Completed", "Notice:steer_fallback"], "pending", False, sent=["response.create"]),
    Case("the server lost the previous response: replay the transcript once, then give up",
         [(create(), []), (error("previous_response_not_found"), ["create replay notice=replayed"]),
          (RESEND, []), (error("previous_response_not_found"), ["wake"])],
         ["Notice:replayed", "Error:previous_response_not_found"], "error", True, sent=["response.create"]),
    Case("connection-age limit: retire the connection and replay on a new one",
         [(create(), []), (error("websocket_connection_limit_reached"), ["retire", "create replay notice=reconnected"]),
          (RESEND, []), (created("r1"), ["wake"])],
         ["Notice:reconnected", "Created"], "in_progress", False, sent=["response.create"]),
    Case("the connection drops before response.created: the request goes out again",
         [(create(), []), (LOST, ["create notice=reconnecting"]), (RESEND, []), (created("r1"), ["wake"])],
         ["Notice:reconnecting", "Created"], "in_progress", False, sent=["response.create"]),
    Case("the connection drops mid-response: the turn ends as Disconnected with its text",
         [(create(), []), (created("r1"), ["wake"]), (delta("r1", "ab"), ["wake"]), (LOST, ["wake"])],
         ["Created", "TextDelta:ab", "Disconnected"], "disconnected", True, text="ab"),
    Case("a refused request ends the turn with the server's error",
         [(create(), []), (error("model_not_found"), ["wake"])],
         ["Error:model_not_found"], "error", True),
    Case("response.failed ends the turn",
         [(create(), []), (created("r1"), ["wake"]), (failed("r1"), ["wake"])],
         ["Created", "Failed:engine_error"], "failed", True),
]


@pytest.mark.parametrize("case", CASES, ids=[c.title for c in CASES])
def test_race(case: Case):
    wire = Wire(case.provider)
    for n, (step, expected) in enumerate(case.steps):
        assert wire.step(step) == expected, f"step {n}: {step}"
    assert wire.read() == case.reads
    turn = wire.turn
    assert (turn.status, turn.ended) == (case.status, case.ended)
    assert [obj["type"] for obj in wire.sent[1:]] == case.sent
    if case.text is not None:
        assert turn.text == case.text


def test_steer_needs_words():
    wire = Wire("gateway")
    wire.step(create())
    with pytest.raises(ValueError):
        wire.step(steer([]))


def test_steered_successor_chains_on_what_the_server_generated():
    wire = Wire("gateway")
    for step in (create("q1"), created("r1"), delta("r1", "ab"), READ, steer("more"), delta("r1", "cd"),
                 incomplete("r1", "steered", "abcd"), created("r2", prev="r1")):
        wire.step(step)
    # The caller was shown "ab", the server had generated "abcd" and continued from it.
    assert wire.turn.history == [("r1", "incomplete", "ab")]
    assert [m["content"] for m in wire.turn.prompt] == ["q1", "abcd", "more"]
    assert wire.protocol.transcripts.messages("r1")[-1] == {"role": "assistant", "content": "abcd"}


def test_abandoned_lane_moves_the_next_request():
    wire = Wire("openai")
    for step in (create(), created("r1"), CANCEL):
        wire.step(step)
    nxt = wire.protocol.new_turn(input="q2", model=None, instructions=None, previous_response_id="r1",
                                 stream_id=None, max_output_tokens=None, temperature=None, generate=True, extra=None)
    payload = wire.protocol.request(nxt, wire.connection)
    assert payload["stream_id"] not in (None, "") and nxt.wire_stream_id == payload["stream_id"]


# -- the status table --------------------------------------------------------------------------


def test_every_status_has_a_row_and_terminal_statuses_lead_back_only_to_a_successor():
    assert set(TRANSITIONS) == set(Status)
    for status in (Status.COMPLETED, Status.INCOMPLETE, Status.FAILED, Status.ERROR, Status.DISCONNECTED):
        assert Status.IN_PROGRESS not in TRANSITIONS[status]


@pytest.mark.parametrize("start,target", [(a, b) for a in Status for b in Status if b not in TRANSITIONS[a]])
def test_a_transition_outside_the_table_is_refused(start, target):
    turn = Turn(None, {}, None)
    turn.status = start
    with pytest.raises(InvalidTransition):
        turn.set_status(target)
    assert turn.status is start


def test_status_reads_as_the_string_it_always_was():
    turn = Turn(None, {}, None)
    assert turn.status == "pending" and f"{turn.status}" == "pending"
