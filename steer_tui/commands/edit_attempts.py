"""`steer edit --attempts N [--check CMD]`: N alternatives of the request (steer_tui.alternatives); the
most likely one that applies is written, or with --check the first in that order whose check passes
(steer_tui.check: CMD in a scratch copy of the project, never the user's tree).

Exit codes as `steer edit`'s, and with --check: 1 when no alternative passes (the file untouched,
each attempt's check summarised on stderr, `--json` status `check_failed`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Callable

from steer_tui.alternatives import MAX_ALTERNATIVES, Alternative, Alternatives, LaneEnded, LaneStarted
from steer_tui.check import DEFAULT_JOBS, DEFAULT_TIMEOUT_S, CheckOutcome, Checker, CheckRun


def _count(low: int, high: int, what: str):
    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {value!r}") from None
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {n}")
        return n

    return parse


def _seconds(value: str) -> float:
    try:
        s = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--check-timeout must be a number of seconds, not {value!r}") from None
    if not 0 < s <= 24 * 3600:
        raise argparse.ArgumentTypeError(f"--check-timeout must be over 0 and at most a day, not {value}")
    return s


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--attempts", metavar="N", type=_count(1, MAX_ALTERNATIVES, "--attempts"), default=1,
                        help="ask N alternatives (the first is the usual answer; the embedded engine departs from it "
                             "where it was least sure, others sample); the most likely that applies is written")
    parser.add_argument("--check", metavar="CMD",
                        help="run this shell command on each alternative in a scratch copy of the project (never "
                             "in your tree), most likely first; the first that exits 0 is written, none: exit 1")
    parser.add_argument("--check-timeout", metavar="S", type=_seconds, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds a check may run before its process group is killed (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--check-jobs", metavar="J", type=_count(1, 16, "--check-jobs"), default=DEFAULT_JOBS,
                        help=f"checks run at once (default {DEFAULT_JOBS})")


def wanted(args) -> bool:
    """The command asks alternatives or checks them (else it is the plain one-answer edit)."""
    return getattr(args, "attempts", 1) > 1 or bool(getattr(args, "check", None))


class Asked:
    """What was asked: the alternatives, and with --check the winner and every check's outcome."""

    def __init__(self, alternatives: Alternatives):
        self.alternatives = alternatives
        self.winner: Alternative | None = None
        self.outcomes: dict[int, CheckOutcome] = {}
        self.check_s: float | None = None

    @property
    def first(self):
        """The first lane's result: the answer a single attempt gives."""
        return self.alternatives.alternatives[0].result

    # `steer edit` reads these of a result to tell a lost shared engine (commands/edit.py).
    @property
    def status(self) -> str:
        return self.first.status if self.first is not None else "stopped"

    @property
    def reason(self) -> str:
        return self.first.reason if self.first is not None else ""


async def ask(args, session, instruction: str, region, out) -> Asked:
    """Ask the alternatives, saying each one's end on the way. With --check each is checked as soon
    as it is written, while the next is asked; once the first in order to pass is known, no more
    are asked (the one being written is stopped)."""
    from steer_tui.session import MAX_RETRIES

    n = args.attempts
    run: CheckRun | None = None

    def on_event(ev) -> None:
        if isinstance(ev, LaneStarted) and n > 1:
            how = {"greedy": "", "departed": ", departing from attempt 1 where the model was least sure",
                   "sampled": ", sampled"}[ev.how]
            out.progress(f"attempt {ev.lane} of {n}{how}")
        elif isinstance(ev, LaneEnded):
            alt = ev.alternative
            if n > 1:
                out.progress(f"attempt {alt.lane}: {alt.describe()}")
            if run is not None:
                run.add(alt.lane, alt.text) if alt.applies and alt.same_as is None else run.skip()

    alternatives = Alternatives(session, instruction, region, n, retries=MAX_RETRIES, on_event=on_event)
    asked = Asked(alternatives)
    if args.check:
        checker = Checker(session.document.path, args.check, args.check_timeout, args.check_jobs,
                          encode=session.document.encode)
        out.progress(f"each attempt is checked in a scratch copy of {checker.project.root}: {args.check}")
        run = CheckRun(checker, on_outcome=lambda lane, o: out.progress(f"attempt {lane}: check {o.summary()}"),
                       on_decided=lambda lane: alternatives.stop(f"not asked: attempt {lane} passed the check")
                       if alternatives.writing or any(a.status == "waiting" for a in alternatives.alternatives) else None)
    t0 = time.perf_counter()
    try:
        await alternatives.run()
        if run is not None:
            winner, outcomes = await run.finish()
            asked.check_s = time.perf_counter() - t0 - alternatives.seconds
            _take(asked, winner, outcomes)
    finally:
        if run is not None:
            await run.finish()  # never leaves a check running (Ctrl+C)
    return asked


