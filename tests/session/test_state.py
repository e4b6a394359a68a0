"""The session's transition table (steer_tui.state), checked without a session or a socket."""

from __future__ import annotations

import pytest

from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW, TRANSITIONS, State, StateTransitionError, check_transition

ALLOWED = {
    (IDLE, GENERATING),  # send
    (GENERATING, REVIEW),  # the answer left a proposal
    (GENERATING, IDLE),  # ... or none; or Esc / a lost connection over nothing
    (GENERATING, INTERRUPTED),  # Esc / a lost connection with complete blocks
    (INTERRUPTED, IDLE),  # accept, reject, or the stopped turn ends with nothing left
    (INTERRUPTED, GENERATING),  # a new instruction
    (REVIEW, IDLE),  # accept, reject
    (REVIEW, GENERATING),  # a new instruction replaces the proposal
}


@pytest.mark.parametrize("old", list(State))
@pytest.mark.parametrize("new", list(State))
def test_every_pair_of_states(old, new):
    if old is new or (old, new) in ALLOWED:
        check_transition(old, new)
    else:
        with pytest.raises(StateTransitionError, match=f"{old.value} -> {new.value}"):
            check_transition(old, new)


def test_the_table_names_every_state_and_only_the_allowed_moves():
    assert set(TRANSITIONS) == set(State)
    assert {(a, b) for a, targets in TRANSITIONS.items() for b in targets} == ALLOWED


def test_states_compare_equal_to_their_names():
    # what the status line shows, and what older listeners compared against
    assert [s.value for s in State] == ["idle", "generating", "interrupted", "review"]
    assert GENERATING == "generating" and str(REVIEW) == "review"
