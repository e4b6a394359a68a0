"""One turn of a Session: its attempts (refusal feedback goes back to the model), each answer
streamed from the backend into an steer_tui.edits.proposal.ProposalBuilder, and how it ended.

The Session owns the turn's lifecycle (state, stop, redirect); a Turn sees it through
steer_tui.port.SessionPort: it reads what it needs (backend, document, live diff) and reports
through its events. What follows an attempt is steer_tui.attempts' decision; its answer comes
from steer_tui.attempt_stream and its verdict from steer_tui.turn_verdict.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from steer_tui.attempts import BEFORE_AGAIN, ENDS, Act, AttemptPolicy, Outcome
from steer_tui.attempt_stream import AttemptStream
from steer_tui.backend import SessionError
from steer_tui.edits.anchor import may_delete
from steer_tui.edits.class_doc import DOC_CLOSE, asked_class, docstring_place, docstring_prefix, repeats_module_doc, saying_what
from steer_tui.edits.cosmetic import COSMETIC_REASON
from steer_tui.edits.judge import NO_CHANGE, asks_for_nothing, departure_point, no_change_instruction
from steer_tui.edits.lines import document_lines
from steer_tui.edits.repeats import RepeatWatch, loop_departure
from steer_tui.edits.syntax import is_python
from steer_tui.events import NoticeCode, Stats, TurnResult
from steer_tui.state import GENERATING
from steer_tui.turn_verdict import TurnVerdict

if TYPE_CHECKING:
    from steer_tui.port import SessionPort

_STATS_EVERY_S = 0.1  # Stats events while streaming are throttled to this period


# The embedded engine's answer cap when a request names none (steer_tui.server.engines.local.DEFAULT_MAX_OUTPUT).
ENGINE_DEFAULT_CAP = 1024
# Characters of a Python-like source a token of the embedded model's vocabulary holds, at least
# (3.3-4 measured on code): a cap counted with it errs on the generous side.
_CHARS_PER_TOKEN = 3


# The longest answer a docstring attempt may write (Turn._docstring_attempt): a class's docstring
# is a few lines; an answer still writing past this is not one.
DOC_CAP = 256


def output_cap(fmt: str, region: str, configured: int | None, engine: str | None) -> int | None:
    """The answer's max_output_tokens: the configured one, else for a rewrite on the embedded
    engine room for `region` (the text the prompt shows as the region) twice over, the answer
    restating it, never less than that engine's own default; else None (the backend's default).

    At the engine's default of 1024 tokens, a rewrite of a region over ~100 lines (the whole of a
    file whose instruction names no definition) was always cut off and refused; twice the region
    still ends a looping answer at a bound."""
    if configured is not None or fmt != "rewrite" or engine != "local":
        return configured
    return max(ENGINE_DEFAULT_CAP, 2 * -(-len(region) // _CHARS_PER_TOKEN) + 256)


# Characters a token holds, as the context guard counts: few sources hold more (the embedded
# model's tokenizer: 4.4-4.6 on steer's own modules, 3.3-3.6 on terse code), so the guard
# underestimates the tokens and refuses only what cannot fit, not what might.
_CHARS_PER_TOKEN_AT_MOST = 4.5


# The error_code of a turn refused before anything was sent (too_large, window.needs_region): the
# app keeps saying why in its status line until the next turn.
NOT_SENT = "not_sent"


def too_large(fmt: str, instructions: str, messages: list[dict], region: str, context: int | None) -> str:
    """Why a rewrite cannot fit in the engine's `context` window (tokens), or "" when it may: the
    prompt (`instructions`, the system prompt, and `messages`: the file as shown, a big file in part)
    and an answer that restates `region` are counted at 4.5 characters a token. Such a turn was
    evaluated for minutes and then generated until the context was full, and refused as cut off;
    it is refused before it is sent."""
    if fmt != "rewrite" or not context:
        return ""
    prompt = len(instructions) + sum(len(m.get("content") or "") for m in messages)
    need = int((prompt + len(region)) / _CHARS_PER_TOKEN_AT_MOST)
    if need <= context:
        return ""
    lines = region.count("\n") + (not region.endswith("\n") and bool(region))
    return (f"the region ({lines:,} lines) is too long to rewrite within the model's context of {context:,} tokens "
            f"(the file as shown, the region and the answer need about {need:,}): name a function or class, put the "
            "cursor in one, or select fewer lines; nothing was sent")


def _apart(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two regions share no line."""
    return a[1] <= b[0] or a[0] >= b[1]


