"""The turn's attempt policy, sans I/O: what an attempt's outcome leads to (ask again, depart from
the greedy answer, restore an earlier answer, ask what a redirect queued, or end the turn).

Like steer_tui/transport/protocol.py for the wire: facts about an attempt go in (an `Outcome`,
which the runner, steer_tui.turn.Turn.run, reads off the judged answer), an `Act` comes out, and
the runner carries it out (the prompt, the stream, the proposal, the notices). The counters that
decide between retrying and giving up live here and change only through `TRANSITIONS`, one table
read top to bottom, the first row whose guard holds deciding; tests/session/test_attempts.py plays
each row without a stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Callable

# Departing retries of one request. A second one passed no more dev tasks and cost about one
# answer each time it ran (bench/results/levers/README.md, "second departure").
MAX_DEPARTURES = 1


class Act(StrEnum):
    """What the runner does after an attempt."""

    RESTORE_DOC = "restore_doc"  # the class docstring asked again was not one: its first answer, judged again
    ASK_DOC_AGAIN = "ask_doc_again"  # the docstring repeats the module's: ask for one of the class's own
    ASK_AGAIN = "ask_again"  # the request asked as first asked cannot keep the addition's answer: ask it of that code
    ASK_ADDITION = "ask_addition"  # words said to add to the request: ask them on their own
    ASK_THEN = "ask_then"  # the addition is answered: ask the request it interrupted
    DEPART = "depart"  # ask the same, departing from this answer (the model's next most likely one)
    RETRY_NO_CHANGE = "retry_no_change"  # ask again, saying the answer changed nothing
    RETRY_REFUSED = "retry_refused"  # ask again with the refusal's feedback
    RESTORE = "restore"  # the answer built on an earlier one failed: that one stands; the turn ends
    REFUSE_NO_CHANGE = "refuse_no_change"  # no answer changed anything: the turn ends refused
    DONE = "done"  # the turn ends with this answer


ENDS = frozenset({Act.RESTORE, Act.REFUSE_NO_CHANGE, Act.DONE})  # the turn ends with these
# Decided by the rows above the one for `again`: a request asked again as first asked is still
# to be judged after them; after any other act it has been (the runner lets it go).
BEFORE_AGAIN = frozenset({Act.RESTORE_DOC, Act.ASK_DOC_AGAIN})


@dataclass(frozen=True)
class Outcome:
    """What the runner knows of an attempt once its answer is judged (or stopped)."""

    status: str  # steer_tui.events.TurnResult.status: proposal | nothing | refused | stopped
    stopped: bool = False  # the turn is no longer the session's (Esc, a lost connection, a redirect)
    already_applied: bool = False  # "nothing": the file already does what was asked
    can_depart: bool = False  # the engine can depart from this answer (greedy answers, an engine with `avoid`)
    asks_nothing: bool = False  # the turn's request allows an answer that changes nothing
    ask_asks_nothing: bool = False  # so do the words this attempt asked
    doc_repeats_module: bool = False  # a class's docstring, asked alone, repeats the module's
    base_clash: bool = False  # asked again as first asked, the answer clashed with the addition's or added nothing
    unused_params: bool = False  # refused for a new parameter the function never reads
    looped: bool = False  # refused, caught in a loop (the same lines over and over)
    repeated: bool = False  # refused, the answer the attempt before was refused for, written again
    unchanged_shown: bool = False  # a proposal leaving the code it was shown as it was
    has_region: bool = True  # the turn rewrites a region (additions are asked of regions only)
    additions: bool = False  # words said during the answer wait to be asked ("also X", redirect "after")
    then: bool = False  # a request an addition interrupted waits to be asked again
    again: bool = False  # the attempt asked the request again as first asked, after an addition


class AttemptPolicy:
    """The counters of one turn's attempts and the decision after each (`decide`)."""

    def __init__(self, retries: int):
        self.retries = retries  # refusals whose feedback goes back to the model
        self.attempt = 0  # attempts begun
        self.spent = 0  # attempts that went to earlier requests (not counted against the retries)
        self.departures = 0  # departing retries made for the request
        self.no_change_retried = False  # the request was asked again for an answer that changed nothing
        self.doc_first = False  # a class's docstring is asked again; its first answer stands if that fails
        self.doc_again = False  # that was done in this turn
        self.kept = False  # an answer stands that the answers now asked build on (restored if they fail)

    def begin(self) -> None:
        self.attempt += 1

    @property
    def can_retry(self) -> bool:
        """A refusal of the attempt under way is retried."""
        return self.attempt - self.spent <= self.retries

    @property
    def exhausted(self) -> bool:
        return not self.can_retry

    @property
    def may_depart(self) -> bool:
        """Another departing retry may be made for the request (MAX_DEPARTURES; an answer written
        again as it was refused is departed from regardless)."""
        return self.departures < MAX_DEPARTURES

    def decide(self, o: Outcome) -> Act:
        """The action for outcome `o`, with the counters updated as it says."""
        first, self.doc_first = self.doc_first, False  # the docstring asked again is this attempt's: decided once
        for guard, act in TRANSITIONS:
            if guard(self, o, first):
                _EFFECTS.get(act, _none)(self, o)
                return act
        raise AssertionError("the last row of TRANSITIONS always holds")


