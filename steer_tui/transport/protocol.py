"""The client's sans-I/O core: routes server events to turns and answers calls and events with actions.

Like python-websockets' `protocol.py`, it does no I/O: parsed server objects and calls
(create, steer, cancel, a lost connection) go in, `Action`s come out (send this, send a
turn's request, start its successor, retire the connection, wake its reader), and the
asyncio shell (ResponsesClient) carries them out. A turn's status changes only through
the table in steer_tui/transport/turn.py. Races (a steer that crosses the response's end, a
cancel while a steer is on its way) are decided here, so tests/wire/test_turns.py plays
them without a socket.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from steer_tui.transport.events import (TERMINAL, Completed, Created, Disconnected, Error, Event, Failed, Incomplete,
                                  Notice, SteerAccepted, SteerFailed, TextDelta, TextDone, parse_event)
from steer_tui.transport.transcripts import Transcripts, messages_to_input, normalize, with_answer
from steer_tui.transport.turn import Status, Turn

log = logging.getLogger("steer.transport")

# Errors after which the client reconnects and replays instead of failing the turn.
RECONNECT_CODES = {"websocket_connection_limit_reached"}
REPLAY_CODES = {"previous_response_not_found"}


@dataclass(frozen=True)
class Provider:
    name: str
    cancel: bool  # has response.cancel
    steer: bool  # has response.steer
    interrupt: str  # without cancel: "abandon" (move to a fresh stream_id) or "reconnect"
    send_event_ids: bool  # echoes our event_id on errors (ours does; others may reject the field)


PROVIDERS = {
    "gateway": Provider("gateway", True, True, "cancel", True),
    "openai": Provider("openai", False, False, "abandon", False),
    "xai": Provider("xai", False, False, "reconnect", False),
}


# -- actions: what the shell is asked to do ------------------------------------------------


@dataclass(slots=True)
class Wake:
    """A turn has new events (or ended): wake whoever waits to read it (its `readers`)."""
    readers: list


@dataclass(slots=True)
class Send:
    """Send this JSON object on the current connection; none, or a closed one, drops it."""
    payload: dict


@dataclass(slots=True)
class SendCreate:
    """(Re)send `turn`'s request: connect if need be, then send `TurnProtocol.request(...)`;
    first push `notice` (code, message); a failed connect ends the turn (`connect_failed`)."""
    turn: Turn
    replay: bool = False
    notice: tuple[str, str] | None = None


@dataclass(slots=True)
class StartSuccessor:
    """Start `turn`'s successor (`TurnProtocol.successor`) carrying its partial answer and `items`."""
    turn: Turn
    items: list


@dataclass(slots=True)
class Retire:
    """Send no more requests on `connection` (None: the current one) and close it."""
    connection: object = None


@dataclass(slots=True)
class Reconnect:
    """Close the current connection and open a new one; `background`: the caller does not wait."""
    background: bool = False


Action = Wake | Send | SendCreate | StartSuccessor | Retire | Reconnect
Actions = Sequence[Action]  # a list, or a turn's prebuilt (Wake(turn.readers),)


def _cancel(response_id: str) -> Send:
    return Send({"type": "response.cancel", "response_id": response_id})