def _region_text(text: str, region: tuple[int, int] | str | None) -> str:
    """The region as a turn's prompt shows it: its lines of `text`, or the text an addition shows."""
    if region is None or isinstance(region, str):
        return region or ""
    from steer_tui.prompts import region_lines

    return region_lines(text, region)


def docstring_request(session: "SessionPort", asking: str, base: str | None = None) -> tuple[tuple[int, int], str] | None:
    """(region, answer prefix) of a request for a class's docstring alone, asked as just that
    docstring: the region is the class's header (with the docstring it has), and the answer starts
    with that header and the docstring's opening quotes (class_doc.docstring_prefix), so the model
    writes the docstring's text and the engine ends the answer at its closing quotes. None where
    the request asks for more, the file is not Python, the format not a rewrite, the engine cannot
    go on from a prefix (a remote one), or the header cannot be rewritten alone; with `base` (the
    proposal the answer builds on) also where that proposal changed the header.

    Given the whole class, the small model wrote it again without a docstring, or with one on
    every method, and all of the class was evaluated after Enter (1-2 s for a redirect's addition):
    bench/redirect.py, bench/classdoc.py."""
    s = session
    if s.format != "rewrite" or not is_python(s.path) or not {"prefix", "stop"} <= s.server_features:
        return None
    text = s.document.text
    name = asked_class(asking, text)
    place = docstring_place(text, name) if name is not None else None
    if place is None:
        return None
    if base is not None:  # the docstring goes into the proposal's class: its header as on disk
        there = docstring_place(base, name)
        if there is None or document_lines(base)[0][there[0]:there[1]] != document_lines(text)[0][place[0]:place[1]]:
            return None
    return (place[0], place[2]), docstring_prefix(text, place)


class _Totals:
    """The numbers of a turn's attempts together: tokens, the first token's time, the last rate."""

    def __init__(self):
        self.tokens = 0
        self.first_ttft: float | None = None
        self.rates: list[float] = []

    def add(self, result: TurnResult) -> None:
        self.tokens += result.tokens
        self.first_ttft = self.first_ttft if self.first_ttft is not None else result.ttft_s
        if result.tokens_per_s:
            self.rates.append(result.tokens_per_s)

    def stamp(self, result: TurnResult, attempts: int, hunks: int) -> None:
        result.attempts = attempts
        result.tokens = self.tokens
        result.ttft_s = self.first_ttft
        result.tokens_per_s = self.rates[-1] if self.rates else None
        result.hunks = hunks


