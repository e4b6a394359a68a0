"""The pair-programming session shared by the TUI and `steer edit` (no Textual here): it orchestrates.

One Session edits one Document. It connects to a backend (app.backend), prewarms the model's
cache with the file, runs turns (retries with refusal feedback, stop, redirect) and feeds each
answer's deltas to an app.edits.proposal.ProposalBuilder, which keeps the LiveDiff the view
draws; app.edits.judge decides what a finished answer does. Review (all or per hunk) and
accept write through Document; app.journal holds undo/redo; an external change of the file is
carried over by app.edits.rebase. Its state is app.state.State, changed only through the
transition table there. Everything the UI shows comes out as app.events objects to one
callback, called on the event loop's thread.

Per delta the work is O(delta): parser.feed, LiveDiff.update of one hunk, one callback.
Anything O(file) (locate, accept, re-locate) happens once per block or per user action.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from typing import Callable

from app.backend import Backend, SessionError, open_backend
from app.config import Settings
from app.edits.lines import document_lines, join_lines, unified_diff
from app.edits.livediff import LiveDiff
from app.edits.rebase import carry_over
from app.events import (
    Applied,
    ConnectionChanged,
    Event,
    Notice,
    NoticeCode,
    ProposalUpdated,
    StateChanged,
    Stats,
    TurnEnded,
    TurnResult,
)
from app.journal import Journal
from app.state import GENERATING, IDLE, INTERRUPTED, REVIEW, State, check_transition

__all__ = ["Session", "SessionError", "open_backend", "MAX_RETRIES", "REDIRECT_MODES"]

MAX_RETRIES = 2  # refusal feedback goes back to the model at most this many times
_STATS_EVERY_S = 0.1  # Stats events while streaming are throttled to this period
# Yield to the event loop after this many buffered deltas or this much work (seconds),
# so Esc is handled mid-burst at an unlimited delta rate.
_BURST_DELTAS = 256
_BURST_S = 0.004
# An answer with this many blocks whose SEARCH == REPLACE is a loop (seen with the 1.5B model): stop it.
_MAX_NOOP_BLOCKS = 3
# How a redirect reaches the model, per edit format (Session.redirect_mode), measured with the
# embedded model by bench/redirect.py (10 scripted redirects): "continue" (response.steer: the
# model answers again after its partial answer and the words) followed 5/10 with the first token
# in ~0.4 s; "restart" (the turn starts over as one request, the region narrowed to a definition
# the words name) followed 3/4 narrowing redirects where continue followed 1/4, but evaluates the
# region and instruction again (seconds on a loaded 2-core CPU). "auto": restart when the words
# narrow or move the region, else continue. Other formats are not measured: continue, as before.
REDIRECT_MODES = {"rewrite": "auto", "search_replace": "continue", "apply_patch": "continue", "udiff": "continue"}
_CODES = {"refused": NoticeCode.REFUSED, "nothing": NoticeCode.NOTHING}


class Session:
    """Create it, `await start()`, then `send`/`stop`/`redirect`/accept...

    `client`: an already connected Backend (tests, or a UI that owns it); without one
    `start()` opens the configured backend (the embedded engine when none is configured).
    """

    redirect_strategy: str | None = None  # "restart" | "continue" | "auto"; None: REDIRECT_MODES for the format
    _redirected: tuple | None = None  # (turn task, first instruction, redirects) of the redirected turn
    _refuse_broken_syntax = False  # edit(): a proposal that breaks Python syntax is a refused attempt
    _syntax_key: tuple | None = None
    _syntax = None

    def __init__(
        self,
        document,
        settings: Settings | None = None,
        on_event: Callable[[Event], None] | None = None,
        *,
        client: Backend | None = None,
        edit_format: str | None = None,
        model: str | None = None,
    ):
        self.document = document
        self.settings = settings or Settings()
        self.on_event = on_event or (lambda ev: None)
        self.client = client
        self._owns_client = client is None
        # A local GGUF path is the engine's business, not a per-request model name.
        self.model = model or (self.settings.model if self.settings.backend != "local" else None)
        self.edit_format = edit_format or self.settings.edit_format
        self.state: State = IDLE
        self.connection = "closed"
        self.stream_id = "s-" + uuid.uuid4().hex[:12]
        lines, self._final_nl = document_lines(document.text)
        self.live = LiveDiff(lines)
        self.conflict: str | None = None  # why accept is blocked (the file changed under the proposal)
        self.instruction: str | None = None
        self.region: tuple[int, int] | None = None
        self.last_result: TurnResult | None = None
        self.journal = Journal()
        self._answer = None  # the ProposalBuilder of the answer streaming or last streamed
        self._stream = None
        self._turn_task: asyncio.Task | None = None
        self._prewarm_task: asyncio.Task | None = None
        self._warm: tuple[str, tuple[int, int] | None] | None = None  # (text, region) last prewarmed
        self._stats_at = 0.0
        self._t0 = 0.0
        self._ttft: float | None = None
        self._tokens = 0
        # The file changed on disk while generating: re-located when the turn ends. Not a state:
        # the turn goes on streaming exactly as it would without it.
        self._pending_external = False
        self._feedback = ""

    # ------------------------------------------------------------ properties

    @property
    def path(self) -> str:
        return str(self.document.path)

    @property
    def prompt_path(self) -> str:
        """The file's name as the model sees it: relative to the working directory when inside it."""
        try:
            rel = os.path.relpath(self.document.path)
        except ValueError:
            rel = ""
        return rel if rel and not rel.startswith("..") else os.path.basename(str(self.document.path))

    @property
    def text(self) -> str:
        return self.document.text

    @property
    def raw_text(self) -> str:
        """The model's answer so far (for the raw view)."""
        return self._answer.raw_text if self._answer is not None else ""

    @property
    def blocks(self) -> dict:
        """The blocks of the answer streaming or last streamed (app.edits.proposal.BlockState by index)."""
        return self._answer.blocks if self._answer is not None else {}

    @property
    def proposal(self) -> list:
        """The pending hunks (app.edits.livediff.HunkInfo), in file order."""
        return self.live.hunks()

    @property
    def has_proposal(self) -> bool:
        return self.live.hunk_count > 0

    @property
    def can_undo(self) -> bool:
        return self.journal.can_undo

    @property
    def can_redo(self) -> bool:
        return self.journal.can_redo

    @property
    def format(self) -> str:
        from app.prompts import REWRITE, default_format, is_empty

        if is_empty(self.document.text):
            return REWRITE  # a new (empty) file is written whole, whatever the format
        backend = self.settings.backend
        if self.server_engine == "local":
            backend = "local"  # a gateway URL in front of the embedded model: its measured format
        return self.edit_format or default_format(backend, self.model)

    def _served(self, key: str) -> str | None:
        # What a steer gateway said it serves (open_backend asks on connect); None if unknown.
        info = getattr(self.client, "server_info", None)
        value = info.get(key) if isinstance(info, dict) else None
        return value if isinstance(value, str) else None

    @property
    def server_engine(self) -> str | None:
        """The engine a steer gateway says it serves (local, upstream, replay), None if not known yet."""
        return self._served("engine")

    @property
    def server_model(self) -> str | None:
        """The model a steer gateway says it serves, None if not known."""
        return self._served("model")

    def proposal_diff(self) -> str:
        """The pending proposal as a unified diff (O(file): for the diff view and `steer edit`)."""
        return unified_diff(self.path, self.document.text, self._proposed_text())

    def _proposed_text(self) -> str:
        return join_lines(self.live.new_lines(), self._final_nl)

    # ------------------------------------------------------------ events

    def _emit(self, ev) -> None:
        try:
            self.on_event(ev)
        except Exception as exc:  # a broken listener must not kill the stream
            logging.getLogger(__name__).exception("session listener failed: %s", exc)

    def _set_state(self, state: State) -> None:
        if state is not self.state:
            check_transition(self.state, state)
            prev, self.state = self.state, state
            self._emit(StateChanged(state, prev))

    def _set_connection(self, state: str, detail: str = "") -> None:
        self.connection = state
        self._emit(ConnectionChanged(state, detail))

    def _notice(self, level: str, code: NoticeCode, text: str) -> None:
        self._emit(Notice(level, text, code))

    def _proposal_changed(self) -> None:
        self._emit(ProposalUpdated(self.live.version, self.live.hunk_count, self.live.cursor_row))

    # ------------------------------------------------------------ connection

    async def start(self, *, prewarm: bool = True) -> None:
        """Connect (opening the configured backend if no client was given) and prewarm the file."""
        if self.client is None:
            self._set_connection("connecting", self.settings.backend)
            try:
                self.client = await open_backend(self.settings, self._set_connection)
            except SessionError as exc:
                self._set_connection("error", exc.message)
                raise
            except Exception as exc:
                self._set_connection("error", str(exc))
                raise SessionError(getattr(exc, "code", "backend_unreachable"), str(exc)) from exc
        self._set_connection("ready", getattr(self.client, "url", ""))
        if prewarm:
            self.prewarm()

    def prewarm(self, region: tuple[int, int] | None = None) -> None:
        """Ask the engine to evaluate system prompt + file now (in the background).

        With `region` (rewrite format only: its turn message opens with the region block) the
        block is evaluated too, so after Enter only the instruction is left to evaluate.
        """
        if self.client is None:
            return
        if self.format != "rewrite":
            region = None
        if self._prewarm_task and not self._prewarm_task.done():
            self._prewarm_task.cancel()  # superseded: the client cancels it on the server too
        self._warm = (self.document.text, region)
        self._prewarm_task = asyncio.ensure_future(self._prewarm(region))

    @property
    def warming(self) -> bool:
        """A prewarm of the whole file (not of one block) is in flight."""
        task = self._prewarm_task
        return task is not None and not task.done() and self._warm is not None and self._warm[1] is None

    async def warmed(self) -> None:
        """Wait for the prewarm in flight (if any) to end, however it ends."""
        task = self._prewarm_task
        if task is not None and not task.done():
            await asyncio.wait([task])

    def prewarm_region(self, region: tuple[int, int]) -> None:
        """The cursor rests in `region`, the likely scope of the next edit: prewarm its block,
        unless it already is, or a turn or a proposal is under way (nothing may delay those)."""
        if self.format != "rewrite" or self.state is not IDLE or self._warm == (self.document.text, region):
            return
        self.prewarm(region)

    async def _prewarm(self, region: tuple[int, int] | None = None) -> None:
        from app.prompts import prewarm_input, system_prompt

        fmt = self.format
        try:
            await self.client.prewarm(
                model=self.model,
                instructions=system_prompt(fmt),
                input=prewarm_input(fmt, self.prompt_path, self.document.text, region),
                stream_id=self.stream_id,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # prewarm is an optimisation: say so, never fail the session
            self._notice("warning", NoticeCode.PREWARM_FAILED, f"prewarm failed: {exc}")

    async def close(self) -> None:
        await self.stop()
        for task in (self._prewarm_task, self._turn_task):
            if task and not task.done():
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
        if self._owns_client and self.client is not None:
            try:
                await self.client.close()  # also stops a gateway subprocess the client owns
            except Exception:
                pass
        self._set_connection("closed")

    # ------------------------------------------------------------ turns

    async def send(self, instruction: str, region: tuple[int, int] | None = None, *, retries: int = 0) -> None:
        """Start a turn (returns once it is under way; `await wait()` for the end).

        `region`: 0-based end-exclusive line range the edit is scoped to. `retries`: how many
        times a refused answer's feedback goes back to the model (steer edit: 2).
        """
        if self.client is None:
            raise SessionError("not_connected", "the session is not connected")
        if self.state is GENERATING:
            await self.redirect(instruction)
            return
        if self.has_proposal:
            self._discard_proposal()
        if self.format == "rewrite" and region is None:
            # Not the whole file: rewriting it is slow on a CPU and defeats the prewarm. The
            # definitions the instruction names, else the whole file.
            from app.prompts import rewrite_region

            region = rewrite_region(self.document.text, instruction)
        warming = self._prewarm_task
        if warming and not warming.done() and self._warm is not None and self._warm[1] not in (None, region):
            warming.cancel()  # a block this turn does not use: the turn must not queue behind it
        self.instruction = instruction
        self.region = region
        self.last_result = None
        self._turn_task = asyncio.ensure_future(self._turn(instruction, region, retries))
        # Let the task send its request before returning, so `stop()` right after works.
        self._set_state(GENERATING)
        await asyncio.sleep(0)

    def _stopped(self, turn) -> bool:
        """Whether the turn running as task `turn` was stopped: Esc or a lost connection took the
        session out of GENERATING, or a redirect started the turn over (a new task is the turn)."""
        return self.state is not GENERATING or self._turn_task is not turn

    async def wait(self) -> TurnResult:
        """Wait for the current turn (with its retries) to end."""
        await _ended(self._turn_task)
        return self.last_result or TurnResult("nothing")

    async def edit(self, instruction: str, region: tuple[int, int] | None = None, retries: int = MAX_RETRIES) -> TurnResult:
        """One whole turn: send, wait, retrying with refusal feedback (what `steer edit` does).

        With no review to come, an answer that breaks a Python file's syntax is a refused attempt."""
        self._refuse_broken_syntax = True
        try:
            await self.send(instruction, region, retries=retries)
            return await self.wait()
        finally:
            self._refuse_broken_syntax = False

    async def stop(self) -> None:
        """Esc: stop now. Complete blocks stay as the proposal; a half-written block is dropped."""
        rest = self.stop_now()
        if rest is not None:
            await rest

    def stop_now(self):
        """The part of stop() that needs no waiting, done before this returns: no delta reaches
        the live diff any more and the proposal and state are final (a screen can draw its last
        picture at once). Returns the rest to await (the server-side cancel), or None."""
        if self.state is not GENERATING:
            return None
        self._interrupt()  # from here on no delta reaches the live diff
        stream = self._stream
        return _cancel_quietly(stream) if stream is not None else None

    def _interrupt(self) -> None:
        """Leave GENERATING with what the answer completed (Esc, a lost connection)."""
        if self._answer is not None:
            self._answer.drop_partial(keep_closed=True)
        # Nothing left to review: idle, not "interrupted" over an empty proposal.
        self._set_state(INTERRUPTED if self.has_proposal else IDLE)
        self._proposal_changed()

    async def redirect(self, words: str) -> None:
        """Enter while generating: the new words redirect the turn; its new answer replaces the proposal.

        How the words reach the model is `redirect_mode` (REDIRECT_MODES): "restart" stops the
        answer and starts the turn over with the first instruction and the new words in one
        request (file and region stay cached: only the instruction is evaluated again);
        "continue" steers (`response.steer`): the model answers again after its partial answer
        and the new words; "auto" restarts when the words narrow or move a rewrite's region
        ("no, only pop") and continues otherwise. Either way the superseded partial leaves the
        live diff at once.
        """
        if self.state is not GENERATING:
            await self.send(words, self.region)
            return
        words = words.strip()
        first, said = self._redirect_history()
        said = said + [words]
        self._notice("info", NoticeCode.REDIRECTED, f"redirected: {' '.join(words.split())} (the answer starts over)")
        mode = self.redirect_mode
        if mode == "auto":
            from app.prompts import redirect_region

            moved = self.region is not None and redirect_region(self.document.text, self.region, [words]) != self.region
            mode = "restart" if moved else "continue"
        if self._stream is None or mode == "restart":
            # Also when the request is still on its way: there is nothing to steer yet.
            await self._restart_turn(first, said)
            return
        self.instruction = f"{self.instruction}\n{words}" if self.instruction else words
        self._redirected = (self._turn_task, first, said)
        try:
            await self._stream.steer(words)
        except Exception as exc:
            self._notice("error", NoticeCode.REDIRECT_FAILED, f"redirect failed: {exc}")

    @property
    def redirect_mode(self) -> str:
        """How a redirect reaches the model: `redirect_strategy` if set, else the measured one for the format."""
        return self.redirect_strategy or REDIRECT_MODES.get(self.format, "restart")

    def _redirect_history(self) -> tuple[str, list[str]]:
        """(first instruction, redirects so far) of the turn under way."""
        got = self._redirected
        if got is not None and got[0] is self._turn_task:
            return got[1], list(got[2])
        return self.instruction or "", []

    async def _restart_turn(self, first: str, said: list[str]) -> None:
        """Stop the answer and start the turn over with `redirect_instruction(first, said)`.

        To the listener the turn goes on: the superseded turn's state changes, stats and end are
        not shown (it is replaced, not stopped); its partial leaves the live diff before anything
        is awaited, and no later delta of it reaches the diff (it is no longer `_turn_task`).
        """
        from app.prompts import redirect_instruction, redirect_region

        stream, listener, old = self._stream, self.on_event, self._turn_task
        region = redirect_region(self.document.text, self.region, said[-1:])
        combined = redirect_instruction(first, said) if first else "\n".join(said)
        self._turn_task = None
        self._discard_proposal()

        def quiet(ev) -> None:
            if not isinstance(ev, (StateChanged, Stats, TurnEnded)):
                listener(ev)

        self.on_event = quiet
        try:
            if stream is not None:
                await _cancel_quietly(stream)
            await _ended(old)
        finally:
            if self.on_event is quiet:
                self.on_event = listener
        await self.send(combined, region)
        self._redirected = (self._turn_task, first, said)

    async def _turn(self, instruction: str, region: tuple[int, int] | None, retries: int) -> None:
        from app.edits.judge import NO_CHANGE, asks_for_nothing, no_change_instruction
        from app.prompts import build_input, instruction_message, system_prompt

        turn = asyncio.current_task()
        fmt = self.format
        attempt = 0
        history: list[dict] = []
        ask = instruction
        result = TurnResult("nothing")
        no_change_retried = False
        total_tokens = 0
        first_ttft = None
        rates: list[float] = []
        try:
            while True:
                attempt += 1
                self._begin_attempt(region)
                messages = build_input(fmt, self.prompt_path, self.document.text, ask, region, history or None)
                result = await self._stream_once(system_prompt(fmt), messages)
                total_tokens += result.tokens
                first_ttft = first_ttft if first_ttft is not None else result.ttft_s
                if result.tokens_per_s:
                    rates.append(result.tokens_per_s)
                stopped = self._stopped(turn)
                if result.status == "nothing" and not result.already_applied and not stopped \
                        and not asks_for_nothing(instruction):
                    # An answer that changes nothing is a failed attempt, not "nothing to change":
                    # one retry that says so, then the turn reports it as a refusal.
                    if attempt > retries or no_change_retried:
                        result = TurnResult("refused", NO_CHANGE, raw_text=result.raw_text, no_change=True)
                        break
                    no_change_retried = True
                    self._notice("warning", NoticeCode.RETRY_NO_CHANGE, "the model's answer changed nothing; asking it again")
                    next_ask = no_change_instruction(fmt, instruction)
                elif result.status != "refused" or attempt > retries or stopped:
                    break
                else:
                    self._notice("warning", NoticeCode.RETRY_REFUSED,
                                 f"edit refused ({result.reason}); asking the model to fix it")
                    next_ask = self._feedback_instruction()
                history = history + [
                    instruction_message(fmt, ask, self.document.text, region),
                    {"role": "assistant", "content": result.raw_text},
                ]
                ask = next_ask
                self._discard_proposal(quiet=True)
            if result.no_change:
                self._notice("error", NoticeCode.NO_CHANGE, f"{NO_CHANGE}; the file is untouched")
            elif result.status == "refused":
                self._notice("error", NoticeCode.REFUSED, f"edit refused, nothing changed: {result.reason}")
            elif result.status == "nothing":
                self._notice("info", NoticeCode.NOTHING, f"nothing to change: {result.reason}")
        except asyncio.CancelledError:
            result = TurnResult("stopped", "cancelled")
            raise
        except SessionError as exc:
            result = TurnResult("error", exc.message, error_code=exc.code)
            self._notice("error", NoticeCode.ERROR, exc.message)
        finally:
            result.attempts = attempt
            result.tokens = total_tokens
            result.ttft_s = first_ttft
            result.tokens_per_s = rates[-1] if rates else None
            result.hunks = self.live.hunk_count
            self.last_result = result
            self._stream = None
            if self.state is GENERATING:
                self._set_state(REVIEW if self.has_proposal else IDLE)
            elif self.state is INTERRUPTED and not self.has_proposal:
                self._set_state(IDLE)
            if self._pending_external:
                self._pending_external = False
                self.file_changed()
            self._emit(Stats(result.ttft_s, result.tokens, result.tokens_per_s, time.perf_counter() - self._t0, True))
            self._emit(TurnEnded(result))

    def _begin_attempt(self, region) -> None:
        from app.edits.proposal import ProposalBuilder

        self._answer = ProposalBuilder(self.live, region, self.instruction, self.path)
        self._feedback = ""
        self._ttft = None
        self._tokens = 0
        self._t0 = time.perf_counter()
        self._stats_at = self._t0

    async def _stream_once(self, instructions: str, messages: list[dict]) -> TurnResult:
        from app.edits.judge import truncated_feedback
        from app.transport import events as E

        turn = asyncio.current_task()
        try:
            stream = await self.client.create(
                model=self.model,
                instructions=instructions,
                input=messages,
                stream_id=self.stream_id,
                max_output_tokens=self.settings.max_output_tokens,
                temperature=self.settings.temperature,
            )
        except Exception as exc:
            self._set_connection("lost", str(exc))
            raise SessionError(getattr(exc, "code", "backend_unreachable"), f"request failed: {exc}") from exc
        self._stream = stream
        if self._stopped(turn):  # stopped while the request was being sent
            await _cancel_quietly(stream)
            return TurnResult("stopped", "stopped by the user")
        # Deltas the client has already buffered come without a suspension: at an unlimited
        # rate a whole answer is one burst. Let the loop run (Esc, redraws) every so often.
        burst, burst_t0 = 0, time.perf_counter()
        async for ev in stream:
            if self.state is not GENERATING or self._turn_task is not turn:
                break
            if isinstance(ev, E.TextDelta):
                self._on_delta(ev.delta)
                if self._answer.noop_blocks >= _MAX_NOOP_BLOCKS:
                    return await self._give_up_degenerate(stream)
                burst += 1
                if burst >= _BURST_DELTAS or time.perf_counter() - burst_t0 >= _BURST_S:
                    await asyncio.sleep(0)
                    burst, burst_t0 = 0, time.perf_counter()
                    if self._stopped(turn):  # Esc ran during the yield
                        break
            elif isinstance(ev, E.Incomplete) and ev.reason == "steered":
                # The successor's output replaces this answer: start the proposal over.
                self._restart_after_steer()
            elif isinstance(ev, E.Created):
                if self.connection != "ready":
                    self._set_connection("ready", getattr(self.client, "url", ""))
            elif isinstance(ev, E.Completed):
                break
            elif isinstance(ev, E.Incomplete):
                if ev.reason == "cancelled":
                    return self._conclude(TurnResult("stopped", "cancelled"))
                # Cut off (max_output_tokens, ...): a partial answer never applies.
                self._answer.truncate()
                self._proposal_changed()
                self._feedback = truncated_feedback(ev.reason)
                return self._conclude(TurnResult("refused", f"the answer was cut off ({ev.reason})"))
            elif isinstance(ev, (E.Failed, E.Error)):
                raise SessionError(ev.code or "backend_error", ev.message or ev.code)
            elif isinstance(ev, E.Disconnected):
                self._set_connection("lost", ev.message)
                self._interrupt()
                return self._conclude(TurnResult("stopped", f"connection lost: {ev.message}"))
            elif isinstance(ev, E.Notice):
                self._notice("info", NoticeCode.SERVER, ev.message)
            elif isinstance(ev, E.SteerFailed):
                self._notice("warning", NoticeCode.REDIRECT_FAILED, f"redirect failed: {ev.message or ev.code}")
        if self._stopped(turn):
            return self._conclude(TurnResult("stopped", "stopped by the user"))
        self._answer.finish()
        self._proposal_changed()
        return self._conclude(self._judge())

    async def _give_up_degenerate(self, stream) -> TurnResult:
        """The answer repeats blocks that change nothing (a small model's loop): stop paying for it."""
        from app.edits.judge import DEGENERATE_FEEDBACK, DEGENERATE_REASON

        await _cancel_quietly(stream)
        self._answer.drop_partial()
        self.live.clear()
        self._proposal_changed()
        self._feedback = DEGENERATE_FEEDBACK
        return self._conclude(TurnResult("refused", DEGENERATE_REASON))

    def _conclude(self, result: TurnResult) -> TurnResult:
        stats = getattr(self._stream, "stats", None)
        ttft = getattr(stats, "ttft_s", None) if stats is not None else None
        rate = getattr(stats, "deltas_per_s", None) if stats is not None else None
        usage = getattr(stats, "usage", None) or {}
        result.ttft_s = ttft if ttft is not None else self._ttft
        result.tokens = int(usage.get("output_tokens") or self._tokens)
        result.draft_accepted = int((usage.get("output_tokens_details") or {}).get("accepted_prediction_tokens") or 0)
        elapsed = time.perf_counter() - (self._t0 + (result.ttft_s or 0))
        result.tokens_per_s = rate if rate else (self._tokens / elapsed if elapsed > 0 and self._tokens > 1 else None)
        result.raw_text = self.raw_text
        result.hunks = self.live.hunk_count
        return result

    # ------------------------------------------------------------ per delta (hot path)

    def _on_delta(self, delta: str) -> None:
        if not delta:
            return
        now = time.perf_counter()
        if self._ttft is None:
            self._ttft = now - self._t0
        self._tokens += 1
        v = self.live.version
        self._answer.feed(delta)
        if self.live.version != v:
            self._proposal_changed()
        if now - self._stats_at >= _STATS_EVERY_S:
            self._stats_at = now
            span = now - self._t0 - self._ttft
            rate = (self._tokens - 1) / span if span > 0 and self._tokens > 1 else None
            self._emit(Stats(self._ttft, self._tokens, rate, now - self._t0))

    def _restart_after_steer(self) -> None:
        self._answer.restart()
        self._proposal_changed()

    # ------------------------------------------------------------ the verdict

    def _judge(self):
        """The answer is complete: the applier's verdict (app.edits.judge), then the syntax check."""
        version = self.live.version
        verdict = self._answer.judge(self.document.text)
        if verdict.status != "proposal":
            self._feedback = verdict.feedback
            self._proposal_changed()
            return TurnResult(verdict.status, verdict.reason, already_applied=verdict.already_applied)
        if self.live.version != version:  # the applier and the live diff disagreed: rebuilt from the applier
            self._proposal_changed()
        return self._syntax_verdict(verdict.new_text) or TurnResult("proposal")

    @property
    def syntax_problem(self):
        """The pending proposal breaks a Python file that parsed (app.edits.syntax.SyntaxProblem, its hunk
        indexing `proposal`), else None. Computed once per proposal version, never while streaming."""
        if self.state is GENERATING or not self.has_proposal:
            return None
        return self._checked_syntax()

    def _checked_syntax(self, new_text: str | None = None):
        """app.edits.syntax.check of the live proposal (whose text is `new_text` when the caller
        has it), kept per proposal version: _judge's check is the one review reads."""
        key = (self.live.version, self.document.digest)
        if self._syntax_key != key:
            from app.edits.syntax import check

            if new_text is None:
                new_text = self._proposed_text()
            self._syntax_key, self._syntax = key, check(self.document.path, self.document.text, new_text,
                                                        self._pending_hunks())
        return self._syntax

    def _syntax_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal (`new_text`) breaks the file's Python syntax: flag it for review, or,
        in `edit()` (nothing reviews it), refuse it with feedback: a failed attempt. None if it parses."""
        from app.edits.judge import syntax_feedback

        problem = self._checked_syntax(new_text)
        if problem is None:
            return None
        if not self._refuse_broken_syntax:
            self._notice("warning", NoticeCode.SYNTAX, f"{problem.describe()}; review it before accepting")
            return None
        self._feedback = syntax_feedback(problem, new_text)
        self.live.clear()
        self._proposal_changed()
        return TurnResult("refused", problem.describe())

    def _feedback_instruction(self) -> str:
        """What the retry after a refusal tells the model."""
        return self._feedback or self._answer.feedback()

    # ------------------------------------------------------------ review

    def _can_accept(self) -> bool:
        if self.state is GENERATING:
            self._notice("warning", NoticeCode.BUSY, "still generating: stop first (Esc)")
            return False
        if self.conflict:
            self._notice("error", NoticeCode.CONFLICT, f"cannot accept: {self.conflict}")
            return False
        if not self.has_proposal:
            self._notice("info", NoticeCode.NOTHING_TO_ACCEPT, "nothing to accept")
            return False
        return True

    def accept_all(self) -> bool:
        """Write every pending hunk to the file (atomically, through Document)."""
        if not self._can_accept():
            return False
        if not self._write("accept", self._proposed_text(), self.live.hunk_count):
            return False
        self._rebase_to_document([])
        self._set_state(IDLE)
        return True

    def accept_hunk(self, i: int) -> bool:
        if not self._can_accept():
            return False
        hunks = self.live.hunks()
        if not 0 <= i < len(hunks):
            return False
        h = hunks[i]
        lines = self.live.lines
        new_lines = lines[: h.start] + list(h.new) + lines[h.end :]
        shift = len(h.new) - (h.end - h.start)
        rest = [(x.start + (shift if x.start >= h.end else 0), x.end + (shift if x.start >= h.end else 0), list(x.new))
                for x in hunks if x.index != i]
        if not self._write("accept_hunk", join_lines(new_lines, self._final_nl), 1):
            return False
        self._rebase_to_document(rest)
        self._set_state(self.state if rest else IDLE)
        return True

    def reject_hunk(self, i: int) -> bool:
        if self.state is GENERATING or not 0 <= i < self.live.hunk_count:
            return False
        self.live.remove_index(i)
        self._proposal_changed()
        if not self.has_proposal:
            self.conflict = None
            self._set_state(IDLE)
        return True

    def reject_all(self) -> bool:
        if self.state is GENERATING:
            return False
        self._discard_proposal()
        self._set_state(IDLE)
        return True

    def _discard_proposal(self, quiet: bool = False) -> None:
        self.live.clear()
        if self._answer is not None:
            self._answer.blocks = {}
        self.conflict = None
        if not quiet:
            self._proposal_changed()

    # ------------------------------------------------------------ writing, undo

    def _write(self, action: str, new_text: str, hunks: int) -> bool:
        from app.files import DocumentError, FileChangedError

        before = self.document.text
        try:
            self.document.write(new_text)
        except DocumentError as exc:
            self._notice("error", NoticeCode.WRITE_FAILED, f"not written: {exc}")
            if isinstance(exc, FileChangedError):
                self.file_changed()
            return False
        if action in ("accept", "accept_hunk"):
            self.journal.record(action, before, new_text)
        self._emit(Applied(action, unified_diff(self.path, before, new_text), hunks))
        return True

    def undo(self) -> bool:
        entry = self.journal.undo_entry
        if self.state is GENERATING or entry is None:
            return False
        if self.document.text != entry.after:
            self._notice("error", NoticeCode.JOURNAL_STALE, "cannot undo: the file changed since that edit")
            return False
        pending = self._pending_hunks()
        if not self._write("undo", entry.before, 1):
            return False
        self.journal.undone()
        self._rebase(entry.after, pending)
        return True

    def redo(self) -> bool:
        entry = self.journal.redo_entry
        if self.state is GENERATING or entry is None:
            return False
        if self.document.text != entry.before:
            self._notice("error", NoticeCode.JOURNAL_STALE, "cannot redo: the file changed since")
            return False
        pending = self._pending_hunks()
        if not self._write("redo", entry.after, 1):
            return False
        self.journal.redone()
        self._rebase(entry.before, pending)
        return True

    # ------------------------------------------------------------ the file changed

    def file_changed(self) -> bool:
        """The file may have changed on disk (watchfiles). Returns True if it really did.

        Our own writes leave the disk equal to the Document, so they are ignored. A pending
        proposal is re-located against the new text, or marked as a conflict that blocks accept.
        """
        from app.files import Document, DocumentError

        new = getattr(self.document, "is_new", False)
        if new and not os.path.lexists(self.document.path):
            return False  # a new file not written yet: nothing on disk is expected
        if not os.path.exists(self.document.path):
            if self.has_proposal:
                self.conflict = "the file was deleted on disk"
            self._notice("error", NoticeCode.FILE_DELETED, "the file was deleted on disk")
            return True
        try:
            fresh = Document.read(self.document.path)
        except DocumentError as exc:
            self._notice("error", NoticeCode.FILE_UNREADABLE, f"cannot read the changed file: {exc}")
            return True
        if fresh.digest == self.document.digest and not new:
            return False
        if self.state is GENERATING:
            # Re-locating while blocks stream in would move them under the parser: do it at the end.
            self._pending_external = True
            self._notice("warning", NoticeCode.FILE_CHANGED,
                         "the file changed on disk; the proposal will be re-located when the answer ends")
            return True
        old_text = self.document.text
        pending = self._pending_hunks()
        try:
            # Update in place: the UI holds this very Document.
            self.document.reload()
        except DocumentError as exc:
            self._notice("error", NoticeCode.FILE_UNREADABLE, f"cannot read the changed file: {exc}")
            return True
        self._rebase(old_text, pending)
        return True

    def _pending_hunks(self) -> list[tuple[int, int, list[str]]]:
        return [(h.start, h.end, list(h.new)) for h in self.live.hunks()]

    def _rebase_to_document(self, hunks) -> None:
        lines, self._final_nl = document_lines(self.document.text)
        self.live.reset(lines, hunks)
        self._proposal_changed()
        self.prewarm()

    def _rebase(self, old_text: str, pending: list[tuple[int, int, list[str]]]) -> None:
        """The document's text changed from old_text: carry the pending hunks over, or conflict."""
        new_lines, self._final_nl = document_lines(self.document.text)
        moved = carry_over(document_lines(old_text)[0], new_lines, pending)
        try:
            if moved is None:
                raise ValueError("a hunk no longer fits")
            self.live.reset(new_lines, moved)
            if pending:
                self._notice("info", NoticeCode.RELOCATED, "the file changed; the proposal was re-located")
            self.conflict = None
        except ValueError:  # a hunk lost, or two that now overlap
            self.live.reset(new_lines, [])
            self.conflict = "the file changed on disk and the proposal no longer fits it"
            self._notice("error", NoticeCode.CONFLICT, self.conflict + " (reject it or ask again)")
        self._proposal_changed()
        self.prewarm()  # the file the model saw changed: cache the new one


async def _cancel_quietly(stream) -> None:
    try:
        await stream.cancel()
    except Exception:
        pass


async def _ended(task: asyncio.Task | None) -> None:
    """Wait for `task` to end without cancelling it; its own cancellation is not an error here."""
    if task is None:
        return
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