def _take(asked: Asked, winner, outcomes: dict) -> None:
    """Each alternative's check outcome (an identical one: the outcome of the one it repeats) and the winner."""
    alternatives = asked.alternatives.alternatives
    for a in alternatives:
        o = outcomes.get(a.same_as if a.same_as is not None else a.lane)
        if o is not None and a.applies:
            asked.outcomes[a.lane] = o
            a.extra["check"] = o.as_json()
    asked.winner = next(a for a in alternatives if a.lane == winner) if winner is not None else None


@dataclass(frozen=True)
class Reporting:
    """How `steer edit` reports a result (commands/edit.py hands these over, so nothing here imports it)."""

    report: Callable  # (args, out, session, result, common) -> exit code: one attempt's report
    fail: Callable  # (out, args, code, reason, **extra) -> exit code
    payload: Callable  # (args, **fields) -> the --json object
    ok: int
    refused: int


def report(args, out, session, asked: Asked, common: dict, edit: Reporting) -> int:
    """Say how the alternatives ended, write the chosen one (unless a dry run), give the exit code."""

    alts = asked.alternatives.alternatives
    first = asked.first
    common = {**common, "alternatives": [a.as_json() for a in alts], "alternatives_s": round(asked.alternatives.seconds, 3),
              "check_s": round(asked.check_s, 3) if asked.check_s is not None else None}
    chosen = asked.winner if args.check else asked.alternatives.best
    plain = first.status in ("error", "stopped") or (first.status == "nothing" and not first.no_change)
    if plain or asked.alternatives.best is None:
        # As one attempt would end: a backend error, nothing to change, or no alternative applies.
        total = _totals(alts, first)
        first.tokens, first.attempts = total["tokens"], total["attempts"]
        return edit.report(args, out, session, first, common)
    stats = {**_totals(alts, chosen or first), **common}
    if chosen is None:
        for a in alts:
            if a.applies:
                o = asked.outcomes.get(a.lane)
                out.progress(f"attempt {a.lane}: {o.summary() if o else a.describe()}")
                if o is not None and o.output and a.same_as is None and not o.passed:
                    out.progress("  " + o.output.replace("\n", "\n  "))
            else:
                out.progress(f"attempt {a.lane}: {a.describe()}")
        return edit.fail(out, args, edit.refused, f"no attempt passed the check ({args.check}); the file is "
                          "untouched", status="check_failed", **stats)
    n = len(alts)
    which = f"attempt {chosen.lane} of {n}" + (" (passed the check)" if args.check else "")
    others = [a for a in alts if a is not chosen]
    if args.dry_run:
        out.final_diff(chosen.diff)
        out.progress(f"dry run: {which}, {chosen.hunks} hunk(s) not written {_stats_line(stats)}")
        _list_others(out, asked, others)
        out.result(edit.payload(args, applied=False, status="proposal", diff=chosen.diff, hunks=chosen.hunks,
                                 exit_code=edit.ok, reason="dry run", attempt=chosen.lane, **stats))
        return edit.ok
    created = session.document.is_new
    if not session.review.write("accept", chosen.text, chosen.hunks):
        return edit.fail(out, args, edit.refused, "the edit could not be written: the file changed on disk "
                          "meanwhile", diff=chosen.diff, attempt=chosen.lane, **stats)
    out.final_diff(chosen.diff)
    done = f"created {args.file}" if created else f"applied {chosen.hunks} hunk(s) to {args.file}"
    out.progress(f"{done}: {which} {_stats_line(stats)}")
    _list_others(out, asked, others)
    out.result(edit.payload(args, applied=True, status="applied", diff=chosen.diff, hunks=chosen.hunks,
                             exit_code=edit.ok, reason="", attempt=chosen.lane, **stats))
    return edit.ok


def _list_others(out, asked: Asked, others: list[Alternative]) -> None:
    for a in others:
        o = asked.outcomes.get(a.lane)
        line = f"  attempt {a.lane}: {a.describe()}"
        if o is not None and a.same_as is None:
            line += f"; check {o.summary()}"
        out.progress(line)


def _totals(alts: list[Alternative], chosen: Alternative | object) -> dict:
    """The numbers `steer edit --json` reports, over every lane: tokens and model answers; the
    chosen lane's answer; the first lane's first-token time and rate."""
    results = [a.result for a in alts if a.result is not None]
    first = results[0] if results else None
    picked = chosen.result if isinstance(chosen, Alternative) else chosen
    return {"tokens": sum(r.tokens for r in results), "attempts": sum(r.attempts for r in results),
            "draft_tokens_accepted": sum(r.draft_accepted for r in results),
            "ttft_s": first.ttft_s if first else None, "tokens_per_s": first.tokens_per_s if first else None,
            "answer": picked.raw_text if picked is not None else ""}


def _stats_line(stats: dict) -> str:
    return f"({stats['tokens']} tokens, {stats['attempts']} model answers)"
