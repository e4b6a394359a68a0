"""A Session's states and the one table of the transitions allowed between them (checked)."""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    IDLE = "idle"  # no turn, no proposal under review
    GENERATING = "generating"  # a turn is streaming
    INTERRUPTED = "interrupted"  # the user stopped a turn (or the connection was lost); what was complete is the proposal
    REVIEW = "review"  # a finished turn left a proposal to accept or reject


IDLE, GENERATING, INTERRUPTED, REVIEW = State

# Every allowed change of state; anything else is a bug in the session, not a user error.
TRANSITIONS: dict[State, frozenset[State]] = {
    IDLE: frozenset({GENERATING}),
    GENERATING: frozenset({REVIEW, IDLE, INTERRUPTED}),
    INTERRUPTED: frozenset({IDLE, GENERATING}),
    REVIEW: frozenset({IDLE, GENERATING}),
}


class StateTransitionError(RuntimeError):
    """A change of state the table does not allow."""


def check_transition(old: State, new: State) -> None:
    """Raise StateTransitionError unless `old -> new` is in TRANSITIONS (staying put is always allowed)."""
    if new is not old and new not in TRANSITIONS[old]:
        raise StateTransitionError(f"session state {old.value} -> {new.value} is not allowed")
