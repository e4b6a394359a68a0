"""steer_tui.attempts without a stream: one test per row of TRANSITIONS, in the table's order."""

from __future__ import annotations

import pytest

from steer_tui.attempts import BEFORE_AGAIN, ENDS, MAX_DEPARTURES, TRANSITIONS, Act, AttemptPolicy, Outcome


def policy(retries: int = 0, attempts: int = 1, **state) -> AttemptPolicy:
    p = AttemptPolicy(retries)
    for _ in range(attempts):
        p.begin()
    for name, value in state.items():
        setattr(p, name, value)
    return p


def test_a_docstring_asked_again_that_is_not_one_restores_the_first():
    p = policy(doc_first=True, doc_again=True)
    assert p.decide(Outcome("nothing")) is Act.RESTORE_DOC
    assert not p.doc_first  # once: the restored answer is decided on as any other
    assert p.decide(Outcome("proposal")) is Act.DONE


def test_a_docstring_asked_again_that_is_one_goes_on_down_the_table():
    p = policy(doc_first=True, doc_again=True)
    assert p.decide(Outcome("proposal", doc_repeats_module=True)) is Act.DONE


def test_a_docstring_repeating_the_modules_is_asked_again_once():
    p = policy()
    assert p.decide(Outcome("proposal", doc_repeats_module=True)) is Act.ASK_DOC_AGAIN
    assert p.doc_first and p.doc_again
    p.begin()
    assert p.decide(Outcome("proposal", doc_repeats_module=True)) is Act.DONE


def test_a_docstring_repeating_the_modules_is_not_asked_again_after_a_stop():
    assert policy().decide(Outcome("proposal", doc_repeats_module=True, stopped=True)) is Act.DONE


@pytest.mark.parametrize("outcome", [Outcome("nothing", again=True), Outcome("refused", again=True),
                                     Outcome("proposal", again=True, base_clash=True)])
def test_the_request_asked_as_first_asked_that_cannot_keep_the_addition_is_asked_of_its_code(outcome):
    p = policy(retries=2, attempts=3, departures=1, no_change_retried=True)
    assert p.decide(outcome) is Act.ASK_AGAIN
    assert (p.spent, p.departures, p.no_change_retried) == (3, 0, False)


def test_the_request_asked_as_first_asked_that_keeps_the_addition_is_done():
    assert policy().decide(Outcome("proposal", again=True)) is Act.DONE


@pytest.mark.parametrize("status", ["proposal", "nothing"])
def test_an_addition_is_asked_once_the_answer_is_complete(status):
    p = policy(retries=2, attempts=2, departures=1)
    assert p.decide(Outcome(status, additions=True)) is Act.ASK_ADDITION
    assert (p.spent, p.departures) == (2, 0)
    assert p.kept == (status == "proposal")  # the answer the addition builds on stands if it fails


@pytest.mark.parametrize("outcome", [Outcome("refused", additions=True), Outcome("proposal", additions=True, stopped=True),
                                     Outcome("proposal", additions=True, has_region=False)])
def test_no_addition_after_a_refusal_a_stop_or_without_a_region(outcome):
    assert policy().decide(outcome) is not Act.ASK_ADDITION


@pytest.mark.parametrize("outcome,retries", [(Outcome("proposal", then=True), 0), (Outcome("nothing", then=True), 0),
                                             (Outcome("refused", then=True), 0)])
def test_the_interrupted_request_follows_its_addition(outcome, retries):
    p = policy(retries=retries)
    assert p.decide(outcome) is Act.ASK_THEN
    assert p.spent == 1 and p.kept == (outcome.status == "proposal")


def test_the_interrupted_request_waits_while_the_additions_refusal_is_retried():
    assert policy(retries=1).decide(Outcome("refused", then=True)) is Act.RETRY_REFUSED


@pytest.mark.parametrize("status,unchanged", [("nothing", False), ("proposal", True)])
def test_an_answer_built_on_a_kept_one_that_changed_nothing_is_departed_from(status, unchanged):
    p = policy(kept=True)
    assert p.decide(Outcome(status, unchanged_shown=unchanged, can_depart=True)) is Act.DEPART
    assert p.departures == 1


@pytest.mark.parametrize("outcome", [Outcome("nothing"), Outcome("nothing", can_depart=True, ask_asks_nothing=True)])
def test_else_the_kept_answer_is_restored(outcome):
    assert policy(kept=True).decide(outcome) is Act.RESTORE
    assert policy(kept=True, departures=MAX_DEPARTURES).decide(Outcome("nothing", can_depart=True)) is Act.RESTORE


def test_a_stopped_answer_built_on_a_kept_one_ends_the_turn_as_it_is():
    assert policy(kept=True).decide(Outcome("nothing", stopped=True, can_depart=True)) is Act.DONE


