"""The contract every gateway engine implements (local, upstream, replay).

The gateway owns the protocol; an engine only turns a chat transcript into text
deltas. Cancellation is cooperative: the gateway sets `cancel` and the engine
must stop before producing its next delta (for llama.cpp: before the next
decode step). Steering is built by the gateway on top of cancel: it stops the
engine, appends the partial output and the new input to the transcript, and
starts a successor request with the same `session_key`, so an engine with a
prefix cache (local) reuses everything it already evaluated.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import AsyncIterator


@dataclass
class Usage:
    """Token accounting reported in `response.completed`."""

    input_tokens: int = 0  # prompt tokens in the request
    output_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens reused from the engine's cache (not evaluated again)
    evaluated_tokens: int = 0  # prompt tokens actually evaluated for this request
    draft_tokens: int = 0  # speculative decoding: draft tokens proposed for verification
    draft_accepted: int = 0  # ... and those the model agreed with (output without a step of their own)

    def to_json(self) -> dict:
        out = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
            "input_tokens_details": {"cached_tokens": self.cached_tokens},
            "evaluated_tokens": self.evaluated_tokens,
        }
        if self.draft_tokens:
            # Named as in OpenAI's Predicted Outputs usage.
            out["output_tokens_details"] = {"accepted_prediction_tokens": self.draft_accepted,
                                            "rejected_prediction_tokens": self.draft_tokens - self.draft_accepted}
        return out


def estimate_tokens(messages: list[dict]) -> int:
    """A prompt's size at ~4 characters a token, for engines that have no tokenizer (or no count yet)."""
    return max(1, sum(len(str(m.get("content") or "")) for m in messages) // 4)


@dataclass
class EngineRequest:
    """One generation (or prewarm) request, already flattened to chat messages."""

    response_id: str
    messages: list[dict]  # [{"role": "system"|"user"|"assistant", "content": str}, ...]
    session_key: str  # stable per client connection + stream_id: cache affinity
    model: str | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    generate: bool = True  # False: prewarm the prompt only, produce no text
    # The connection it came on, when the engine may let its prewarms in between the steps of
    # its answer (a redirect typed while the model writes); None: it waits its turn.
    client: str | None = None
    # An answer the client rejected (it changed nothing), and the byte of it from which the new
    # answer may depart: an engine with "avoid" in its features departs at its least confident
    # token (depart.py); any other answers the request as if it were not there.
    avoid: tuple[str, int, bool] | None = None
    # The text the answer begins with (an engine with "prefix" in its features goes on from it and
    # does not send it back), and strings at which the answer ends, unsent ("stop").
    prefix: str | None = None
    stop: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)  # filled in by the engine
    finish_reason: str | None = None  # "stop", "length", "cancelled", set by the engine


class EngineError(Exception):
    """An engine failure with a protocol error code (e.g. `upstream_error`, `model_not_found`)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Engine(ABC):
    """Turns chat transcripts into streamed text. One instance serves every connection."""

    name: str = "engine"
    # Shown to users wherever the engine is named (status line, `steer serve` banner).
    label: str = "engine"
    # What it does beyond the Responses protocol, as the gateway's /health reports it ("avoid",
    # "prefix", "stop"): the gateway refuses a request that asks for one its engine lacks.
    features: frozenset[str] = frozenset()

    # The context window (tokens) a prompt and its answer share, when the engine has one of its
    # own (the gateway's /health reports it); None when it does not know (a remote server).
    context_tokens: int | None = None

    async def start(self) -> None:
        """Load models / open pools. Called once before serving."""

    async def close(self) -> None:
        """Release resources."""

    @property
    def model_name(self) -> str:
        return self.name

    @abstractmethod
    def stream(self, request: EngineRequest, cancel: threading.Event) -> AsyncIterator[str]:
        """Yield text deltas for `request` until done or `cancel` is set.

        Must fill `request.usage` and `request.finish_reason` before finishing.
        With `request.generate` False it evaluates the prompt into its cache (if it
        has one) and yields nothing. Raises EngineError on failure.
        """