class TurnProtocol:
    """Routing and turn state for one client (its transcripts in `transcripts`); every method
    answers with actions."""

    def __init__(self, provider: Provider, *, history_size: int = 512, clock=time.perf_counter):
        self.provider = provider
        self.transcripts = Transcripts(history_size)
        self.clock = clock
        self.open: set[Turn] = set()  # not ended
        self._event_ids = itertools.count(1)
        self._lane_alias: dict[str | None, str | None] = {}
        self._alias_n = itertools.count(1)
        self._by_id: dict[str, Turn] = {}
        self._by_event: dict[str, Turn] = {}
        self._waiting: dict[str | None, deque[Turn]] = {}  # sent, not yet created, per wire lane
        self._active_lane: dict[str | None, Turn] = {}  # streaming now, per wire lane
        self._successor_of: dict[str, Turn] = {}  # steered id -> turn awaiting the successor
        self._abandoned: dict[str, str | None] = {}  # response id -> its wire lane
        self._kill_successor_of: set[str] = set()
        self._abandoned_lanes: set[str | None] = set()

    # -- calls -------------------------------------------------------------------------------

    def new_turn(self, *, input, model, instructions, previous_response_id, stream_id, max_output_tokens,
                 temperature, generate, extra) -> Turn:
        """A turn for `create()`, open; its request goes out with `request()`."""
        params = {"model": model, "instructions": instructions, "input": input,
                  "previous_response_id": previous_response_id, "max_output_tokens": max_output_tokens,
                  "temperature": temperature, "generate": generate, "extra": extra or {}}
        turn = Turn(stream_id, params, self.transcripts.prompt(previous_response_id, instructions, normalize(input)))
        turn.wake = (Wake(turn.readers),)
        self.open.add(turn)
        return turn

    def discard(self, turn: Turn) -> None:
        """`turn`'s first request never went out."""
        self.open.discard(turn)

    def connected(self) -> None:
        # Ids and lanes abandoned on the old connection cannot appear on a new one.
        self._abandoned.clear()
        self._abandoned_lanes.clear()

    def request(self, turn: Turn, connection, *, replay: bool = False) -> dict:
        """The response.create object for `turn`, about to go out on `connection`; routes it."""
        p = turn.params
        payload = {"type": "response.create"}
        if p["model"]:
            payload["model"] = p["model"]
        prev = p["previous_response_id"]
        record = self.transcripts.get(prev)
        if record is not None and not replay and not record.server_ok:
            # The server never had this chain as we know it (a drop or an abandon cut the
            # answer short): send the whole transcript rather than a wrong chain.
            replay = True
            turn.push(Notice(None, turn.stream_id, "replayed",
                             "sent the whole transcript: the server does not hold the previous response "
                             "as this client knows it"))
        if replay and turn.prompt is not None:
            payload["input"] = messages_to_input(turn.prompt)
            turn.replayed = True
        else:
            if prev:
                payload["previous_response_id"] = prev
            if p["instructions"] is not None:
                payload["instructions"] = p["instructions"]
            payload["input"] = p["input"] if not isinstance(p["input"], list) else [
                dict(i, type=i.get("type", "message")) if isinstance(i, dict) else i for i in p["input"]]
        for key in ("max_output_tokens", "temperature"):
            if p[key] is not None:
                payload[key] = p[key]
        if not p["generate"]:
            payload["generate"] = False
        payload.update(p["extra"])
        wire_lane = self._lane_alias.get(turn.stream_id, turn.stream_id)
        turn.wire_stream_id = wire_lane
        if wire_lane is not None:
            payload["stream_id"] = wire_lane
        if self.provider.send_event_ids:
            turn.event_id = f"evt_{next(self._event_ids)}"
            payload["event_id"] = turn.event_id
        turn.set_status(Status.PENDING)
        turn.connection = connection
        self._waiting.setdefault(wire_lane, deque()).append(turn)
        if turn.event_id:
            self._by_event[turn.event_id] = turn
        turn.stats.sent_at = self.clock()
        return payload

    def request_lost(self, turn: Turn) -> Actions:
        """The connection closed under `turn`'s request and nobody else will resend it."""
        if turn.status is not Status.PENDING:
            return []
        self._forget_routes(turn)
        return [SendCreate(turn, notice=("reconnecting", "connection lost; sending again"))]

    def notice(self, turn: Turn, code: str, message: str) -> Actions:
        turn.push(Notice(turn.response_id, turn.stream_id, code, message))
        return [turn.wake[0]]

    def connect_failed(self, turn: Turn, message: str) -> Actions:
        return self._end(turn, Disconnected(None, turn.stream_id, message, turn.text), Status.DISCONNECTED)

    def cancel(self, turn: Turn) -> Actions:
        """The caller's cancel(): once its actions are carried out, no delta of `turn` is read."""
        if turn.ended and not turn.successor_pending:
            return []
        turn.purge_deltas()
        turn.successor_pending = False
        turn.steer_words = None
        turn.fallback_words = None
        if turn.response_id in self._successor_of:
            del self._successor_of[turn.response_id]
            self._kill_successor_of.add(turn.response_id)
        if turn.final is not None and not turn.ended:  # the terminal already came: just end
            return self._end(turn, turn.final, turn.status)
        return self._interrupt(turn, reason="cancelled")

    def steer(self, turn: Turn, words) -> Actions:
        """The caller's steer(words): response.steer where the server has it and the response
        runs; otherwise interrupt it and start a successor carrying the partial answer."""
        items = normalize(words)
        if not items:
            raise ValueError("steer() needs some words")
        in_progress = not turn.ended and turn.response_id is not None and turn.status is Status.IN_PROGRESS
        if self.provider.steer and in_progress:
            turn.purge_deltas()
            turn.steer_words = items
            turn.successor_pending = True
            self._successor_of[turn.response_id] = turn
            return [Send({"type": "response.steer", "response_id": turn.response_id,
                          "input": messages_to_input(items)})]
        actions: list[Action] = []
        rid, text = turn.response_id, turn.text
        if not turn.ended or turn.successor_pending:
            turn.purge_deltas()
            turn.successor_pending = True
            if self.provider.cancel:
                # The gateway answers with response.incomplete (cancelled); the successor follows it.
                turn.fallback_words = items
                return self._interrupt(turn, reason="steered")
            self._abandon(turn)
            if turn.prompt is not None and rid is not None:
                self.transcripts.remember(rid, turn.prompt, text, turn.previous_response_id, server_ok=False)
            turn.push(Incomplete(rid, turn.stream_id, "steered", text, {}))
            turn.set_status(Status.INCOMPLETE)
            actions.append(turn.wake[0])
            if self.provider.interrupt == "reconnect":
                actions.append(Reconnect())
        actions.append(StartSuccessor(turn, items))
        return actions

    def successor(self, turn: Turn, items: list[dict]) -> Actions:
        """A new request after `turn`'s response: chained on it, with its partial answer and `items`."""
        old_id, old_text = turn.response_id, turn.text
        old_prompt = turn.prompt
        turn.reopen()
        turn.new_response(self.clock())
        turn.successor_pending = False
        turn.push(Notice(old_id, turn.stream_id, "steer_fallback",
                         "continuing in a new turn that carries the partial answer and the new words"))
        prompt = with_answer(old_prompt, old_text) + items if old_prompt is not None else None
        prev, input_ = self.transcripts.continuation(old_id, old_text, items, prompt)
        turn.previous_response_id = prev
        turn.prompt = prompt
        turn.params = dict(turn.params, input=messages_to_input(input_), previous_response_id=prev,
                           instructions=None, generate=True)
        self.open.add(turn)
        return [turn.wake[0], SendCreate(turn)]

    def connection_lost(self, connection, reason: str, *, resend: bool = True) -> Actions:
        """Turns on `connection`: a response under way keeps what arrived and ends as
        Disconnected; a request not yet answered is sent again (unless `resend` is False)."""
        actions: list[Action] = []
        for turn in list(self.open):
            if turn.connection is not connection:
                continue
            if turn.response_id is None and turn.status is Status.PENDING and resend:
                self._forget_routes(turn)
                actions.append(SendCreate(turn, notice=("reconnecting", f"{reason}; sending the request again")))
                continue
            if turn.response_id is not None and turn.prompt is not None:
                self.transcripts.remember(turn.response_id, turn.prompt, turn.text, turn.previous_response_id, server_ok=False)
            msg = (f"{reason} after {turn.stats.deltas} deltas of response {turn.response_id}; "
                   "the partial text is kept" if turn.response_id else reason)
            actions += self._end(turn, Disconnected(turn.response_id, turn.stream_id, msg, turn.text),
                                 Status.DISCONNECTED)
        return actions

    def close(self, message: str) -> Actions:
        """The client closes: every open turn ends as Disconnected."""
        actions: list[Action] = []
        for turn in list(self.open):
            actions += self._end(turn, Disconnected(turn.response_id, turn.stream_id, message, turn.text),
                                 Status.DISCONNECTED)
        return actions

    def _interrupt(self, turn: Turn, *, reason: str) -> Actions:
        rid = turn.response_id
        if self.provider.cancel:
            turn.cancel_requested = True
            # Without an id yet the cancel goes out when response.created arrives.
            return [_cancel(rid)] if rid is not None else []
        # No cancel on the server: stop listening to this response and answer for it.
        self._abandon(turn)
        if turn.prompt is not None and rid is not None:
            self.transcripts.remember(rid, turn.prompt, turn.text, turn.previous_response_id, server_ok=False)
        actions = [*self._end(turn, Incomplete(rid, turn.stream_id, reason, turn.text, {}), Status.INCOMPLETE)]
        if self.provider.interrupt == "reconnect":
            actions.append(Reconnect(background=True))
        return actions

    def _abandon(self, turn: Turn) -> None:
        if turn.response_id is not None:
            self._abandoned[turn.response_id] = turn.wire_stream_id
            self._by_id.pop(turn.response_id, None)
        else:
            self._forget_routes(turn)
            # Its response.created is still to come: route it nowhere.
            self._abandoned_lanes.add(turn.wire_stream_id)
        if self.provider.interrupt == "abandon":
            # The server runs a lane FIFO, so later turns must not queue behind the abandoned one.
            self._abandoned_lanes.add(turn.wire_stream_id)
            self._lane_alias[turn.stream_id] = f"{turn.stream_id or 'lane'}~{next(self._alias_n)}"
        if self._active_lane.get(turn.wire_stream_id) is turn:
            del self._active_lane[turn.wire_stream_id]

    # -- server events -------------------------------------------------------------------------

    def receive(self, obj: dict) -> Actions:
        """One JSON object from the server."""
        event = parse_event(obj)
        if type(event) is TextDelta:
            return self._on_delta(event, obj)
        if isinstance(event, Created):
            return self._on_created(event)
        turn = self._route(event, obj)
        if turn is None:
            if isinstance(event, Error) and event.code in RECONNECT_CODES:
                return [Retire()]
            if isinstance(event, Error):
                log.warning("server error not tied to a request: %s", event.code)
            return ()
        if isinstance(event, Error) and turn.status is Status.PENDING:
            return self._on_create_error(turn, event)
        if isinstance(event, SteerFailed):
            return self._on_steer_failed(turn, event)
        if isinstance(event, TERMINAL):
            return self._on_terminal(turn, event)
        if isinstance(event, TextDone) and turn.interrupted:
            return ()
        turn.push(event)
        return turn.wake

    def _on_delta(self, event: TextDelta, obj: dict) -> Actions:
        """The per-delta path: a response under way is found by its id at once."""
        rid = event.response_id
        turn = self._by_id.get(rid) if rid is not None and rid not in self._abandoned else None
        if turn is None:
            turn = self._route(event, obj)
            if turn is None:
                return ()
        if turn.interrupted or turn.ended:
            return ()
        now = self.clock()
        st = turn.stats
        if st.first_delta_at is None:
            st.first_delta_at = now
            st.ttft_s = now - st.sent_at
        st.last_delta_at = now
        st.deltas += 1
        st.chars += len(event.delta)
        turn.parts.append(event.delta)
        if event.stream_id is None:
            event.stream_id = turn.stream_id
        if event.response_id is None:
            event.response_id = turn.response_id
        turn.events.append(event)
        return turn.wake

    def _route(self, event: Event, obj: dict) -> Turn | None:
        rid = event.response_id
        if rid is not None:
            if rid in self._abandoned:
                if isinstance(event, TERMINAL + (Error,)):
                    # The abandoned response is over: its lane carries no stray events any more.
                    self._abandoned_lanes.discard(self._abandoned.pop(rid))
                return None
            turn = self._by_id.get(rid)
            if turn is not None:
                return turn
            if isinstance(event, (SteerAccepted, SteerFailed)):
                return self._successor_of.get(rid)
        event_id = obj.get("event_id")
        if event_id and event_id in self._by_event:
            return self._by_event[event_id]
        sid = event.stream_id
        if sid in self._abandoned_lanes and rid is None:
            return None
        if isinstance(event, Error):
            lane = self._waiting.get(sid)
            if lane:
                return lane[0]
            waiting = [s for q in self._waiting.values() for s in q]
            if waiting:
                return waiting[0]
        return self._active_lane.get(sid)

    def _forget_routes(self, turn: Turn) -> None:
        for q in self._waiting.values():
            if turn in q:
                q.remove(turn)
        if turn.event_id:
            self._by_event.pop(turn.event_id, None)

    def _on_created(self, event: Created) -> Actions:
        turn = None
        prev, rid = event.previous_response_id, event.response_id
        if prev in self._kill_successor_of and rid:
            # The caller cancelled while a steer was on its way: stop the successor too.
            self._kill_successor_of.discard(prev)
            self._abandoned[rid] = event.stream_id
            return [_cancel(rid)] if self.provider.cancel else []
        if prev and prev in self._successor_of:
            turn = self._successor_of.pop(prev)
            turn.reopen()
            turn.new_response(self.clock())
            turn.successor_pending = False
            turn.previous_response_id = prev
            words = turn.steer_words or []
            turn.steer_words = None
            if turn.history and turn.prompt is not None:
                # The server continued from what it had generated (it may have run a little past
                # the point where we stopped showing deltas).
                old_text = turn.server_text if turn.server_text is not None else turn.history[-1][2]
                turn.prompt = with_answer(turn.prompt, old_text) + words
            turn.server_text = None
        else:
            lane = self._waiting.get(event.stream_id)
            if not lane and event.stream_id is None:
                lane = next((q for q in self._waiting.values() if q), None)
            if lane:
                turn = lane.popleft()
            if turn is None:
                if rid:
                    self._abandoned[rid] = event.stream_id
                return []
        if turn.event_id:
            self._by_event.pop(turn.event_id, None)
        turn.response_id = rid
        turn.set_status(Status.IN_PROGRESS)
        turn.stats.created_s = self.clock() - turn.stats.sent_at
        if event.stream_id is None:
            event.stream_id = turn.stream_id
        if rid:
            self._by_id[rid] = turn
        self._active_lane[turn.wire_stream_id] = turn
        turn.push(event)
        if turn.cancel_requested and self.provider.cancel and rid:
            return [turn.wake[0], _cancel(rid)]
        return turn.wake

    def _on_create_error(self, turn: Turn, event: Error) -> Actions:
        self._forget_routes(turn)
        if event.code in REPLAY_CODES and not turn.replayed and turn.prompt is not None:
            return [SendCreate(turn, replay=True, notice=(
                "replayed", "the server no longer has the previous response; replaying the transcript"))]
        if event.code in RECONNECT_CODES:
            return [Retire(turn.connection),
                    SendCreate(turn, replay=True, notice=("reconnected", event.message or event.code))]
        return self._end(turn, event, Status.ERROR)

    def _on_steer_failed(self, turn: Turn, event: SteerFailed) -> Actions:
        words = turn.steer_words
        turn.steer_words = None
        if event.response_id:
            self._successor_of.pop(event.response_id, None)
        turn.push(event)
        if words is None:
            return [turn.wake[0]]
        if turn.ended or turn.final is not None:
            # The response finished before the steer arrived: continue with a new turn.
            return [turn.wake[0], StartSuccessor(turn, words)]
        turn.fallback_words = words
        return [turn.wake[0], *self._interrupt(turn, reason="steered")]

    def _on_terminal(self, turn: Turn, event: Event) -> Actions:
        rid = turn.response_id
        st = turn.stats
        st.total_s = self.clock() - st.sent_at
        usage = getattr(event, "usage", None)
        if usage:
            st.usage = usage
        if isinstance(event, Completed):
            status = Status.COMPLETED
        elif isinstance(event, Incomplete):
            status = Status.INCOMPLETE
        elif isinstance(event, Failed):
            status = Status.FAILED
        else:
            status = Status.DISCONNECTED
        if isinstance(event, (Completed, Incomplete)) and rid and turn.prompt is not None:
            # The server's stored text is what it generated; ours is what we showed. They agree
            # unless we interrupted; then the chain continues from the server's.
            server_text = event.text if isinstance(event, Incomplete) and event.text else turn.text
            turn.server_text = server_text
            self.transcripts.remember(rid, turn.prompt, server_text, turn.previous_response_id, server_ok=True)
        if isinstance(event, Incomplete) and turn.interrupted:
            # The caller gets the text it was shown; deltas in flight at the interrupt were dropped.
            event.text = turn.text
        if rid:
            self._by_id.pop(rid, None)
        if self._active_lane.get(turn.wire_stream_id) is turn:
            del self._active_lane[turn.wire_stream_id]
        if event.stream_id is None:
            event.stream_id = turn.stream_id
        if event.response_id is None:
            event.response_id = rid
        turn.set_status(status)
        fallback = turn.fallback_words
        if fallback is not None and not isinstance(event, Failed):
            turn.fallback_words = None
            if isinstance(event, Incomplete) and event.reason == "cancelled":
                event.reason = "steered"
            turn.push(event)
            turn.final = event
            return [turn.wake[0], StartSuccessor(turn, fallback)]
        if turn.steer_words is not None or (turn.successor_pending and isinstance(event, Incomplete)
                                            and event.reason == "steered"):
            turn.push(event)  # the successor's response.created follows
            turn.final = event
            return turn.wake
        return self._end(turn, event, status)

    def _end(self, turn: Turn, final: Event, status: Status) -> Actions:
        if turn.ended:
            return ()
        turn.set_status(status)
        turn.successor_pending = False
        if turn.response_id:
            self._by_id.pop(turn.response_id, None)
        self._forget_routes(turn)
        if self._active_lane.get(turn.wire_stream_id) is turn:
            del self._active_lane[turn.wire_stream_id]
        if turn.stats.total_s is None and turn.stats.sent_at:
            turn.stats.total_s = self.clock() - turn.stats.sent_at
        turn.end(final)
        self.open.discard(turn)
        return turn.wake
