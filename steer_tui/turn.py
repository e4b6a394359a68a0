"""One turn of a Session: its attempts (refusal feedback goes back to the model), each answer
streamed from the backend into an steer_tui.edits.proposal.ProposalBuilder, and how it ended.

The Session owns the turn's lifecycle (state, stop, redirect); a Turn reads it for what it
needs (backend, document, live diff) and reports through its events.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from steer_tui.backend import SessionError, cancel_quietly
from steer_tui.edits.anchor import may_delete
from steer_tui.edits.class_doc import (
    DOC_CLOSE,
    asked_class,
    docstring_place,
    docstring_prefix,
    only_the_docstring,
    repeats_module_doc,
    saying_what,
)
from steer_tui.edits.cosmetic import COSMETIC_REASON
from steer_tui.edits.judge import (
    DEGENERATE_FEEDBACK,
    DEGENERATE_REASON,
    LOOP_REASON,
    NO_CHANGE,
    asks_for_nothing,
    departure_point,
    loop_feedback,
    no_change_instruction,
    syntax_feedback,
    truncated_feedback,
)
from steer_tui.edits.lines import document_lines
from steer_tui.edits.params import unused_new_parameters
from steer_tui.edits.repeats import RepeatWatch
from steer_tui.edits.syntax import is_python
from steer_tui.events import NoticeCode, Stats, TurnResult
from steer_tui.state import GENERATING
from steer_tui.transport import events as E

if TYPE_CHECKING:
    from steer_tui.session import Session

_STATS_EVERY_S = 0.1  # Stats events while streaming are throttled to this period
# Yield to the event loop after this many buffered deltas or this much work (seconds),
# so Esc is handled mid-burst at an unlimited delta rate.
_BURST_DELTAS = 256
_BURST_S = 0.004
# An answer with this many blocks whose SEARCH == REPLACE is a loop (seen with the 1.5B model): stop it.
_MAX_NOOP_BLOCKS = 3
# Departing retries of one request. A second one passed no more dev tasks and cost about one
# answer each time it ran (bench/results/levers/README.md, "second departure").
MAX_DEPARTURES = 1


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


def too_large(fmt: str, instructions: str, messages: list[dict], region: str, context: int | None) -> str:
    """Why a rewrite cannot fit in the engine's `context` window (tokens), or "" when it may: the
    prompt (`instructions`, the system prompt, and `messages`) and an answer that restates
    `region` are counted at 4.5 characters a token. Such a turn was evaluated for minutes and then
    generated until the context was full, and refused as cut off; it is refused before it is sent."""
    if fmt != "rewrite" or not context:
        return ""
    prompt = len(instructions) + sum(len(m.get("content") or "") for m in messages)
    need = int((prompt + len(region)) / _CHARS_PER_TOKEN_AT_MOST)
    if need <= context:
        return ""
    lines = region.count("\n") + (not region.endswith("\n") and bool(region))
    return (f"the region ({lines:,} lines) is too long to rewrite within the model's context of {context:,} tokens "
            f"(the file, the region and the answer need about {need:,}): name a function or class, put the "
            "cursor in one, or select fewer lines")


def _apart(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two regions share no line."""
    return a[1] <= b[0] or a[0] >= b[1]


def _region_text(text: str, region: tuple[int, int] | str | None) -> str:
    """The region as a turn's prompt shows it: its lines of `text`, or the text an addition shows."""
    if region is None or isinstance(region, str):
        return region or ""
    from steer_tui.prompts import region_lines

    return region_lines(text, region)


def docstring_request(session: "Session", asking: str, base: str | None = None) -> tuple[tuple[int, int], str] | None:
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