class Turn:
    """`await run()` streams the attempts and leaves `result`; `answer` is the attempt's ProposalBuilder.

    What follows each attempt is steer_tui.attempts.AttemptPolicy's decision; run() carries it out."""

    def __init__(self, session: "SessionPort", instruction: str, region: tuple[int, int] | None, retries: int):
        self.session = session
        self.instruction = instruction
        self.region = region
        self.retries = retries
        self.policy = AttemptPolicy(retries)
        self.verdict = TurnVerdict(self)
        self.result = TurnResult("nothing")
        self.answer = None  # the ProposalBuilder of the attempt streaming or last streamed
        self.repeats: RepeatWatch | None = None  # watches that attempt's answer for a loop
        self.stream = None  # the backend's stream of that attempt
        self.feedback = ""  # what a refusal of the attempt tells the model, when its blocks do not say it
        self.t0 = time.perf_counter()
        self.ttft: float | None = None
        self.tokens = 0
        self._stats_at = self.t0
        self.prefix: str | None = None  # what the attempt's answer starts with (_docstring_attempt)
        self.unused_params = False  # the attempt's answer was refused for a parameter it never reads
        self.refused_before: str | None = None  # the answer the attempt before was refused for and asked to fix
        # Words said while the answer was written that add to the request ("also X"): each is
        # its own edit of the answer's region, asked once the answer before it is complete.
        self.additions: list[str] = []
        self.can_retry = False  # a refusal of the attempt under way is retried (steer edit's retries)
        # The request a redirect's addition interrupted ("before"): asked again once the addition is
        # answered, of the code that answer leaves (or of the region as it was, if it failed).
        self.then: str | None = None
        self.then_region: tuple[int, int] | None = None  # the region `then` was asked of
        # The proposed text the answers now asked build on (an addition's, or the request after
        # one): what they leave as it was on disk keeps that text's changes (rebase.with_earlier).
        self.base: str | None = None
        # The last answer, asked again as first asked (`again`), clashed with `base` or added nothing to it.
        self.base_clash = False
        # The request asked again as first asked, after an addition's answer in the same region:
        # (the addition's region, its exchange, the code it left), to ask the request of instead
        # where its answer cannot keep the addition's changes.
        self.again: tuple[tuple[int, int], list[dict], str] | None = None
        # The answer `then` gets asked as first asked, when it is known already: the proposal under
        # review that a follow-up goes on from (steer_tui.redirects.Redirects.follow_up). Fed to the attempt, not asked.
        self.known: str | None = None
        # The request the attempt under way answers: an addition's words, then the request again.
        self.asking = instruction
        # What the next attempt's prompt says: the request, or a retry's feedback.
        self.ask = instruction
        self.history: list[dict] = []  # the exchanges before it
        self.shown = region  # the region as the prompt shows it: an addition shows the answer's
        self.avoid: dict | None = None  # the next attempt asks the same, departing from this answer
        self.reuse: str | None = None  # the next attempt's answer, known already (`known`)
        self.kept: TurnResult | None = None  # the answer an addition builds on, restored if it fails
        self.kept_region = region  # the region that answer rewrote (an addition may widen the turn's)
        self.built = "the addition"  # what is asked on top of `kept`: an addition, or the request it interrupted
        self.doc_first: TurnResult | None = None  # a class's docstring that repeated the module's, asked again
        self.fmt = ""  # the edit format and its system prompt, fixed when the turn runs
        self.instructions = ""

    @property
    def stopped(self) -> bool:
        """Esc or a lost connection took the session out of GENERATING, or a redirect started the
        turn over (another Turn is the session's turn now)."""
        return self.session.state is not GENERATING or self.session.turn is not self

    # ------------------------------------------------------------ the runner

    async def run(self) -> None:
        """Ask attempts until the policy ends the turn; `result` is how it ended."""
        from steer_tui.prompts import system_prompt

        s, totals = self.session, _Totals()
        self.fmt = s.format
        self.instructions = system_prompt(self.fmt)
        result = TurnResult("nothing")
        try:
            while True:
                self.policy.begin()
                request = self._request()
                if isinstance(request, TurnResult):  # it cannot fit in the model's context
                    result = request
                    break
                result = await self._answer_attempt(*request)
                totals.add(result)
                act, result, again = self._decide(result)
                if act in ENDS:
                    result = self._end(act, result)
                    break
                self._carry_out(act, result, again)
            self._say_how_it_ended(result)
        except asyncio.CancelledError:
            result = TurnResult("stopped", "cancelled")
            raise
        except SessionError as exc:
            result = TurnResult("error", exc.message, error_code=exc.code)
            s.notice("error", NoticeCode.ERROR, exc.message)
        finally:
            totals.stamp(result, self.policy.attempt, s.live.hunk_count)
            self.result = result

    def _request(self) -> tuple[list[dict], int | None] | TurnResult:
        """The attempt's (input, max_output_tokens), its proposal begun; a refusal where the
        request cannot fit in the engine's context, or asks a file too big to show whole to be edited whole."""
        from steer_tui.project.window import needs_region, session_budget, turn_focus
        from steer_tui.prompts import build_input, rewrite_region

        s = self.session
        doc = self._docstring_attempt()
        if doc is not None:
            self.shown = self._move_to(doc[0])
        self._begin_attempt()
        self.prefix = doc[1] if doc is not None else None
        budget = session_budget(s)
        focus = turn_focus(s.document.text, self.shown, self.region, budget,
                           lambda: rewrite_region(s.document.text, self.instruction, path=s.path))
        why = needs_region(s.prompt_path, s.document.text, focus, budget)
        if why:
            return TurnResult("refused", why, error_code=NOT_SENT)
        messages = build_input(self.fmt, s.prompt_path, s.document.text, self.ask, self.shown, self.history or None,
                               context=s.request_context(self.region, self.instruction), file_tokens=budget,
                               focus=focus, once=s.region_once)
        region_text = _region_text(s.document.text, self.shown)
        cap = output_cap(self.fmt, region_text, s.settings.max_output_tokens, s.server_engine)
        if doc is not None:
            cap = min(cap or DOC_CAP, DOC_CAP)
        why = too_large(self.fmt, self.instructions, messages, region_text, s.server_context)
        return TurnResult("refused", why, error_code=NOT_SENT) if why else (messages, cap)

    async def _answer_attempt(self, messages: list[dict], cap: int | None) -> TurnResult:
        """The attempt's judged answer: the known one (`reuse`) where it still stands, else streamed."""
        self.can_retry = self.policy.can_retry
        result = self._known_once(self.reuse) if self.reuse is not None else None
        if result is None or result.status != "proposal":
            if result is not None:  # the known answer no longer stands: the request is asked
                self.session.discard_proposal(quiet=True)
                self._begin_attempt()
            result = await AttemptStream(self).ask(self.instructions, messages, cap, self.avoid)
        self.reuse = self.avoid = None
        return result

    def _outcome(self, result: TurnResult) -> Outcome:
        """What the policy decides on: the attempt's result and the turn's state, read off them."""
        s, p, status, stopped = self.session, self.policy, result.status, self.stopped
        return Outcome(
            status=status, stopped=stopped, already_applied=result.already_applied,
            can_depart=self.departure(result.raw_text, self.repeats.block if self.repeats else ()) is not None,
            looped=self.repeats is not None and self.repeats.looping,
            repeated=status == "refused" and result.raw_text.strip() == (self.refused_before or "").strip() != "",
            asks_nothing=asks_for_nothing(self.instruction), ask_asks_nothing=asks_for_nothing(self.ask),
            doc_repeats_module=bool(self.prefix) and status == "proposal" and not stopped and not p.doc_again
            and repeats_module_doc(s.document.text, self._written()),
            base_clash=self.base_clash, unused_params=self.unused_params,
            unchanged_shown=p.kept and status == "proposal" and self._answered_region() == self.shown,
            has_region=self.region is not None, additions=bool(self.additions), then=self.then is not None,
            again=self.again is not None)

    def _decide(self, result: TurnResult) -> tuple[Act, TurnResult, tuple | None]:
        """(what the policy says, the result it goes on with, the `again` it took up)."""
        act = self.policy.decide(self._outcome(result))
        if act is Act.RESTORE_DOC:
            result = self._restore(self.doc_first, self.region, "the docstring asked again was not one")
            act = self.policy.decide(self._outcome(result))
        again = None
        if act not in BEFORE_AGAIN:  # the policy read past `again`: it is answered or asked now
            again, self.again = self.again, None
        return act, result, again

    def _end(self, act: Act, result: TurnResult) -> TurnResult:
        """The turn's result, as the last act leaves it."""
        if act is Act.RESTORE:
            why = (f"the answer to {self.built} was refused ({result.reason})" if result.status == "refused"
                   else f"the model's answer to {self.built} changed nothing")
            return self._restore(self.kept, self.kept_region, why)
        if act is Act.REFUSE_NO_CHANGE:
            reason = NO_CHANGE if result.reason != COSMETIC_REASON else f"{NO_CHANGE} to the code ({_what(result)})"
            return TurnResult("refused", reason, raw_text=result.raw_text, no_change=True)
        return result

    def _carry_out(self, act: Act, result: TurnResult, again: tuple | None) -> None:
        """Set up the next attempt as `act` says; the proposal of this one is dropped."""
        s = self.session
        self.refused_before = result.raw_text if act is Act.RETRY_REFUSED else None
        if act is Act.ASK_DOC_AGAIN:
            self.doc_first = result
            name = asked_class(self.asking, s.document.text)
            self.ask = saying_what(self.ask, name)
            s.notice("info", NoticeCode.CLASS_DOC_AGAIN, f"the docstring of `{name}` repeats the module's; asking for one of its own")
        elif act is Act.ASK_AGAIN:
            # Asked of the code the addition left, after the addition's exchange.
            region, self.history, self.shown = again
            self._move_to(region)
            s.notice("info", NoticeCode.REDIRECTED, f"now: {' '.join(self.ask.split())}, of the code the addition left")
        elif act is Act.ASK_ADDITION:
            self._ask_addition(result)
        elif act is Act.ASK_THEN:
            self._ask_then(result)
        elif act is Act.DEPART:
            self._depart(result)
            return  # _depart dropped the proposal
        else:  # RETRY_NO_CHANGE, RETRY_REFUSED: the same request, after this exchange
            if act is Act.RETRY_NO_CHANGE:
                s.notice("warning", NoticeCode.RETRY_NO_CHANGE, f"the model's answer {_what(result)}; asking it again")
                next_ask = no_change_instruction(self.fmt, self.instruction, result.reason)
            else:
                s.notice("warning", NoticeCode.RETRY_REFUSED, f"edit refused ({result.reason}); asking the model to fix it")
                next_ask = self.feedback_instruction()
            self.history = self.history + self._exchange(result)
            self.ask = next_ask
        s.discard_proposal(quiet=True)

    def _exchange(self, result: TurnResult) -> list[dict]:
        """The attempt's prompt and answer, as the conversation goes on after them."""
        from steer_tui.prompts import instruction_message

        return [instruction_message(self.fmt, self.ask, self.session.document.text, self.shown, path=self.session.prompt_path),
                {"role": "assistant", "content": result.raw_text}]

    def _ask_addition(self, result: TurnResult) -> None:
        """The first addition is asked on its own, of the code as the answer left it (or, where the
        answer changed nothing, with the request again)."""
        from steer_tui.prompts import addition_instruction, addition_region, redirect_instruction

        s = self.session
        words = self.additions.pop(0)
        if result.status == "proposal":
            self.kept, self.kept_region, self.base = result, self.region, s.review.proposed_text()
            region = addition_region(s.document.text, self.region, words, narrow=True, path=s.path)
            if self._crossed(region):  # it cannot be shown as the answer left it
                region = addition_region(s.document.text, self.region, words, path=s.path)
            apart = _apart(region, self.region)
            self._move_to(region)
            # Apart from the answer's region, the addition's is as it is on disk.
            self.shown = region if apart else self._answered_region()
            self.ask = addition_instruction(words)
        else:  # the answer changed nothing: its request is asked again, with the addition
            region = addition_region(s.document.text, self.region, words, path=s.path)
            if self.shown == self.region:  # on the span that takes in both
                self.shown = self._move_to((min(region[0], self.shown[0]), max(region[1], self.shown[1])))
            self.ask = redirect_instruction(self.ask, [words])
        self.asking = self.ask
        self.history = []
        s.notice("info", NoticeCode.REDIRECTED, f"now: {' '.join(words.split())}")

    def _ask_then(self, result: TurnResult) -> None:
        """The addition is answered (or failed): the request it interrupted is asked again."""
        s = self.session
        # The addition's exchange stays in the conversation: shown the region as the addition left
        # it in a fresh message, the small model put a class's docstring above the class; after its
        # own answer it did not (bench/redirect.py).
        proposal = result.status == "proposal"
        chat = self._exchange(result) if proposal else []
        self.ask, self.instruction, self.then = self.then, self.then, None
        self.asking = self.ask
        back, self.then_region = self.then_region, None
        if proposal:
            self.kept, self.kept_region, self.built = result, self.region, "the request"
            self.base = s.review.proposed_text()
        else:
            s.notice("warning", NoticeCode.REDIRECT_FAILED,
                     f"the addition's answer {'changed nothing' if result.status == 'nothing' else 'was refused'}")
        if back is not None and _apart(back, self.region):
            # The addition was asked apart from the request's region: the request is asked as it
            # first was (its prompt still cached), of that region as on disk; after the addition's
            # exchange about another definition the small model wrote the whole class again. Its
            # answer keeps the addition's change (with_earlier).
            self.shown, chat = self._move_to(back), []
            self.reuse = self.known
        elif proposal and back is not None:
            # The request is asked as it first was, of its region as on disk (its prompt is still
            # cached: only its words are evaluated again), and its answer is merged with the
            # addition's (rebase.merge_apart). Shown the code the addition left, after that
            # exchange, the small model carried the addition's kind of change to methods the
            # request never named (bench/redirect.py). Only where the two answers clash is that
            # asked (`again`).
            self.again = (self.region, chat, self._answered_region())
            self.shown, chat = self._move_to(back), []
            self.reuse = self.known
        elif proposal:
            self.shown = self._answered_region()
        self.known = None
        self.history = chat
        s.notice("info", NoticeCode.REDIRECTED, f"now: {' '.join(self.ask.split())}")

    def _depart(self, result: TurnResult) -> None:
        """The next attempt asks the same, departing from this answer where the model was least sure.
        Asked again with feedback, the small model wrote the same answer in every run measured; its
        own runner-up there is its next most likely answer (steer_tui/server/engines/depart.py)."""
        if result.status == "refused":  # for a new parameter it never reads, caught in a loop, or the same answer again
            code, said = NoticeCode.RETRY_REFUSED, f"edit refused ({result.reason}); asking for the model's next most likely answer"
        elif self.policy.kept:
            code, said = NoticeCode.RETRY_NO_CHANGE, f"the model's answer to {self.built} changed nothing; asking for its next most likely change"
        else:
            code, said = NoticeCode.RETRY_NO_CHANGE, f"the model's answer {_what(result)}; asking for its next most likely change"
        self.avoid = self.departure(result.raw_text, self.repeats.block if self.repeats else ())
        self.session.notice("warning", code, said)
        self.session.discard_proposal(quiet=True)

    def _say_how_it_ended(self, result: TurnResult) -> None:
        s = self.session
        if result.no_change:
            s.notice("error", NoticeCode.NO_CHANGE, f"{result.reason}; the file is untouched")
        elif result.status == "refused":
            s.notice("error", NoticeCode.REFUSED, f"edit refused, nothing changed: {result.reason}")
        elif result.status == "nothing":
            s.notice("info", NoticeCode.NOTHING, f"nothing to change: {result.reason}")

    # ------------------------------------------------------------ the turn's region and answers

    def _docstring_attempt(self) -> tuple[tuple[int, int], str] | None:
        """docstring_request for the request the attempt answers, on the proposal it builds on."""
        return docstring_request(self.session, self.asking, self.base)

    def _written(self) -> str:
        """What the model wrote after the attempt's prefix (a docstring's text), without the closing."""
        raw = self.answer.raw_text if self.answer is not None else ""
        body = raw[len(self.prefix):] if self.prefix and raw.startswith(self.prefix) else raw
        return body.split(DOC_CLOSE, 1)[0]

    def _answered_region(self) -> str:
        """The region as the proposal under way leaves it (its lines in the proposed text): hunks
        before it move it, those in it (or adding lines at either end of it) are part of it."""
        s = self.session
        start, end = self.region
        before = inside = 0
        for h in s.live.hunks():
            grown = len(h.new) - (h.end - h.start)
            if h.end <= start and h.start < start:
                before += grown
            elif h.start < end or h.start == h.end == end:
                inside += grown
        new = s.live.new_lines()
        return "\n".join(new[start + before : end + before + inside]) + "\n"

    def _crossed(self, region: tuple[int, int]) -> bool:
        """A change of the proposal under way crosses an edge of `region` (the definitions an
        addition names inside the turn's region): its lines there cannot be told apart."""
        return any(h.start < edge < h.end for h in self.session.live.hunks() for edge in region)

    def _move_to(self, region: tuple[int, int]) -> tuple[int, int]:
        """The turn (and the session) rewrite `region` from now on: an addition's (prompts.addition_region),
        or the request's again after an addition asked apart from it."""
        self.region = self.session.region = region
        return region

    def _restore(self, kept: TurnResult, region: tuple[int, int], why: str) -> TurnResult:
        """Put back the proposal of the answer an addition failed to build on (it rewrote `region`),
        and say so."""
        self._move_to(region)
        self._begin_attempt()
        self.answer.feed(kept.raw_text)
        self.answer_done()
        self.session.notice("warning", NoticeCode.REDIRECT_FAILED, f"{why}; the answer before it is kept")
        result = self.judge()
        result.raw_text = kept.raw_text
        return result

    def departure(self, answer: str, loop: tuple[str, ...] = ()) -> dict | None:
        """The `avoid` of another answer to this turn's request that departs from `answer` at its
        least confident token (a retry, or an alternative: steer_tui.alternatives); caught in the
        `loop` (RepeatWatch.block), where it went round again (edits.repeats.loop_departure). None
        where the gateway's engine cannot or the answers are not greedy."""
        s = self.session
        if "avoid" not in s.server_features or s.settings.temperature not in (None, 0, 0.0) or self.prefix:
            return None
        if loop:
            return loop_departure(answer, loop)
        after = departure_point(s.format, answer)
        if after is None:
            return None
        # A deletion's answer may depart by leaving lines out: what the request asks for.
        skip = s.format == "rewrite" and bool(may_delete(self.instruction, document_lines(s.document.text)[0], s.path))
        return {"text": answer, "after": after, **({"skip": True} if skip else {})}

    def feedback_instruction(self) -> str:
        """What the retry after a refusal tells the model."""
        return self.feedback or self.answer.feedback()

    # ------------------------------------------------------------ one attempt's stream

    def _begin_attempt(self) -> None:
        from steer_tui.edits.proposal import ProposalBuilder

        s = self.session
        self.answer = ProposalBuilder(s.live, self.region, s.instruction, s.path)
        self.repeats = RepeatWatch(s.document.text)
        self.feedback = ""
        self.unused_params = False
        self.prefix = None
        self.ttft = None
        self.tokens = 0
        self.t0 = time.perf_counter()
        self._stats_at = self.t0

    def _known_once(self, raw: str) -> TurnResult:
        """An attempt whose answer is known (`known`): fed to the proposal whole, as one delta, and
        judged as a streamed answer would be; nothing is asked of the model."""
        self.stream = None
        self.on_delta(raw)
        self.answer_done()
        return self.conclude(self.judge())

    def answer_done(self) -> None:
        """The answer is whole: its last blocks are parsed and the proposal shows it as it ends."""
        self.answer.finish()
        self.session.proposal_changed()

    def conclude(self, result: TurnResult) -> TurnResult:
        """The attempt's result with its numbers: the stream's own where it has them."""
        stats = getattr(self.stream, "stats", None)
        ttft = getattr(stats, "ttft_s", None) if stats is not None else None
        rate = getattr(stats, "deltas_per_s", None) if stats is not None else None
        usage = getattr(stats, "usage", None) or {}
        result.ttft_s = ttft if ttft is not None else self.ttft
        result.tokens = int(usage.get("output_tokens") or self.tokens)
        result.draft_accepted = int((usage.get("output_tokens_details") or {}).get("accepted_prediction_tokens") or 0)
        elapsed = time.perf_counter() - (self.t0 + (result.ttft_s or 0))
        result.tokens_per_s = rate if rate else (self.tokens / elapsed if elapsed > 0 and self.tokens > 1 else None)
        result.raw_text = self.answer.raw_text if self.answer is not None else ""
        result.hunks = self.session.live.hunk_count
        return result

    # ------------------------------------------------------------ per delta (hot path)

    def on_delta(self, delta: str) -> None:
        if not delta:
            return
        now = time.perf_counter()
        if self.ttft is None:
            self.ttft = now - self.t0
        self.tokens += 1
        live = self.session.live
        v = live.version
        self.answer.feed(delta)
        self.repeats.feed(delta)
        if live.version != v:
            self.session.proposal_changed()
        if now - self._stats_at >= _STATS_EVERY_S:
            self._stats_at = now
            span = now - self.t0 - self.ttft
            rate = (self.tokens - 1) / span if span > 0 and self.tokens > 1 else None
            self.session.emit(Stats(self.ttft, self.tokens, rate, now - self.t0))

    def restart_after_steer(self) -> None:
        self.answer.restart()
        self.repeats = RepeatWatch(self.session.document.text)
        self.session.proposal_changed()

    def judge(self) -> TurnResult:
        """The answer is complete: its verdict (steer_tui.turn_verdict)."""
        return self.verdict.judge()


def _what(result: TurnResult) -> str:
    """What an answer that changed nothing did, as a notice says it."""
    return "changed only whitespace, comments or docstrings" if result.reason == COSMETIC_REASON else "changed nothing"
