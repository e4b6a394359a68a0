"""N alternatives of one request on a Session: asked, collected, identical ones merged, in likelihood order.

The first is the session's own greedy answer, asked as any turn is. On an engine that departs from
an answer (`avoid` in its features, greedy decoding) the second is that answer written up to the
token where the model was least sure, its runner-up there, then greedy again: the model's next most
likely answer. The others are sampled (temperature SAMPLE_TEMPERATURE). On HumanEvalFix 0..39 a
departure at the second least confident token passed no task the first answer failed (0 of 13),
where a sampled lane passed 3 (bench/results/alternatives-lane-kinds.md). The embedded engine runs one request
at a time and keeps the session's evaluated prompt cached, so its lanes go one after another on the
session itself. Elsewhere every other lane is sampled, all at once, each on a Session of its own
over the same connection.

No Textual here: what happens comes out as events (LaneStarted, LaneEnded, AlternativesEnded) to
one callback, so `steer edit --attempts N` and the app drive the same object.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Callable

from steer_tui.config import MAX_ALTERNATIVES
from steer_tui.events import TurnResult
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW

GREEDY, DEPARTED, SAMPLED = "greedy", "departed", "sampled"
SAMPLE_TEMPERATURE = 0.8  # sampled alternatives: varied, still mostly the model's own
# An alternative's answer may run to this many times the first answer's tokens (plus LANE_SLACK): it
# restates the same code with a change. A departure into prose after the code, or into a line that
# never ends, otherwise ran to the output cap: 1,024 tokens one step each, minutes on two cores.
LANE_TOKENS, LANE_SLACK = 2, 64


def code_of(fmt: str, answer: str) -> str:
    """The answer up to the end of its code (before a rewrite's closing fence, after the last
    SEARCH/REPLACE block's divider line): where an alternative may depart from it. Departed in the
    prose after the code, an alternative left the same file and wrote on to its length limit."""
    if fmt == "rewrite":
        opening = answer.find("```")
        end = answer.find("\n```", answer.find("\n", opening) if opening >= 0 else 0)
    elif fmt == "search_replace":
        end = answer.rfind("\n>>>>>>> REPLACE")
    else:
        return answer
    return answer[: end + 1] if end >= 0 else answer


def lane_cap(first: TurnResult | None, configured: int | None) -> int | None:
    """The output cap of an alternative after `first` (LANE_TOKENS), never above the configured one."""
    if first is None or not first.tokens:
        return configured
    cap = LANE_TOKENS * first.tokens + LANE_SLACK
    return min(cap, configured) if configured else cap


@dataclass
class Alternative:
    """One lane's answer: its proposal (the file as it leaves it) and how it ended.

    Lanes are numbered from 1 in likelihood order: the greedy answer first, then departures at ever
    less doubtful tokens (or samples, in the order asked)."""

    lane: int
    how: str  # GREEDY | DEPARTED | SAMPLED
    status: str = "waiting"  # waiting | writing | TurnResult.status (proposal | nothing | refused | stopped | error)
    result: TurnResult | None = None
    text: str | None = None  # the whole file as its proposal leaves it (None: no proposal)
    diff: str = ""
    hunks: int = 0
    added: int = 0  # lines the diff adds
    removed: int = 0  # lines it removes
    same_as: int | None = None  # the earlier lane whose proposal is the same file
    seconds: float = 0.0  # from asking to its end
    note: str = ""  # why it was stopped or never asked (Alternatives.stop)
    extra: dict = field(default_factory=dict)  # what a caller adds (a check's outcome)

    @property
    def applies(self) -> bool:
        """It proposes a change the file can take."""
        return self.status == "proposal" and self.text is not None

    @property
    def reason(self) -> str:
        if self.note and self.status == "stopped":
            return self.note
        return self.result.reason if self.result is not None else ""

    def describe(self) -> str:
        """One line: how it ended, its size, and whom it repeats."""
        if self.same_as is not None:
            return f"identical to attempt {self.same_as}"
        if self.applies:
            return f"+{self.added} -{self.removed} lines in {self.hunks} hunk{'s' if self.hunks != 1 else ''}"
        what = {"nothing": "nothing to change", "refused": "refused", "stopped": "stopped",
                "error": "error"}.get(self.status, self.status)
        return f"{what}: {self.reason}" if self.reason else what

    def as_json(self) -> dict:
        r = self.result
        return {"attempt": self.lane, "how": self.how, "status": self.status, "applies": self.applies,
                "identical_to": self.same_as, "diff": self.diff, "hunks": self.hunks, "added": self.added,
                "removed": self.removed, "reason": self.reason, "tokens": r.tokens if r else 0,
                "seconds": round(self.seconds, 3), **self.extra}


@dataclass(frozen=True, slots=True)
class LaneStarted:
    lane: int
    how: str


@dataclass(frozen=True, slots=True)
class LaneEnded:
    alternative: Alternative


@dataclass(frozen=True, slots=True)
class AlternativesEnded:
    alternatives: tuple[Alternative, ...]


def merge_identical(alternatives: list[Alternative]) -> None:
    """Each proposal that leaves the same file as an earlier lane's says so (`same_as`)."""
    seen: dict[str, int] = {}
    for a in alternatives:
        if a.applies:
            a.same_as = seen.get(a.text)
            seen.setdefault(a.text, a.lane)


def _counts(diff: str) -> tuple[int, int]:
    lines = diff.splitlines()
    added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    return added, removed


class Alternatives:
    """`await run()` asks `n` alternatives of `instruction` on `session` and returns them, lane 1 first.

    The first lane is the session's turn as `Session.edit` would run it (`retries` refusals fed back);
    the others get `lane_retries` (a refused alternative costs no further answers by default: the
    other lanes are the retries). `stop()` stops every lane (Esc). The session is left idle with no
    proposal; `best` is the first alternative that applies. `keep_first`: the session's proposal
    under review is lane 1, taken as it is (the app asks the others beside it)."""

    def __init__(self, session, instruction: str, region: tuple[int, int] | None = None, n: int = 3, *,
                 retries: int = 2, lane_retries: int = 0,
                 on_event: Callable[[object], None] | None = None, keep_first: bool = False):
        if not 1 <= n <= MAX_ALTERNATIVES:
            raise ValueError(f"alternatives: from 1 to {MAX_ALTERNATIVES}, not {n}")
        self.session = session
        self.instruction = instruction
        self.region = region
        self.n = n
        self.retries = retries
        self.lane_retries = lane_retries
        self.on_event = on_event or (lambda ev: None)
        self.keep_first = keep_first
        self.alternatives = [Alternative(k, GREEDY if k == 1 else DEPARTED if k == 2 else SAMPLED) for k in range(1, n + 1)]
        self.stopped = False
        self._sessions: list = []  # the lanes' own sessions (sampled on a remote backend)
        self.seconds = 0.0  # all lanes, from the first request to the last answer

    @property
    def best(self) -> Alternative | None:
        """The most likely alternative that applies."""
        return next((a for a in self.alternatives if a.applies), None)

    @property
    def distinct(self) -> list[Alternative]:
        """The alternatives that apply, one per distinct file."""
        return [a for a in self.alternatives if a.applies and a.same_as is None]

    def stop(self, note: str = "") -> None:
        """Stop every lane now: none asks the model any more, the one writing is cancelled (Esc; or
        `steer edit --check` once an earlier lane passed: `note` says so of the lanes it cuts)."""
        self.stopped = True
        for alt in self.alternatives:
            if alt.status in ("waiting", "writing"):
                alt.note = note
        for s in (self.session, *self._sessions):
            rest = s.stop_now()
            if rest is not None:
                asyncio.ensure_future(rest)

    # ------------------------------------------------------------ running

    async def run(self) -> list[Alternative]:
        s = self.session
        t0 = time.perf_counter()
        before = s.refuse_broken_syntax
        s.refuse_broken_syntax = True  # no review follows: a proposal that breaks the syntax is refused
        try:
            first = self.alternatives[0]
            if self.keep_first and s.has_proposal and s.last_result is not None:
                self.on_event(LaneStarted(first.lane, first.how))
                first.result = s.last_result
                first.status = "proposal"
                self._collect(s, first)
            else:
                await self._lane(s, first, self.retries)
            rest = self.alternatives[1:]
            if rest and first.status == "nothing":  # already done, or asked for nothing: no alternative to it
                for alt in rest:
                    alt.note = "not asked: attempt 1 found nothing to change"
            elif rest and not self.stopped and first.status not in ("stopped", "error"):
                if self._departs(s):
                    await self._departures(s, first, rest)
                elif s.server_engine == "local":  # one request at a time there: the cache stays the session's
                    cap = lane_cap(first.result, s.settings.max_output_tokens)
                    for alt in rest:
                        if self.stopped:
                            break
                        alt.how = SAMPLED
                        await self._lane(s, alt, self.lane_retries, temperature=SAMPLE_TEMPERATURE, cap=cap)
                else:
                    await self._sampled_apart(rest)
        finally:
            s.refuse_broken_syntax = before
            self.seconds = time.perf_counter() - t0
        for alt in self.alternatives:
            if alt.status == "waiting":
                alt.status = "stopped"
        merge_identical(self.alternatives)
        self.on_event(AlternativesEnded(tuple(self.alternatives)))
        return self.alternatives

    @staticmethod
    def _departs(s) -> bool:
        return "avoid" in s.server_features and s.settings.temperature in (None, 0, 0.0)

    async def _departures(self, s, first: Alternative, rest: list[Alternative]) -> None:
        """The second lane departs from the first answer at its least confident token, the others
        are sampled; where the first answer cannot be departed from (a docstring asked as a prefix,
        no departure point), all are sampled."""
        turn = s.turn
        answer = code_of(s.format, first.result.raw_text) if first.result is not None else ""
        cap = lane_cap(first.result, s.settings.max_output_tokens)
        avoid = turn.departure(answer) if turn is not None and answer else None
        for alt in rest:
            if self.stopped:
                return
            if alt is rest[0] and avoid is not None:
                await self._lane(s, alt, self.lane_retries, avoid=avoid, cap=cap)
            else:
                alt.how = SAMPLED
                await self._lane(s, alt, self.lane_retries, temperature=SAMPLE_TEMPERATURE, cap=cap)

    async def _sampled_apart(self, rest: list[Alternative]) -> None:
        """Every other lane at once, each on a session of its own over the same connection."""
        from steer_tui.files import Document
        from steer_tui.session import Session

        s = self.session
        settings = dataclasses.replace(s.settings, temperature=SAMPLE_TEMPERATURE
                                       if s.settings.temperature in (None, 0, 0.0) else s.settings.temperature,
                                       max_output_tokens=lane_cap(self.alternatives[0].result,
                                                                  s.settings.max_output_tokens))
        lanes = []
        for alt in rest:
            alt.how = SAMPLED
            lane = Session(Document.open(s.document.path), settings, client=s.client, edit_format=s.edit_format,
                           model=s.model)
            lane.context = s.context
            lane.region_once = s.region_once
            await lane.start(prewarm=False)
            self._sessions.append(lane)
            lanes.append(self._lane(lane, alt, self.lane_retries))
        await asyncio.gather(*lanes)

    async def _lane(self, s, alt: Alternative, retries: int, *, avoid: dict | None = None,
                    temperature: float | None = None, cap: int | None = None) -> None:
        """Ask one lane on session `s` and keep what it proposes; the session is left with no proposal."""
        alt.status = "writing"
        self.on_event(LaneStarted(alt.lane, alt.how))
        t0 = time.perf_counter()
        settings = s.settings
        if temperature is not None or cap is not None:
            s.settings = dataclasses.replace(settings, temperature=settings.temperature if temperature is None
                                             else temperature,
                                             max_output_tokens=settings.max_output_tokens if cap is None else cap)
        try:
            s.refuse_broken_syntax = True
            await s.start_turn(self.instruction, self.region, retries, avoid=avoid)
            result = await s.wait()
        finally:
            s.settings = settings
        alt.result = result
        alt.status = "stopped" if self.stopped and result.status in ("proposal", "nothing", "refused") else result.status
        alt.seconds = time.perf_counter() - t0
        self._collect(s, alt)

    def _collect(self, s, alt: Alternative) -> None:
        """Keep lane `alt`'s proposal from session `s` (then dropped there), merge it with an earlier identical one."""
        if alt.status == "proposal" and s.has_proposal:
            alt.text = s.review.proposed_text()
            alt.diff = s.proposal_diff()
            alt.hunks = s.live.hunk_count
            alt.added, alt.removed = _counts(alt.diff)
        elif alt.status == "proposal":  # judged a proposal, then emptied (a stop in between)
            alt.status = "stopped"
        if s.has_proposal:
            s.discard_proposal(quiet=True)
        if s.state in (REVIEW, INTERRUPTED):
            s.set_state(IDLE)
        for earlier in self.alternatives:
            if earlier is alt:
                break
            if alt.applies and earlier.applies and earlier.text == alt.text:
                alt.same_as = earlier.same_as or earlier.lane
                break
        self.on_event(LaneEnded(alt))

    @property
    def writing(self) -> bool:
        """A lane is being written."""
        return any(s.state is GENERATING for s in (self.session, *self._sessions))