class Turn:
    """`await run()` streams the attempts and leaves `result`; `answer` is the attempt's ProposalBuilder."""

    def __init__(self, session: "Session", instruction: str, region: tuple[int, int] | None, retries: int):
        self.session = session
        self.instruction = instruction
        self.region = region
        self.retries = retries
        self.result = TurnResult("nothing")
        self.answer = None  # the ProposalBuilder of the attempt streaming or last streamed
        self.stream = None  # the backend's stream of that attempt
        self.feedback = ""  # what a refusal of the attempt tells the model, when its blocks do not say it
        self.t0 = time.perf_counter()
        self.ttft: float | None = None
        self.tokens = 0
        self._stats_at = self.t0
        # Words said while the answer was written that add to the request ("also X"): each is
        # its own edit of the answer's region, asked once the answer before it is complete.
        self.additions: list[str] = []
        self.can_retry = False  # a refusal of the attempt under way is retried (steer edit's retries)
        # The request a redirect's addition interrupted ("before"): asked again once the addition
        # is answered, of the code that answer leaves (or of the region as it was, if it changed
        # nothing or was refused).
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
        # review that a follow-up goes on from (Session._follow_up). Fed to the attempt, not asked.
        self.known: str | None = None
        # The request the attempt under way answers: an addition's words, then the request again
        # (a retry's feedback asks the same request).
        self.asking = instruction

    @property
    def stopped(self) -> bool:
        """Esc or a lost connection took the session out of GENERATING, or a redirect started the
        turn over (another Turn is the session's turn now)."""
        return self.session.state is not GENERATING or self.session._turn is not self

    async def run(self) -> None:
        s = self.session
        from steer_tui.prompts import addition_instruction, addition_region, build_input, instruction_message, redirect_instruction, system_prompt

        fmt = s.format
        instructions = system_prompt(fmt)
        attempt = 0
        history: list[dict] = []
        ask = self.instruction
        result = TurnResult("nothing")
        no_change_retried = False
        departures = 0  # departing retries made for the request
        total_tokens = 0
        first_ttft = None
        rates: list[float] = []
        shown = self.region  # the region as the prompt shows it: an addition shows the answer's
        spent = 0  # attempts that went to earlier requests, not counted against the retries
        kept: TurnResult | None = None  # the answer an addition builds on, restored if it fails
        kept_region = self.region  # the region that answer rewrote (an addition may widen the turn's)
        built = "the addition"  # what is asked on top of `kept`: an addition, or the request it interrupted
        avoid: dict | None = None  # the next attempt asks the same, departing from this answer
        doc_first: TurnResult | None = None  # a class's docstring that repeated the module's, asked again
        doc_again = False  # that was done in this turn
        reuse: str | None = None  # the next attempt's answer, known already (self.known)
        try:
            while True:
                attempt += 1
                doc = self._docstring_attempt()
                if doc is not None:
                    shown = self._move_to(doc[0])
                self._begin_attempt()
                self.prefix = doc[1] if doc is not None else None
                messages = build_input(fmt, s.prompt_path, s.document.text, ask, shown, history or None)
                region_text = _region_text(s.document.text, shown)
                cap = output_cap(fmt, region_text, s.settings.max_output_tokens, s.server_engine)
                if doc is not None:
                    cap = min(cap or DOC_CAP, DOC_CAP)
                why = too_large(fmt, instructions, messages, region_text, s.server_context)
                if why:
                    result = TurnResult("refused", why)
                    break
                self.can_retry = attempt - spent <= self.retries
                result = self._known_once(reuse) if reuse is not None else None
                if result is None or result.status != "proposal":
                    if result is not None:  # the known answer no longer stands: the request is asked
                        s._discard_proposal(quiet=True)
                        self._begin_attempt()
                    result = await self._stream_once(instructions, messages, cap, avoid)
                reuse = None
                avoid = None
                total_tokens += result.tokens
                first_ttft = first_ttft if first_ttft is not None else result.ttft_s
                if result.tokens_per_s:
                    rates.append(result.tokens_per_s)
                if doc_first is not None:  # the class's docstring asked again: its first answer stands if it fails
                    first, doc_first = doc_first, None
                    if result.status != "proposal" and not self.stopped:
                        result = self._restore(first, self.region, "the docstring asked again was not one")
                elif self.prefix and result.status == "proposal" and not self.stopped and not doc_again \
                        and repeats_module_doc(s.document.text, self._written()):
                    doc_first, doc_again = result, True
                    name = asked_class(self.asking, s.document.text)
                    ask = saying_what(ask, name)
                    s._notice("info", NoticeCode.CLASS_DOC_AGAIN,
                              f"the docstring of `{name}` repeats the module's; asking for one of its own")
                    s._discard_proposal(quiet=True)
                    continue
                if self.again is not None:
                    again, self.again = self.again, None
                    if not self.stopped and (result.status in ("nothing", "refused")
                                             or (result.status == "proposal" and self.base_clash)):
                        # The request's answer, asked as first asked, cannot keep the addition's
                        # changes (rebase.merge_apart: they clash), adds nothing to them, or was refused:
                        # it is asked of the code the addition left, after the addition's exchange.
                        region, history, shown = again
                        self._move_to(region)
                        spent, no_change_retried, departures = attempt, False, 0
                        s._notice("info", NoticeCode.REDIRECTED,
                                  f"now: {' '.join(ask.split())}, of the code the addition left")
                        s._discard_proposal(quiet=True)
                        continue
                if self.additions and not self.stopped and result.status in ("proposal", "nothing") \
                        and self.region is not None:
                    # Asked on its own of the code as the answer left it, an addition is done; asked
                    # together with the request, the small model did one of the two (bench/redirect.py).
                    words = self.additions.pop(0)
                    if result.status == "proposal":
                        kept, kept_region, self.base = result, self.region, s.review.proposed_text()
                        region = addition_region(s.document.text, self.region, words, narrow=True)
                        if self._crossed(region):  # it cannot be shown as the answer left it
                            region = addition_region(s.document.text, self.region, words)
                        apart = _apart(region, self.region)
                        self._move_to(region)
                        # Apart from the answer's region, the addition's is as it is on disk.
                        shown, ask = region if apart else self._answered_region(), addition_instruction(words)
                        self.asking = ask
                    else:  # the answer changed nothing: its request is asked again, with the addition
                        region = addition_region(s.document.text, self.region, words)
                        if shown == self.region:  # on the span that takes in both
                            shown = self._move_to((min(region[0], shown[0]), max(region[1], shown[1])))
                        ask = redirect_instruction(ask, [words])
                        self.asking = ask
                    history, spent, no_change_retried, departures = [], attempt, False, 0
                    s._notice("info", NoticeCode.REDIRECTED, f"now: {' '.join(words.split())}")
                    s._discard_proposal(quiet=True)
                    continue
                if self.then is not None and not self.stopped and self.region is not None and (
                        result.status in ("proposal", "nothing")
                        or (result.status == "refused" and attempt - spent > self.retries)):
                    # The addition's exchange stays in the conversation: shown the region as the
                    # addition left it in a fresh message, the small model put a class's docstring
                    # above the class; after its own answer it did not (bench/redirect.py).
                    chat = [instruction_message(fmt, ask, s.document.text, shown),
                            {"role": "assistant", "content": result.raw_text}] if result.status == "proposal" else []
                    ask, self.instruction, self.then = self.then, self.then, None
                    self.asking = ask
                    back, self.then_region = self.then_region, None
                    if result.status == "proposal":
                        kept, kept_region, built = result, self.region, "the request"
                        self.base = s.review.proposed_text()
                    else:
                        s._notice("warning", NoticeCode.REDIRECT_FAILED,
                                  f"the addition's answer {'changed nothing' if result.status == 'nothing' else 'was refused'}")
                    if back is not None and _apart(back, self.region):
                        # The addition was asked apart from the request's region: the request is asked
                        # as it first was (its prompt still cached), of that region as on disk; after
                        # the addition's exchange about another definition the small model wrote
                        # the whole class again. Its answer keeps the addition's change (with_earlier).
                        shown, chat = self._move_to(back), []
                        reuse = self.known
                    elif result.status == "proposal" and back is not None:
                        # The request is asked as it first was, of its region as on disk (its prompt
                        # is still cached: only its words are evaluated again), and its answer is
                        # merged with the addition's (rebase.merge_apart). Shown the code the
                        # addition left, after that exchange, the small model carried the addition's
                        # kind of change to methods the request never named (bench/redirect.py).
                        # Only where the two answers clash is that asked (self.again).
                        self.again = (self.region, chat, self._answered_region())
                        shown, chat = self._move_to(back), []
                        reuse = self.known
                    elif result.status == "proposal":
                        shown = self._answered_region()
                    self.known = None
                    history, spent, no_change_retried, departures = chat, attempt, False, 0
                    s._notice("info", NoticeCode.REDIRECTED, f"now: {' '.join(ask.split())}")
                    s._discard_proposal(quiet=True)
                    continue
                if kept is not None and (result.status == "nothing" or (
                        result.status == "proposal" and self._answered_region() == shown)):
                    # The answer built on `kept` gave back the file as it was on disk, or the code
                    # it was shown. Like any answer that changes nothing it is a failed attempt:
                    # the model's next most likely answer is asked for; if that changes nothing
                    # either, the earlier answer stands.
                    avoid = None if self.stopped or asks_for_nothing(ask) else self._departing(
                        result.raw_text, departures, NoticeCode.RETRY_NO_CHANGE,
                        f"the model's answer to {built} changed nothing; asking for its next most likely change")
                    if avoid is not None:
                        departures += 1
                        continue
                    if not self.stopped:
                        result = self._restore(kept, kept_region, f"the model's answer to {built} changed nothing")
                    break
                if result.status == "nothing" and not result.already_applied and not self.stopped \
                        and not asks_for_nothing(self.instruction):
                    # An answer that changes nothing (or only its whitespace, comments or docstrings,
                    # steer_tui.edits.cosmetic) is a failed attempt, not "nothing to change": it is retried
                    # (departing from it, up to MAX_DEPARTURES times, or once with feedback that says
                    # so), then the turn reports it as a refusal. The departing retries are made even
                    # where no retries are allowed (the app): each is the model's next most likely
                    # answer, not the same one again.
                    what = "changed only whitespace, comments or docstrings" if result.reason == COSMETIC_REASON \
                        else "changed nothing"
                    avoid = None if no_change_retried else self._departing(
                        result.raw_text, departures, NoticeCode.RETRY_NO_CHANGE,
                        f"the model's answer {what}; asking for its next most likely change")
                    if avoid is None and (departures or no_change_retried or attempt - spent > self.retries):
                        reason = NO_CHANGE if result.reason != COSMETIC_REASON else f"{NO_CHANGE} to the code ({what})"
                        result = TurnResult("refused", reason, raw_text=result.raw_text, no_change=True)
                        break
                    if avoid is not None:
                        departures += 1
                        continue
                    no_change_retried = True
                    s._notice("warning", NoticeCode.RETRY_NO_CHANGE, f"the model's answer {what}; asking it again")
                    next_ask = no_change_instruction(fmt, self.instruction, result.reason)
                elif result.status != "refused" or attempt - spent > self.retries or self.stopped:
                    if kept is not None and result.status == "refused" and not self.stopped:
                        result = self._restore(kept, kept_region, f"the answer to {built} was refused ({result.reason})")
                    break
                else:
                    # Told that a new parameter goes unread, the small model wrote the same answer again.
                    avoid = self._departing(
                        result.raw_text, departures, NoticeCode.RETRY_REFUSED,
                        f"edit refused ({result.reason}); asking for the model's next most likely answer",
                    ) if self.unused_params else None
                    if avoid is not None:
                        departures += 1
                        continue
                    s._notice("warning", NoticeCode.RETRY_REFUSED, f"edit refused ({result.reason}); asking the model to fix it")
                    next_ask = self.feedback_instruction()
                history = history + [
                    instruction_message(fmt, ask, s.document.text, shown),
                    {"role": "assistant", "content": result.raw_text},
                ]
                ask = next_ask
                s._discard_proposal(quiet=True)
            if result.no_change:
                s._notice("error", NoticeCode.NO_CHANGE, f"{result.reason}; the file is untouched")
            elif result.status == "refused":
                s._notice("error", NoticeCode.REFUSED, f"edit refused, nothing changed: {result.reason}")
            elif result.status == "nothing":
                s._notice("info", NoticeCode.NOTHING, f"nothing to change: {result.reason}")
        except asyncio.CancelledError:
            result = TurnResult("stopped", "cancelled")
            raise
        except SessionError as exc:
            result = TurnResult("error", exc.message, error_code=exc.code)
            s._notice("error", NoticeCode.ERROR, exc.message)
        finally:
            result.attempts = attempt
            result.tokens = total_tokens
            result.ttft_s = first_ttft
            result.tokens_per_s = rates[-1] if rates else None
            result.hunks = s.live.hunk_count
            self.result = result

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
        self._answer_done()
        self.session._notice("warning", NoticeCode.REDIRECT_FAILED, f"{why}; the answer before it is kept")
        result = self._judge()
        result.raw_text = kept.raw_text
        return result

    def _departing(self, answer: str, departures: int, code: NoticeCode, said: str) -> dict | None:
        """The `avoid` of a retry departing from `answer` (saying `said` and clearing the proposal),
        or None when no more departures may be made or the engine cannot depart. Asked again with
        feedback, the small model wrote the same answer in every run measured; its own runner-up
        where it was least sure is its next most likely answer (steer_tui/server/engines/depart.py)."""
        avoid = self._departure(answer) if departures < MAX_DEPARTURES else None
        if avoid is not None:
            self.session._notice("warning", code, said)
            self.session._discard_proposal(quiet=True)
        return avoid

    def _departure(self, answer: str) -> dict | None:
        """The `avoid` of a retry that departs from `answer`, when the gateway's engine can and the
        answers are greedy; None otherwise."""
        s = self.session
        if "avoid" not in s.server_features or s.settings.temperature not in (None, 0, 0.0) or self.prefix:
            return None
        after = departure_point(s.format, answer)
        if after is None:
            return None
        # A deletion's answer may depart by leaving lines out: what the request asks for.
        skip = s.format == "rewrite" and bool(may_delete(self.instruction, document_lines(s.document.text)[0]))
        return {"text": answer, "after": after, **({"skip": True} if skip else {})}

    def feedback_instruction(self) -> str:
        """What the retry after a refusal tells the model."""
        return self.feedback or self.answer.feedback()

    def _begin_attempt(self) -> None:
        from steer_tui.edits.proposal import ProposalBuilder

        s = self.session
        self.answer = ProposalBuilder(s.live, self.region, s.instruction, s.path)
        self.repeats = RepeatWatch(s.document.text)
        self.feedback = ""
        self.unused_params = False  # the attempt's answer was refused for a parameter it never reads
        self.prefix: str | None = None  # what the attempt's answer starts with (_docstring_attempt)
        self.ttft = None
        self.tokens = 0
        self.t0 = time.perf_counter()
        self._stats_at = self.t0

    async def _stream_once(self, instructions: str, messages: list[dict], cap: int | None,
                           avoid: dict | None = None) -> TurnResult:
        s = self.session
        try:
            stream = await s.client.create(
                model=s.model,
                instructions=instructions,
                input=messages,
                stream_id=s.stream_id,
                max_output_tokens=cap,
                temperature=s.settings.temperature,
                **({"extra": {"prefix": self.prefix, "stop": [DOC_CLOSE]}} if self.prefix
                   else {"extra": {"avoid": avoid}} if avoid is not None else {}),
            )
        except Exception as exc:
            s._set_connection("lost", str(exc))
            raise SessionError(getattr(exc, "code", "backend_unreachable"), f"request failed: {exc}") from exc
        self.stream = stream
        if self.stopped:  # stopped while the request was being sent
            await cancel_quietly(stream)
            return TurnResult("stopped", "stopped by the user")
        if self.prefix:  # the answer's start, not a token of it: the first token is still to come
            self.answer.feed(self.prefix)
            s._proposal_changed()
        # Deltas the client has already buffered come without a suspension: at an unlimited
        # rate a whole answer is one burst. Let the loop run (Esc, redraws) every so often.
        burst, burst_t0 = 0, time.perf_counter()
        async for ev in stream:
            if s.state is not GENERATING or s._turn is not self:
                break
            if isinstance(ev, E.TextDelta):
                self.on_delta(ev.delta)
                if self.answer.noop_blocks >= _MAX_NOOP_BLOCKS:
                    return await self._give_up_degenerate(stream, DEGENERATE_REASON, DEGENERATE_FEEDBACK)
                if self.repeats.looping:
                    return await self._give_up_degenerate(stream, LOOP_REASON, loop_feedback(self.repeats.block))
                burst += 1
                if burst >= _BURST_DELTAS or time.perf_counter() - burst_t0 >= _BURST_S:
                    await asyncio.sleep(0)
                    burst, burst_t0 = 0, time.perf_counter()
                    if self.stopped:  # Esc ran during the yield
                        break
            elif isinstance(ev, E.Incomplete) and ev.reason == "steered":
                # The successor's output replaces this answer: start the proposal over.
                self.restart_after_steer()
            elif isinstance(ev, E.Created):
                if s.connection != "ready":
                    s._set_connection("ready", getattr(s.client, "url", ""))
            elif isinstance(ev, E.Completed):
                break
            elif isinstance(ev, E.Incomplete):
                if ev.reason == "cancelled":
                    return self.conclude(TurnResult("stopped", "cancelled"))
                # Cut off (max_output_tokens, ...): a partial answer never applies.
                self.answer.truncate()
                s._proposal_changed()
                self.feedback = truncated_feedback(ev.reason)
                return self.conclude(TurnResult("refused", f"the answer was cut off ({ev.reason})"))
            elif isinstance(ev, (E.Failed, E.Error)):
                raise SessionError(ev.code or "backend_error", ev.message or ev.code)
            elif isinstance(ev, E.Disconnected):
                s._set_connection("lost", ev.message)
                s._interrupt()
                return self.conclude(TurnResult("stopped", f"connection lost: {ev.message}"))
            elif isinstance(ev, E.Notice):
                s._notice("info", NoticeCode.SERVER, ev.message)
            elif isinstance(ev, E.SteerFailed):
                s._notice("warning", NoticeCode.REDIRECT_FAILED, f"redirect failed: {ev.message or ev.code}")
        if self.stopped:
            return self.conclude(TurnResult("stopped", "stopped by the user"))
        if self.prefix:  # the engine ended the answer at the docstring's closing quotes, unsent
            self.answer.feed(DOC_CLOSE + "\n```\n")
        self._answer_done()
        return self.conclude(self._judge())

    def _known_once(self, raw: str) -> TurnResult:
        """An attempt whose answer is known (`known`): fed to the proposal whole, as one delta, and
        judged as a streamed answer would be; nothing is asked of the model."""
        self.stream = None
        self.on_delta(raw)
        self._answer_done()
        return self.conclude(self._judge())

    def _answer_done(self) -> None:
        """The answer is whole: its last blocks are parsed and the proposal shows it as it ends."""
        self.answer.finish()
        self.session._proposal_changed()

    async def _give_up_degenerate(self, stream, reason: str, feedback: str) -> TurnResult:
        """The answer is caught in a loop (blocks that change nothing, the same lines over and over,
        steer_tui.edits.repeats): stop paying for it."""
        await cancel_quietly(stream)
        self.answer.drop_partial()
        self.session.live.clear()
        self.session._proposal_changed()
        self.feedback = feedback
        return self.conclude(TurnResult("refused", reason))

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
            self.session._proposal_changed()
        if now - self._stats_at >= _STATS_EVERY_S:
            self._stats_at = now
            span = now - self.t0 - self.ttft
            rate = (self.tokens - 1) / span if span > 0 and self.tokens > 1 else None
            self.session._emit(Stats(self.ttft, self.tokens, rate, now - self.t0))

    def restart_after_steer(self) -> None:
        self.answer.restart()
        self.repeats = RepeatWatch(self.session.document.text)
        self.session._proposal_changed()

    # ------------------------------------------------------------ the verdict

    def _judge(self) -> TurnResult:
        """The answer is complete: the applier's verdict (steer_tui.edits.judge), then the syntax check."""
        s = self.session
        version = s.live.version
        verdict = self.answer.judge(s.document.text)
        if verdict.status != "proposal":
            self.feedback = verdict.feedback
            s._proposal_changed()
            return TurnResult(verdict.status, verdict.reason, already_applied=verdict.already_applied)
        new_text = verdict.new_text
        if self.base is not None:
            new_text = self._with_base(new_text)
        asked = self._class_doc(new_text)
        if asked is None:
            s._proposal_changed()
            return TurnResult("nothing", "the answer gives the class no docstring of its own")
        new_text = asked
        if s.live.version != version:  # the applier and the live diff disagreed: rebuilt from the applier
            s._proposal_changed()
        return self._syntax_verdict(new_text) or self._unused_verdict(new_text) or TurnResult("proposal")

    def _class_doc(self, new_text: str) -> str | None:
        """Where the request asks for a class's docstring alone (steer_tui.edits.class_doc), the answer's
        text with that docstring alone, the live diff redrawn to match (None, and the live diff
        cleared, where it gives the class none of its own); else `new_text`."""
        s = self.session
        name = asked_class(self.asking, s.document.text) if is_python(s.path) else None
        if name is None:
            return new_text
        kept = only_the_docstring(self.base if self.base is not None else s.document.text, new_text, name)
        if kept is None:
            s.live.clear()
            return None
        if kept != new_text:
            self._redraw(document_lines(kept)[0])
            s._notice("info", NoticeCode.CLASS_DOC_ONLY,
                      f"kept only the docstring of `{name}`: the answer's other changes were not asked for")
        return kept

    def _with_base(self, new_text: str) -> str:
        """The answer's text with the changes of the answer it builds on (`base`) that it left out
        (rebase.with_earlier; rebase.merge_apart for a request asked again as first asked, which
        never saw them), the live diff redrawn to match."""
        from steer_tui.edits.lines import join_lines
        from steer_tui.edits.rebase import merge_apart, with_earlier

        s = self.session
        old, ending = document_lines(s.document.text)
        earlier, later = document_lines(self.base)[0], document_lines(new_text)[0]
        # Asked again as first asked (self.again), the answer never saw `base`: both are kept, or
        # where they clash, it is asked of `base`'s code instead.
        both = merge_apart(old, earlier, later) if self.again is not None else None
        self.base_clash = self.again is not None and (both is None or both == earlier)
        merged = both if both is not None else with_earlier(old, earlier, later)
        text = join_lines(merged, ending)
        if text != new_text:
            self._redraw(merged)
        return text

    def _redraw(self, lines: list[str]) -> None:
        """The live diff shows the file becoming `lines` (the proposal as judged, not as streamed)."""
        from steer_tui.edits.rebase import diff_hunks

        live = self.session.live
        live.reset(live.lines, diff_hunks(live.lines, lines))

    def _unused_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal gives a Python function a parameter its body never reads: in
        `edit()`, while a retry is left, a failed attempt whose feedback names it; else a warning
        on a proposal that stands. None when there is none."""
        s = self.session
        if not is_python(s.path):
            return None
        unused = unused_new_parameters(s.document.text, new_text)
        if not unused:
            return None
        said = ", ".join(f"`{p}` of `{f.rsplit('.', 1)[-1]}`" for f, p in unused)
        what = f"the new parameter{'s' if len(unused) > 1 else ''} {said} {'are' if len(unused) > 1 else 'is'} never used"
        if s._refuse_broken_syntax and self.can_retry:
            self.unused_params = True
            return self._refuse_proposal(what, (
                f"Your edit was not applied: {what} in the function's body, so passing "
                f"{'them' if len(unused) > 1 else 'it'} changes nothing. Reply again with the complete "
                "edit, with the function's code using the new parameter where the request needs it."))
        s._notice("warning", NoticeCode.UNUSED, f"{what}; review it before accepting")
        return None

    def _syntax_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal (`new_text`) breaks the file's Python syntax: flag it for review, or,
        in `edit()` (nothing reviews it), refuse it with feedback: a failed attempt. None if it parses."""
        s = self.session
        problem = s.review.checked_syntax(new_text)
        if problem is None:
            return None
        if not s._refuse_broken_syntax:
            s._notice("warning", NoticeCode.SYNTAX, f"{problem.describe()}; review it before accepting")
            return None
        return self._refuse_proposal(problem.describe(), syntax_feedback(problem, new_text))

    def _refuse_proposal(self, reason: str, feedback: str) -> TurnResult:
        """In `edit()`: the finished proposal is a failed attempt after all; it leaves the diff and
        `feedback` goes back to the model."""
        self.feedback = feedback
        self.session.live.clear()
        self.session._proposal_changed()
        return TurnResult("refused", reason)

