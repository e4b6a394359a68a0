"""Typed events of the Responses protocol as the client hands them to its caller.

The wire carries JSON objects; `parse_event` turns one into the dataclass below.
Every event names the response it belongs to (`response_id`, None before the
server assigned one) and its lane (`stream_id`). Unknown server event types come
out as `Other` so that a newer server never breaks an older client.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stats:
    """Per-response timings and usage, filled in by the client as events arrive."""

    sent_at: float = 0.0  # time.perf_counter() when response.create went out
    created_s: float | None = None  # create -> response.created
    ttft_s: float | None = None  # create -> first text delta
    total_s: float | None = None  # create -> terminal event
    deltas: int = 0
    chars: int = 0
    first_delta_at: float | None = None
    last_delta_at: float | None = None
    usage: dict = field(default_factory=dict)

    @property
    def deltas_per_s(self) -> float | None:
        """Delta rate between the first and the last delta (None below two deltas)."""
        if self.deltas < 2 or self.first_delta_at is None or self.last_delta_at is None:
            return None
        span = self.last_delta_at - self.first_delta_at
        return (self.deltas - 1) / span if span > 0 else None

    @property
    def output_tokens(self) -> int | None:
        return self.usage.get("output_tokens") if self.usage else None


@dataclass
class Event:
    response_id: str | None = None
    stream_id: str | None = None


@dataclass
class Created(Event):
    """The server started a response (`response.created`)."""

    previous_response_id: str | None = None
    model: str | None = None


@dataclass
class TextDelta(Event):
    delta: str = ""
    sequence_number: int | None = None


@dataclass
class TextDone(Event):
    text: str = ""


@dataclass
class Completed(Event):
    """Terminal: the response finished normally. `text` is the whole output."""

    text: str = ""
    usage: dict = field(default_factory=dict)


@dataclass
class Incomplete(Event):
    """Terminal: stopped early. reason: cancelled | steered | max_output_tokens | ..."""

    reason: str = ""
    text: str = ""
    usage: dict = field(default_factory=dict)


@dataclass
class Failed(Event):
    """Terminal: the server or its engine failed (`response.failed`)."""

    code: str = ""
    message: str = ""
    text: str = ""


@dataclass
class Error(Event):
    """An `error` event: a request the server refused. Terminal for a response not yet created."""

    code: str = ""
    message: str = ""
    param: str | None = None


@dataclass
class Disconnected(Event):
    """Terminal, client-made: the connection dropped mid-response; `text` is what had arrived."""

    message: str = ""
    text: str = ""


@dataclass
class SteerAccepted(Event):
    pass


@dataclass
class SteerFailed(Event):
    code: str = ""
    message: str = ""


@dataclass
class Notice(Event):
    """Informational, client-made: reconnected, replayed the transcript, fell back to interrupt+resend."""

    code: str = ""
    message: str = ""


@dataclass
class Other(Event):
    """A server event this client does not model; `data` is the raw JSON object."""

    type: str = ""
    data: dict = field(default_factory=dict)


TERMINAL = (Completed, Incomplete, Failed, Disconnected)


def _output_text(response: dict) -> str:
    parts = []
    for item in response.get("output") or []:
        if isinstance(item, dict):
            for content in item.get("content") or []:
                if isinstance(content, dict) and content.get("type") == "output_text":
                    parts.append(str(content.get("text") or ""))
    return "".join(parts)


def parse_event(obj: dict) -> Event:
    """Turn one server JSON object into a typed event."""
    kind = obj.get("type")
    response = obj.get("response") if isinstance(obj.get("response"), dict) else {}
    rid = obj.get("response_id") or response.get("id")
    sid = obj.get("stream_id") or response.get("stream_id")
    if kind == "response.created":
        return Created(rid, sid, response.get("previous_response_id"), response.get("model"))
    if kind == "response.output_text.delta":
        return TextDelta(rid, sid, str(obj.get("delta") or ""), obj.get("sequence_number"))
    if kind == "response.output_text.done":
        return TextDone(rid, sid, str(obj.get("text") or ""))
    if kind == "response.completed":
        return Completed(rid, sid, _output_text(response), response.get("usage") or {})
    if kind == "response.incomplete":
        details = response.get("incomplete_details") or {}
        return Incomplete(rid, sid, str(details.get("reason") or ""), _output_text(response), response.get("usage") or {})
    if kind == "response.failed":
        err = response.get("error") or obj.get("error") or {}
        return Failed(rid, sid, str(err.get("code") or "failed"), str(err.get("message") or ""), _output_text(response))
    if kind == "error":
        err = obj.get("error") if isinstance(obj.get("error"), dict) else {}
        return Error(rid, sid, str(err.get("code") or err.get("type") or "error"), str(err.get("message") or ""),
                     err.get("param"))
    if kind == "response.steer.accepted":
        return SteerAccepted(rid, sid)
    if kind == "response.steer.failed":
        err = obj.get("error") if isinstance(obj.get("error"), dict) else {}
        return SteerFailed(rid, sid, str(err.get("code") or "steer_failed"), str(err.get("message") or ""))
    return Other(rid, sid, str(kind), obj)