def test_a_changed_answer_built_on_a_kept_one_stands():
    assert policy(kept=True).decide(Outcome("proposal", can_depart=True)) is Act.DONE


def test_an_answer_that_changed_nothing_is_departed_from_even_with_no_retries():
    p = policy(retries=0)
    assert p.decide(Outcome("nothing", can_depart=True)) is Act.DEPART
    p.begin()
    assert p.decide(Outcome("nothing", can_depart=True)) is Act.REFUSE_NO_CHANGE  # one departure, then refused


@pytest.mark.parametrize("state", [{"departures": 1}, {"no_change_retried": True}, {}])
def test_an_answer_that_changed_nothing_again_is_refused(state):
    p = policy(retries=0, **state)
    assert p.decide(Outcome("nothing")) is Act.REFUSE_NO_CHANGE


def test_an_answer_that_changed_nothing_is_asked_again_once_while_retries_are_left():
    p = policy(retries=2)
    assert p.decide(Outcome("nothing")) is Act.RETRY_NO_CHANGE
    assert p.no_change_retried
    p.begin()
    assert p.decide(Outcome("nothing", can_depart=True)) is Act.REFUSE_NO_CHANGE


@pytest.mark.parametrize("outcome", [Outcome("nothing", already_applied=True), Outcome("nothing", asks_nothing=True),
                                     Outcome("nothing", stopped=True)])
def test_nothing_to_change_is_an_answer_when_the_request_allows_it(outcome):
    assert policy(retries=2).decide(outcome) is Act.DONE


def test_a_refusal_of_an_answer_built_on_a_kept_one_with_no_retry_left_restores_it():
    assert policy(retries=0, kept=True).decide(Outcome("refused")) is Act.RESTORE


@pytest.mark.parametrize("outcome,retries", [(Outcome("proposal"), 2), (Outcome("refused"), 0),
                                             (Outcome("refused", stopped=True), 2), (Outcome("stopped"), 2)])
def test_a_proposal_a_stop_or_a_refusal_with_no_retry_left_ends_the_turn(outcome, retries):
    assert policy(retries=retries).decide(outcome) is Act.DONE


def test_a_refusal_for_an_unused_parameter_is_departed_from():
    p = policy(retries=2)
    assert p.decide(Outcome("refused", unused_params=True, can_depart=True)) is Act.DEPART
    p.begin()
    assert p.decide(Outcome("refused", unused_params=True, can_depart=True)) is Act.RETRY_REFUSED


def test_an_answer_caught_in_a_loop_is_departed_from_once_then_asked_again_with_feedback():
    p = policy(retries=2)
    assert p.decide(Outcome("refused", looped=True, can_depart=True)) is Act.DEPART
    p.begin()
    assert p.decide(Outcome("refused", looped=True, can_depart=True)) is Act.RETRY_REFUSED
    p = policy(retries=0)
    assert p.decide(Outcome("refused", looped=True, can_depart=True)) is Act.DONE  # no retry left


def test_an_answer_refused_again_as_it_was_is_departed_from_while_an_attempt_is_left():
    p = policy(retries=2)
    assert p.decide(Outcome("refused", can_depart=True)) is Act.RETRY_REFUSED
    p.begin()
    assert p.decide(Outcome("refused", repeated=True, can_depart=True)) is Act.DEPART
    p.begin()
    assert p.decide(Outcome("refused", repeated=True, can_depart=True)) is Act.DONE  # no retry left
    p = policy(retries=2)
    assert p.decide(Outcome("refused", repeated=True)) is Act.RETRY_REFUSED  # the engine cannot depart
    p = policy(retries=2, departures=1)  # a departure made already: the attempt is made either way
    assert p.decide(Outcome("refused", repeated=True, can_depart=True)) is Act.DEPART


def test_a_refusal_with_retries_left_goes_back_with_its_feedback():
    p = policy(retries=1)
    assert p.decide(Outcome("refused", can_depart=True)) is Act.RETRY_REFUSED
    p.begin()
    assert p.decide(Outcome("refused")) is Act.DONE  # the retries are spent


def test_retries_are_counted_per_request():
    p = policy(retries=1, attempts=3, spent=2)
    assert p.can_retry
    assert p.decide(Outcome("refused")) is Act.RETRY_REFUSED


def test_every_row_is_tested_and_every_act_can_come_out():
    # One test above per row (17); the acts the rows give are all of Act, and the last row always holds.
    assert len(TRANSITIONS) == 17
    assert {act for _, act in TRANSITIONS} == set(Act)
    assert TRANSITIONS[-1][0](policy(), Outcome("refused"), False)
    assert ENDS.isdisjoint(BEFORE_AGAIN)