def _none(p: AttemptPolicy, o: Outcome) -> None:
    pass


def _new_request(p: AttemptPolicy, o: Outcome) -> None:
    """Another request is asked from here: its retries and departures start over."""
    p.spent, p.no_change_retried, p.departures = p.attempt, False, 0


def _new_request_on_answer(p: AttemptPolicy, o: Outcome) -> None:
    _new_request(p, o)
    p.kept = p.kept or o.status == "proposal"


def _departed(p: AttemptPolicy, o: Outcome) -> None:
    p.departures += 1


def _doc_again(p: AttemptPolicy, o: Outcome) -> None:
    p.doc_first = p.doc_again = True


def _no_change_retried(p: AttemptPolicy, o: Outcome) -> None:
    p.no_change_retried = True


_EFFECTS: dict[Act, Callable[[AttemptPolicy, Outcome], None]] = {
    Act.ASK_DOC_AGAIN: _doc_again,
    Act.ASK_AGAIN: _new_request,
    Act.ASK_ADDITION: _new_request_on_answer,
    Act.ASK_THEN: _new_request_on_answer,
    Act.DEPART: _departed,
    Act.RETRY_NO_CHANGE: _no_change_retried,
}

Guard = Callable[[AttemptPolicy, Outcome, bool], bool]  # (policy, outcome, a docstring asked again)


def _unchanged(o: Outcome) -> bool:
    return o.status == "nothing" or (o.status == "proposal" and o.unchanged_shown)


def _no_change(p: AttemptPolicy, o: Outcome) -> bool:
    return o.status == "nothing" and not o.already_applied and not o.stopped and not o.asks_nothing


# Read top to bottom; the first row whose guard holds gives the action.
TRANSITIONS: list[tuple[Guard, Act]] = [
    # A class's docstring asked again (it repeated the module's) that is not one: the first stands.
    (lambda p, o, first: first and o.status != "proposal" and not o.stopped, Act.RESTORE_DOC),
    # Given only the docstring's text to write, the small model repeated the module's: asked once
    # more, saying what the class is.
    (lambda p, o, first: not first and o.doc_repeats_module and o.status == "proposal" and not o.stopped
     and not p.doc_again, Act.ASK_DOC_AGAIN),
    # The request asked as first asked clashed with the addition's answer, added nothing to it, or
    # was refused: asked of the code the addition left, after its exchange.
    (lambda p, o, first: o.again and not o.stopped and (o.status in ("nothing", "refused")
                                                        or (o.status == "proposal" and o.base_clash)), Act.ASK_AGAIN),
    # Asked on its own of the code as the answer left it, an addition is done; asked together with
    # the request, the small model did one of the two (bench/redirect.py).
    (lambda p, o, first: o.additions and not o.stopped and o.status in ("proposal", "nothing") and o.has_region,
     Act.ASK_ADDITION),
    # The addition is answered (or its retries are spent): the request it interrupted.
    (lambda p, o, first: o.then and not o.stopped and o.has_region and (
        o.status in ("proposal", "nothing") or (o.status == "refused" and p.exhausted)), Act.ASK_THEN),
    # The answer built on a kept one changed nothing: its next most likely answer, else the kept one.
    (lambda p, o, first: p.kept and _unchanged(o) and not o.stopped and not o.ask_asks_nothing
     and p.may_depart and o.can_depart, Act.DEPART),
    (lambda p, o, first: p.kept and _unchanged(o) and not o.stopped, Act.RESTORE),
    (lambda p, o, first: p.kept and _unchanged(o), Act.DONE),
    # An answer that changes nothing is a failed attempt, not "nothing to change": departed from
    # (even where no retries are allowed: it is the next most likely answer, not the same one),
    # else asked again once saying so, then a refusal.
    (lambda p, o, first: _no_change(p, o) and not p.no_change_retried and p.may_depart and o.can_depart, Act.DEPART),
    (lambda p, o, first: _no_change(p, o) and (p.departures or p.no_change_retried or p.exhausted),
     Act.REFUSE_NO_CHANGE),
    (lambda p, o, first: _no_change(p, o), Act.RETRY_NO_CHANGE),
    # A proposal, a stop, or a refusal with no retry left ends the turn; a refusal of an answer
    # built on a kept one leaves the kept one.
    (lambda p, o, first: o.status == "refused" and not o.stopped and p.exhausted and p.kept, Act.RESTORE),
    (lambda p, o, first: o.status != "refused" or p.exhausted or o.stopped, Act.DONE),
    # Told that a new parameter goes unread, the small model wrote the same answer again: departed from.
    (lambda p, o, first: o.unused_params and p.may_depart and o.can_depart, Act.DEPART),
    # Caught in a loop, greedy decoding goes round it again when asked again: departed from where
    # it went round the first time.
    (lambda p, o, first: o.looped and p.may_depart and o.can_depart, Act.DEPART),
    # Told what was wrong with its answer, greedy decoding wrote the same answer again (a broken
    # string three times over): asked once more, it would again; departed from instead, even after
    # a departure (the attempt is made either way).
    (lambda p, o, first: o.repeated and o.can_depart, Act.DEPART),
    (lambda p, o, first: True, Act.RETRY_REFUSED),
]
