"""The pair-programming state machine shared by the TUI and `steer edit` (no Textual here).

One Session edits one Document. It connects to a backend (H2's launcher and client),
prewarms the model's cache with the file, streams a turn through H1's StreamParser,
locates every block as soon as its SEARCH part is complete and keeps the LiveDiff the
view draws. Stop, redirect, review (all or per hunk), accept through Document, an undo
journal and external file changes all go through here. Everything the UI shows comes
out as events to one callback, called on the event loop's thread.

Per delta the work is O(delta): parser.feed, LiveDiff.update of one hunk, one callback.
Anything O(file) (locate, accept, re-locate) happens once per block or per user action.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from app.config import Settings
from app.edits.livediff import LiveDiff

# States a session can be in.
IDLE = "idle"  # no proposal
CONNECTING = "connecting"  # start() before the backend answered
GENERATING = "generating"  # a turn is streaming
INTERRUPTED = "interrupted"  # the user stopped a turn; what was complete is the proposal
REVIEW = "review"  # a finished turn left a proposal to accept or reject

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
NO_CHANGE = "the model made no change"  # the reason of a turn whose answers changed nothing
# Instructions that may rightly end in no change ("fix it if needed"): their no-change answer is
# "nothing to change", not a failed attempt.
_MAY_ASK_FOR_NOTHING = re.compile(
    r"\b(if (it is |it's )?(needed|necessary|required|any)|where (needed|necessary)|only if|if there (is|are)|"
    r"(leave|keep) (it|them|everything|the \w+) (as it is|as is|unchanged|alone)|no changes?\b|do nothing|"
    r"check (whether|if))", re.I)


def asks_for_nothing(instruction: str) -> bool:
    """The instruction allows leaving the code as it is (an answer changing nothing is then an answer)."""
    return bool(_MAY_ASK_FOR_NOTHING.search(instruction or ""))


# ---------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class StateChanged:
    state: str
    previous: str


@dataclass(frozen=True, slots=True)
class ProposalUpdated:
    """The live diff changed: redraw `live.changed_since(last drawn version)`."""

    version: int
    hunks: int
    cursor_row: int | None  # the row being written (follow it unless the user scrolled away)


@dataclass(frozen=True, slots=True)
class Stats:
    ttft_s: float | None
    tokens: int
    tokens_per_s: float | None
    elapsed_s: float
    final: bool = False


@dataclass(frozen=True, slots=True)
class Notice:
    level: str  # info | warning | error
    text: str


@dataclass(frozen=True, slots=True)
class ConnectionChanged:
    state: str  # connecting | loading | ready | lost | closed | error
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Applied:
    """The file on disk was written by us: accept, accept_hunk, undo or redo."""

    action: str  # accept | accept_hunk | undo | redo
    diff: str  # unified diff of what was written
    hunks: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """A turn (with its retries) is over; `result` says how."""

    result: "TurnResult"


Event = StateChanged | ProposalUpdated | Stats | Notice | ConnectionChanged | Applied | TurnEnded


# ---------------------------------------------------------------------------- data


@dataclass
class BlockState:
    """One block of the model's answer, as the session tracks it."""

    index: int
    kind: str = ""
    status: str = "streaming"  # streaming | located | complete | failed | already_applied | unchanged | dropped
    start: int | None = None  # located old line range (0-based, end exclusive)
    end: int | None = None
    reason: str = ""
    feedback: str = ""
    search: str = ""
    hunk_key: Any = None


@dataclass
class TurnResult:
    """How a turn ended, with what `steer edit --json` reports."""

    status: str  # proposal | nothing | refused | stopped | error
    reason: str = ""
    attempts: int = 0
    ttft_s: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    error_code: str = ""
    hunks: int = 0
    already_applied: bool = False
    raw_text: str = ""
    no_change: bool = False  # refused because the model's answer (retried once) changed nothing
    draft_accepted: int = 0  # output tokens that came from accepted speculative drafts (local engine)


class SessionError(Exception):
    """A backend or usage error the caller should show (code like `backend_unreachable`)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def split_lines(text: str) -> tuple[list[str], bool]:
    """Document text ("\\n" newlines) -> lines without newlines, and whether it ended with one
    (an empty file counts as ending with one: what is written into it gets a final newline)."""
    if not text:
        return [], True
    lines = text.split("\n")
    final = lines[-1] == ""
    if final:
        lines.pop()
    return lines, final


def join_lines(lines: list[str], final_newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def unified_diff(path: str, old: str, new: str) -> str:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


# ---------------------------------------------------------------------------- backend


async def open_backend(settings: Settings, on_status: Callable[[str, str], None] | None = None):
    """A connected ResponsesClient for `settings.backend` (H2's resolve_backend/open_backend).

    `local` (the default) starts the embedded engine in a `steer serve` child that the client
    owns and stops on close. Every failure becomes a SessionError with a user-facing message.
    """
    from app.transport.backends import BackendError, open_backend as _open, resolve_backend
    from app.transport.launcher import GatewayStartError

    status = on_status or (lambda state, detail="": None)
    try:
        spec = resolve_backend(settings)
    except BackendError as exc:
        raise SessionError("backend_config", str(exc)) from exc
    if spec.kind == "spawn":
        status("loading", f"starting {spec}")
    try:
        return await _open(spec)
    except GatewayStartError as exc:
        raise SessionError("backend_unavailable", f"{spec} did not start: {exc}") from exc
    except (OSError, asyncio.TimeoutError) as exc:
        raise SessionError("backend_unreachable", f"cannot reach {spec}: {exc}") from exc
    except Exception as exc:
        if type(exc).__name__ in ("ConnectError", "TransportError", "InvalidStatus", "InvalidHandshake"):
            raise SessionError("backend_unreachable", f"cannot reach {spec}: {exc}") from exc
        raise


# ---------------------------------------------------------------------------- session


class Session:
    """The state machine. Create it, `await start()`, then `send`/`stop`/`redirect`/accept...

    `client`: an already connected ResponsesClient (tests, or a UI that owns it); without one
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
        client=None,
        edit_format: str | None = None,
        model: str | None = None,
    ):
        self.document = document
        self.settings = settings or Settings()
        self.on_event = on_event or (lambda ev: None)
        self.client = client
        self._owns_client = client is None
        self._backend = None  # whatever open_backend returned that must be closed
        # A local GGUF path is the engine's business, not a per-request model name.
        self.model = model or (self.settings.model if self.settings.backend != "local" else None)
        self.edit_format = edit_format or self.settings.edit_format
        self.state = IDLE
        self.connection = "closed"
        self.stream_id = "s-" + uuid.uuid4().hex[:12]
        lines, self._final_nl = split_lines(document.text)
        self.live = LiveDiff(lines)
        self.blocks: dict[int, BlockState] = {}
        self.conflict: str | None = None  # why accept is blocked (the file changed under the proposal)
        self.instruction: str | None = None
        self.region: tuple[int, int] | None = None
        self.last_result: TurnResult | None = None
        self._undo: list[tuple[str, str, str]] = []  # (action, before, after)
        self._redo: list[tuple[str, str, str]] = []
        self._chunks: list[str] = []
        self._parser = None
        self._stream = None
        self._turn_task: asyncio.Task | None = None
        self._prewarm_task: asyncio.Task | None = None
        self._warm: tuple[str, tuple[int, int] | None] | None = None  # (text, region) last prewarmed
        self._warm_typed = ""  # the instruction's words that followed the region in it (typing_prewarm.py)
        self._stopped = False
        self._stats_at = 0.0
        self._t0 = 0.0
        self._ttft: float | None = None
        self._tokens = 0
        self._pending_external = False
        self._feedback = ""
        self._noop_blocks = 0
        self._region_base: tuple[int, int] | None = None

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
        if len(self._chunks) > 1:
            self._chunks[:] = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    @property
    def proposal(self) -> list:
        """The pending hunks (app.edits.livediff.HunkInfo), in file order."""
        return self.live.hunks()

    @property
    def has_proposal(self) -> bool:
        return self.live.hunk_count > 0

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

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
        new = join_lines(self.live.new_lines(), self._final_nl)
        return unified_diff(self.path, self.document.text, new)

    # ------------------------------------------------------------ events

    def _emit(self, ev) -> None:
        try:
            self.on_event(ev)
        except Exception as exc:  # a broken listener must not kill the stream
            import logging

            logging.getLogger(__name__).exception("session listener failed: %s", exc)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            prev, self.state = self.state, state
            self._emit(StateChanged(state, prev))

    def _set_connection(self, state: str, detail: str = "") -> None:
        self.connection = state
        self._emit(ConnectionChanged(state, detail))

    def _notice(self, level: str, text: str) -> None:
        self._emit(Notice(level, text))

    def _proposal_changed(self) -> None:
        self._emit(ProposalUpdated(self.live.version, self.live.hunk_count, self.live.cursor_row))

    # ------------------------------------------------------------ connection

    async def start(self, *, prewarm: bool = True) -> None:
        """Connect (opening the configured backend if no client was given) and prewarm the file."""
        if self.client is None:
            self._set_connection("connecting", self.settings.backend)
            try:
                self.client = await open_backend(self.settings, self._backend_status)
            except SessionError as exc:
                self._set_connection("error", exc.message)
                raise
            except Exception as exc:
                self._set_connection("error", str(exc))
                raise SessionError(getattr(exc, "code", "backend_unreachable"), str(exc)) from exc
        self._set_connection("ready", getattr(self.client, "url", ""))
        if prewarm:
            self.prewarm()

    def _backend_status(self, state: str, detail: str = "") -> None:
        self._set_connection(state, detail)

    def prewarm(self, region: tuple[int, int] | None = None, typed: str = "", complete: bool = False) -> None:
        """Ask the engine to evaluate system prompt + file now (in the background).

        With `region` (rewrite format only: its turn message opens with the region block) the
        block is evaluated too, so after Enter only the instruction is left to evaluate; and
        `typed`, the instruction's words typed so far (`complete`: as the whole instruction).
        """
        if self.client is None:
            return
        if self.format != "rewrite":
            region = None
        if self._prewarm_task and not self._prewarm_task.done():
            self._prewarm_task.cancel()  # superseded: the client cancels it on the server too
        self._warm = (self.document.text, region)
        self._warm_typed = typed if region is not None else ""
        self._prewarm_task = asyncio.ensure_future(self._prewarm(region, typed, complete))

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
        if self.format != "rewrite" or self.state != IDLE or self._warm == (self.document.text, region):
            return
        self.prewarm(region)

    async def _prewarm(self, region: tuple[int, int] | None = None, typed: str = "", complete: bool = False) -> None:
        from app.prompts import prewarm_input, system_prompt

        fmt = self.format
        try:
            await self.client.prewarm(
                model=self.model,
                instructions=system_prompt(fmt),
                input=prewarm_input(fmt, self.prompt_path, self.document.text, region, typed, complete),
                stream_id=self.stream_id,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # prewarm is an optimisation: say so, never fail the session
            self._notice("warning", f"prewarm failed: {exc}")

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
        if self.state == GENERATING:
            await self.redirect(instruction)
            return
        if self.has_proposal:
            self._discard_proposal()
        if self.format == "rewrite" and region is None:
            # Not the whole file: rewriting it is slow on a CPU and defeats the prewarm. The
            # definitions the instruction names, else the whole file (H3's rewrite_region).
            from app.prompts import rewrite_region

            region = rewrite_region(self.document.text, instruction)
        from app.typing_prewarm import leads

        warming = self._prewarm_task
        if warming and not warming.done() and self._warm is not None and (
                self._warm[1] not in (None, region) or not leads(self._warm_typed, instruction)):
            warming.cancel()  # a block (or words) this turn does not use: the turn must not queue behind it
        self.instruction = instruction
        self.region = region
        self.last_result = None
        self._stopped = False
        self._turn_task = asyncio.ensure_future(self._turn(instruction, region, retries))
        # Let the task send its request before returning, so `stop()` right after works.
        self._set_state(GENERATING)
        await asyncio.sleep(0)

    async def wait(self) -> TurnResult:
        """Wait for the current turn (with its retries) to end."""
        if self._turn_task is not None:
            try:
                await asyncio.shield(self._turn_task)
            except asyncio.CancelledError:
                if self._turn_task.cancelled():
                    pass
                else:
                    raise
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
        if self.state != GENERATING:
            return None
        self._stopped = True  # from here on no delta reaches the live diff
        self._drop_partial(keep_closed=True)
        # Nothing left to review: idle, not "interrupted" over an empty proposal.
        self._set_state(INTERRUPTED if self.has_proposal else IDLE)
        self._proposal_changed()
        stream = self._stream
        return self._cancel_quietly(stream) if stream is not None else None

    @staticmethod
    async def _cancel_quietly(stream) -> None:
        try:
            await stream.cancel()
        except Exception:
            pass

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
        if self.state != GENERATING:
            await self.send(words, self.region)
            return
        words = words.strip()
        first, said = self._redirect_history()
        said = said + [words]
        self._notice("info", f"redirected: {' '.join(words.split())} (the answer starts over)")
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
            self._notice("error", f"redirect failed: {exc}")

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
        is awaited, and no later delta of it reaches the diff.
        """
        from app.prompts import redirect_instruction, redirect_region

        stream, listener = self._stream, self.on_event
        region = redirect_region(self.document.text, self.region, said[-1:])
        combined = redirect_instruction(first, said) if first else "\n".join(said)
        self._stopped = True
        self._discard_proposal()

        def quiet(ev) -> None:
            if not isinstance(ev, (StateChanged, Stats, TurnEnded)):
                listener(ev)

        self.on_event = quiet
        try:
            if stream is not None:
                await self._cancel_quietly(stream)
            await self.wait()
        finally:
            if self.on_event is quiet:
                self.on_event = listener
        await self.send(combined, region)
        self._redirected = (self._turn_task, first, said)

    async def _turn(self, instruction: str, region: tuple[int, int] | None, retries: int) -> None:
        from app.prompts import build_input, instruction_message, system_prompt

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
                result = await self._stream_once(fmt, system_prompt(fmt), messages, region)
                total_tokens += result.tokens
                first_ttft = first_ttft if first_ttft is not None else result.ttft_s
                if result.tokens_per_s:
                    rates.append(result.tokens_per_s)
                if result.status == "nothing" and not result.already_applied and not self._stopped \
                        and not asks_for_nothing(instruction):
                    # An answer that changes nothing is a failed attempt, not "nothing to change":
                    # one retry that says so, then the turn reports it as a refusal.
                    if attempt > retries or no_change_retried:
                        result = TurnResult("refused", NO_CHANGE, raw_text=result.raw_text, no_change=True)
                        break
                    no_change_retried = True
                    self._notice("warning", "the model's answer changed nothing; asking it again")
                    history = history + [
                        instruction_message(fmt, ask, self.document.text, region),
                        {"role": "assistant", "content": result.raw_text},
                    ]
                    ask = self._no_change_instruction(fmt, instruction)
                    self._discard_proposal(quiet=True)
                    continue
                if result.status != "refused" or attempt > retries or self._stopped:
                    break
                self._notice("warning", f"edit refused ({result.reason}); asking the model to fix it")
                history = history + [
                    instruction_message(fmt, ask, self.document.text, region),
                    {"role": "assistant", "content": result.raw_text},
                ]
                ask = self._feedback_instruction()
                self._discard_proposal(quiet=True)
            if result.no_change:
                self._notice("error", f"{NO_CHANGE}; the file is untouched")
            elif result.status == "refused":
                self._notice("error", f"edit refused, nothing changed: {result.reason}")
            elif result.status == "nothing":
                self._notice("info", f"nothing to change: {result.reason}")
        except asyncio.CancelledError:
            result = TurnResult("stopped", "cancelled")
            raise
        except SessionError as exc:
            result = TurnResult("error", exc.message, error_code=exc.code)
            self._notice("error", exc.message)
        finally:
            result.attempts = attempt
            result.tokens = total_tokens
            result.ttft_s = first_ttft
            result.tokens_per_s = rates[-1] if rates else None
            result.hunks = self.live.hunk_count
            self.last_result = result
            self._stream = None
            if self.state == GENERATING:
                self._set_state(REVIEW if self.has_proposal else IDLE)
            elif self.state == INTERRUPTED and not self.has_proposal:
                self._set_state(IDLE)
            if self._pending_external:
                self._pending_external = False
                self.file_changed()
            self._emit(Stats(result.ttft_s, result.tokens, result.tokens_per_s, time.perf_counter() - self._t0, True))
            self._emit(TurnEnded(result))

    def _begin_attempt(self, region) -> None:
        from app.edits.parse import StreamParser

        region_text = None
        if region is not None:
            region_text = _region_text(self.live.lines, region)
        self._parser = StreamParser(region_text, region[0]) if region_text is not None else StreamParser()
        self._region_base = region
        self._chunks = []
        self.blocks = {}
        self._noop_blocks = 0
        self._ttft = None
        self._tokens = 0
        self._t0 = time.perf_counter()
        self._stats_at = self._t0

    async def _stream_once(self, fmt: str, instructions: str, messages: list[dict], region) -> TurnResult:
        from app.transport import events as E

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
        if self._stopped:  # stopped while the request was being sent
            try:
                await stream.cancel()
            except Exception:
                pass
            return TurnResult("stopped", "stopped by the user")
        # Deltas the client has already buffered come without a suspension: at an unlimited
        # rate a whole answer is one burst. Let the loop run (Esc, redraws) every so often.
        burst, burst_t0 = 0, time.perf_counter()
        async for ev in stream:
            if self._stopped:
                break
            if isinstance(ev, E.TextDelta):
                self._on_delta(ev.delta)
                if self._noop_blocks >= _MAX_NOOP_BLOCKS:
                    return await self._give_up_degenerate(stream)
                burst += 1
                if burst >= _BURST_DELTAS or time.perf_counter() - burst_t0 >= _BURST_S:
                    await asyncio.sleep(0)
                    burst, burst_t0 = 0, time.perf_counter()
                    if self._stopped:  # Esc ran during the yield
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
                self._parser.finish(truncated=True)
                self._drop_partial()
                self.live.clear()
                self._proposal_changed()
                self._feedback = (f"Your answer was cut off ({ev.reason}) before it ended, so nothing was changed. "
                                  "Reply again with a shorter edit: only the lines that change, with a little context.")
                return self._conclude(TurnResult("refused", f"the answer was cut off ({ev.reason})"))
            elif isinstance(ev, (E.Failed, E.Error)):
                raise SessionError(ev.code or "backend_error", ev.message or ev.code)
            elif isinstance(ev, E.Disconnected):
                self._set_connection("lost", ev.message)
                self._stopped = True
                self._drop_partial(keep_closed=True)
                self._set_state(INTERRUPTED if self.has_proposal else IDLE)
                self._proposal_changed()
                return self._conclude(TurnResult("stopped", f"connection lost: {ev.message}"))
            elif isinstance(ev, E.Notice):
                self._notice("info", ev.message)
            elif isinstance(ev, E.SteerFailed):
                self._notice("warning", f"redirect failed: {ev.message or ev.code}")
        if self._stopped:
            return self._conclude(TurnResult("stopped", "stopped by the user"))
        self._finish_parse()
        return self._conclude(self._judge())

    async def _give_up_degenerate(self, stream) -> TurnResult:
        """The answer repeats blocks that change nothing (a small model's loop): stop paying for it."""
        try:
            await stream.cancel()
        except Exception:
            pass
        self._drop_partial()
        self.live.clear()
        self._proposal_changed()
        self._feedback = ("Your answer repeated blocks whose SEARCH and REPLACE are identical, which change nothing, "
                          "so it was stopped and nothing was changed. Reply with only the block(s) that make the "
                          "requested change: SEARCH copies the current lines from the file, REPLACE has the new lines.")
        return self._conclude(TurnResult("refused", "the answer repeated blocks that change nothing"))

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
        self._chunks.append(delta)
        v = self.live.version
        for ev in self._parser.feed(delta):
            self._on_parse_event(ev)
        if self.live.version != v:
            self._proposal_changed()
        if now - self._stats_at >= _STATS_EVERY_S:
            self._stats_at = now
            span = now - self._t0 - self._ttft
            rate = (self._tokens - 1) / span if span > 0 and self._tokens > 1 else None
            self._emit(Stats(self._ttft, self._tokens, rate, now - self._t0))

    def _on_parse_event(self, ev) -> None:
        name = type(ev).__name__
        if name == "ReplaceDelta":
            b = self.blocks.get(ev.index)
            if b is not None and b.status == "located":
                self.live.append(b.hunk_key, ev.delta)
        elif name == "BlockStarted":
            self.blocks[ev.index] = BlockState(ev.index, ev.kind)
        elif name == "SearchComplete":
            self._on_search(ev.index, ev.search)
        elif name == "BlockComplete":
            self._on_block(ev.index, ev.block)
        elif name == "BlockDropped":
            b = self.blocks.get(ev.index)
            if b is not None:
                if b.status == "located":
                    self.live.remove(b.hunk_key)
                b.status, b.reason = "failed", ev.reason
                b.feedback = f"Block {ev.index + 1} was malformed: {ev.reason}."

    def _on_search(self, index: int, search: str) -> None:
        """SEARCH is final: locate it now so the view marks the target while REPLACE streams."""
        b = self.blocks.setdefault(index, BlockState(index))
        b.search = search
        where = self._locate_block(b, search, None)
        if where is None:
            return
        self._place(b, where[0], where[1], where[2])

    def _place(self, b: BlockState, start: int, end: int, transform=None) -> bool:
        key = ("b", b.index, start, end)
        try:
            # A rewrite restates its whole region: align it as it streams (unchanged lines stay context).
            self.live.add(key, start, end, transform, align=b.kind == "rewrite")
        except ValueError as exc:
            b.status, b.reason = "failed", f"it changes the same lines as another block ({exc})"
            b.feedback = f"Block {b.index + 1} changes the same lines as another block; merge them into one block."
            return False
        b.status, b.start, b.end, b.hunk_key = "located", start, end, key
        return True

    def _locate_block(self, b: BlockState, search: str, block) -> tuple | None:
        """(start, end, transform, location) for the block, or None with b marked failed."""
        from app.edits import locate as L

        if b.kind == "rewrite" and self._region_base is not None:
            start, end = self._region_base
            return start, end, None, None
        lines = self.live.lines
        try:
            if block is None:
                loc = L.locate(lines, L.split_lines(search))
            else:
                loc = L.locate(lines, L.split_lines(block.search), L.split_lines(block.replace),
                               anchor=block.anchor, at_eof=block.at_eof)
        except L.LocateError as exc:
            b.status = "failed"
            b.reason = exc.message or exc.reason
            # While streaming, no fuzzy "closest lines" search: the applier writes the feedback
            # at the end of the answer, and this runs between deltas.
            closest = exc.closest or ("" if block is None else _closest(lines, block.search))
            b.feedback = _feedback_for(b.index, b.reason, closest)
            return None
        return loc.start, loc.end, _adapter(loc), loc

    def _on_block(self, index: int, block) -> None:
        """The block is complete: place it for good with the locator's full answer."""
        from app.edits import locate as L

        b = self.blocks.setdefault(index, BlockState(index, getattr(block, "kind", "")))
        b.kind = b.kind or block.kind
        if block.search == block.replace:
            self._noop_blocks += 1
        streaming_key = b.hunk_key if b.status == "located" else None
        if getattr(block, "create", False):
            if streaming_key is not None:
                self.live.remove(streaming_key)
            b.status, b.reason = "failed", "it creates a new file; steer edits only the open file"
            b.feedback = f"Block {index + 1} creates a file. Edit only {self.path}."
            return
        b.status, b.reason, b.feedback = "streaming", "", ""
        found = self._locate_block(b, block.search, block)
        if found is None:
            if streaming_key is not None:
                self.live.remove(streaming_key)
            self._check_already_applied(b, block)
            return
        start, end, _, loc = found
        search, replace = L.split_lines(block.search), L.split_lines(block.replace)
        try:
            new = self._rewrite_lines(start, end, replace) if loc is None else loc.render(self.live.lines, search, replace)
        except (L.LocateError, ValueError) as exc:
            # A misquoted line the block changes, or a rewrite that drops code it cannot be
            # anchored around: refused, with the reason the applier gives.
            if streaming_key is not None:
                self.live.remove(streaming_key)
            b.status, b.reason = "failed", getattr(exc, "message", str(exc))
            b.feedback = f"Block {index + 1}: {getattr(exc, 'feedback', '') or b.reason + '.'}"
            return
        if streaming_key is not None and (b.start, b.end) != (start, end):
            # The full block located elsewhere than its SEARCH alone: move the hunk.
            self.live.remove(streaming_key)
            streaming_key = None
        if streaming_key is None:
            if not self._place(b, start, end):
                return
            streaming_key = b.hunk_key
        made = self.live.finish(streaming_key, "".join(x + "\n" for x in new))
        b.status = "complete" if made else "unchanged"

    def _rewrite_lines(self, start: int, end: int, replace: list[str]) -> list[str]:
        """The region's new lines as accept will write them: a rewrite that restates only part
        of the region is anchored to that part (app.edits.anchor); the rest stays. Raises
        PartialRewrite (a ValueError) when it drops code it cannot be anchored around."""
        from app.edits.anchor import anchor_rewrite, asks_to_delete
        from app.edits.locate import Location

        region = self.live.lines[start:end]
        a, b, lines, _kept = anchor_rewrite(region, replace, asks_to_delete(self.instruction))
        return region[:a] + Location(a, b, "region").render(region, region[a:b], lines) + region[b:]

    def _check_already_applied(self, b: BlockState, block) -> None:
        """Not found as written: if the replacement is already in the file, the edit was made."""
        from app.edits import locate as L

        replace = L.split_lines(block.replace)
        if not any(x.strip() for x in replace) or block.replace == block.search:
            return
        try:
            L.locate(self.live.lines, replace)
        except L.LocateError:
            return
        b.status, b.reason = "already_applied", "already applied"

    def _drop_partial(self, keep_closed: bool = False) -> None:
        """Drop the blocks that never completed (SEARCH located, REPLACE half-written).

        keep_closed (Esc, a lost connection): a half-written region rewrite keeps the changes
        the streaming alignment has already closed (anchored by matching lines on both
        sides); only its open piece goes. A half-written SEARCH/REPLACE block goes whole.
        """
        for b in self.blocks.values():
            if b.status == "located":
                kept = []
                try:
                    if keep_closed:
                        kept = self.live.settle(b.hunk_key)
                    else:
                        self.live.remove(b.hunk_key)
                except KeyError:
                    pass
                b.status = "partial" if kept else "dropped"

    def _finish_parse(self) -> None:
        if self._parser is None:
            return
        for ev in self._parser.finish():
            self._on_parse_event(ev)
        self._drop_partial()
        self._proposal_changed()

    def _restart_after_steer(self) -> None:
        self._drop_partial()
        self.live.clear()
        self._chunks = []
        self.blocks = {}
        from app.edits.parse import StreamParser

        region = self._region_base
        if region is not None:
            self._parser = StreamParser(_region_text(self.live.lines, region), region[0])
        else:
            self._parser = StreamParser()
        self._proposal_changed()

    def _judge(self) -> TurnResult:
        """The answer is complete: H1's all-or-nothing applier is the authority on what it does.

        The live diff was built block by block against the original text; apply_blocks applies
        them in order. If both agree (the usual case) the live diff stays as drawn; otherwise it
        is rebuilt once from the applier's result, so what is accepted is what `steer apply` does.
        """
        from app.edits.anchor import asks_to_delete
        from app.edits.apply import ApplyError, apply_blocks, raise_if_malformed, select_blocks

        result = self._parser.result() if self._parser is not None else None
        blocks = list(result.blocks) if result else []
        self._feedback = ""
        try:
            if result is not None:
                raise_if_malformed(result)
            mine, _others = select_blocks(blocks, self.path)
            applied = apply_blocks(self.document.text, mine, allow_deletion=asks_to_delete(self.instruction))
        except ApplyError as exc:
            self._feedback = exc.feedback
            self.live.clear()  # a response applies all or nothing
            self._proposal_changed()
            return TurnResult("refused", exc.message)
        new_text = applied.new_text
        if new_text == self.document.text:
            self.live.clear()
            self._proposal_changed()
            if applied.already_applied:
                return TurnResult("nothing", "already applied", already_applied=True)
            confused = self._identical_but_absent(mine)
            if confused is not None:
                # SEARCH == REPLACE and not in the file: the model wrote the new code twice.
                # That is a failed edit, not "nothing to change".
                i, first = confused
                self._feedback = (
                    f"Edit {i + 1} was not applied: its SEARCH and REPLACE are identical, and SEARCH is not in "
                    f"the file (`{first.strip()}` does not occur in it). SEARCH must copy the lines as they are in "
                    "the file now; REPLACE holds the new lines. Nothing was changed: resend every edit.")
                return TurnResult("refused", f"edit {i + 1} repeats new code in SEARCH that is not in the file")
            return TurnResult("nothing", "the edit changes nothing")
        if join_lines(self.live.new_lines(), self._final_nl) != new_text:
            self.live.reset(self.live.lines, _diff_hunks(self.live.lines, split_lines(new_text)[0]))
            self._proposal_changed()
        return self._syntax_verdict(new_text) or TurnResult("proposal")

    @property
    def syntax_problem(self):
        """The pending proposal breaks a Python file that parsed (app.edits.syntax.SyntaxProblem, its hunk
        indexing `proposal`), else None. Computed once per proposal version, never while streaming."""
        if self.state == GENERATING or not self.has_proposal:
            return None
        return self._checked_syntax()

    def _checked_syntax(self, new_text: str | None = None):
        """app.edits.syntax.check of the live proposal (whose text is `new_text` when the caller
        has it), kept per proposal version: _judge's check is the one review reads."""
        key = (self.live.version, self.document.digest)
        if self._syntax_key != key:
            from app.edits.syntax import check

            if new_text is None:
                new_text = join_lines(self.live.new_lines(), self._final_nl)
            hunks = [(h.start, h.end, list(h.new)) for h in self.live.hunks()]
            self._syntax_key, self._syntax = key, check(self.document.path, self.document.text, new_text, hunks)
        return self._syntax

    def _syntax_verdict(self, new_text: str) -> TurnResult | None:
        """The finished proposal (`new_text`) breaks the file's Python syntax: flag it for review, or,
        in `edit()` (nothing reviews it), refuse it with feedback: a failed attempt. None if it parses."""
        problem = self._checked_syntax(new_text)
        if problem is None:
            return None
        if not self._refuse_broken_syntax:
            self._notice("warning", f"{problem.describe()}; review it before accepting")
            return None
        lines = new_text.split("\n")
        at = (problem.line or 1) - 1
        shown = "\n".join(lines[max(0, at - 2): at + 3])
        self._feedback = (f"Your edit was not applied: {problem.describe()}. Around that line the file would read:\n"
                          f"```\n{shown}\n```\nNothing was changed. Reply again with the complete edit, "
                          "keeping the code valid Python (every line you were not asked to change exactly as it is).")
        self.live.clear()
        self._proposal_changed()
        return TurnResult("refused", problem.describe())

    def _identical_but_absent(self, blocks) -> tuple[int, str] | None:
        """(index, first line) of a block whose SEARCH == REPLACE and whose SEARCH is not in the file."""
        from app.edits import locate as L

        for pos, block in enumerate(blocks):
            if block.search != block.replace or not block.search.strip():
                continue
            search = L.split_lines(block.search)
            try:
                L.locate(self.live.lines, search)
            except L.LocateError:
                first = next((x for x in search if x.strip()), "")
                return (block.index if block.index is not None else pos), first
        return None

    @staticmethod
    def _no_change_instruction(fmt: str, instruction: str) -> str:
        if fmt == "rewrite":
            said = "Your answer is the region exactly as it was, so it changes nothing."
        else:
            said = "Your answer changes nothing: it leaves every line of the file as it is."
        return (f"{said} The request needs a change to the code: {instruction.strip()}\n"
                "Find what the request asks for and make that change now.")

    def _feedback_instruction(self) -> str:
        if getattr(self, "_feedback", ""):
            return self._feedback
        parts = ["Your edit could not be applied to the file, so nothing was changed."]
        for b in self.blocks.values():
            if b.status == "failed":
                parts.append(b.feedback or f"Block {b.index + 1}: {b.reason}.")
        parts.append("Reply again with the complete corrected edit (all blocks), copying SEARCH lines exactly from the file.")
        return "\n\n".join(parts)

    # ------------------------------------------------------------ review

    def _can_accept(self) -> bool:
        if self.state == GENERATING:
            self._notice("warning", "still generating: stop first (Esc)")
            return False
        if self.conflict:
            self._notice("error", f"cannot accept: {self.conflict}")
            return False
        if not self.has_proposal:
            self._notice("info", "nothing to accept")
            return False
        return True

    def accept_all(self) -> bool:
        """Write every pending hunk to the file (atomically, through Document)."""
        if not self._can_accept():
            return False
        new_text = join_lines(self.live.new_lines(), self._final_nl)
        n = self.live.hunk_count
        if not self._write("accept", new_text, n):
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
        if self.state == GENERATING or not 0 <= i < self.live.hunk_count:
            return False
        self.live.remove_index(i)
        self._proposal_changed()
        if not self.has_proposal:
            self.conflict = None
            self._set_state(IDLE)
        return True

    def reject_all(self) -> bool:
        if self.state == GENERATING:
            return False
        self._discard_proposal()
        self._set_state(IDLE)
        return True

    def _discard_proposal(self, quiet: bool = False) -> None:
        self.live.clear()
        self.blocks = {}
        self.conflict = None
        if not quiet:
            self._proposal_changed()

    # ------------------------------------------------------------ writing, undo

    def _write(self, action: str, new_text: str, hunks: int) -> bool:
        from app.files import DocumentError

        before = self.document.text
        try:
            self.document.write(new_text)
        except DocumentError as exc:
            self._notice("error", f"not written: {exc}")
            if type(exc).__name__ == "FileChangedError":
                self.file_changed()
            return False
        if action in ("accept", "accept_hunk"):
            self._undo.append((action, before, new_text))
            self._redo.clear()
        self._emit(Applied(action, unified_diff(self.path, before, new_text), hunks))
        return True

    def undo(self) -> bool:
        if self.state == GENERATING or not self._undo:
            return False
        action, before, after = self._undo[-1]
        if self.document.text != after:
            self._notice("error", "cannot undo: the file changed since that edit")
            return False
        pending = self._pending_hunks()
        if not self._write("undo", before, 1):
            return False
        self._redo.append(self._undo.pop())
        self._rebase(after, pending)
        return True

    def redo(self) -> bool:
        if self.state == GENERATING or not self._redo:
            return False
        action, before, after = self._redo[-1]
        if self.document.text != before:
            self._notice("error", "cannot redo: the file changed since")
            return False
        pending = self._pending_hunks()
        if not self._write("redo", after, 1):
            return False
        self._undo.append(self._redo.pop())
        self._rebase(before, pending)
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
            self._notice("error", "the file was deleted on disk")
            return True
        try:
            fresh = Document.read(self.document.path)
        except DocumentError as exc:
            self._notice("error", f"cannot read the changed file: {exc}")
            return True
        if fresh.digest == self.document.digest and not new:
            return False
        if self.state == GENERATING:
            # Re-locating while blocks stream in would move them under the parser: do it at the end.
            self._pending_external = True
            self._notice("warning", "the file changed on disk; the proposal will be re-located when the answer ends")
            return True
        old_text = self.document.text
        pending = self._pending_hunks()
        try:
            # Update in place: the UI holds this very Document.
            self.document.reload()
        except DocumentError as exc:
            self._notice("error", f"cannot read the changed file: {exc}")
            return True
        self._rebase(old_text, pending)
        return True

    def _pending_hunks(self) -> list[tuple[int, int, list[str]]]:
        return [(h.start, h.end, list(h.new)) for h in self.live.hunks()]

    def _rebase_to_document(self, hunks) -> None:
        lines, self._final_nl = split_lines(self.document.text)
        self.live.reset(lines, hunks)
        self._proposal_changed()
        self.prewarm()

    def _rebase(self, old_text: str, pending: list[tuple[int, int, list[str]]]) -> None:
        """The document's text changed from old_text: carry the pending hunks over, or conflict."""
        old_lines, _ = split_lines(old_text)
        new_lines, self._final_nl = split_lines(self.document.text)
        moved, lost = [], 0
        for start, end, new in pending:
            where = _relocate(old_lines, new_lines, start, end)
            if where is None:
                lost += 1
            else:
                moved.append((where[0], where[1], new))
        try:
            if lost:
                raise ValueError
            self.live.reset(new_lines, moved)
            if pending:
                self._notice("info", "the file changed; the proposal was re-located")
            self.conflict = None
        except ValueError:
            self.live.reset(new_lines, [])
            self.conflict = "the file changed on disk and the proposal no longer fits it"
            self._notice("error", self.conflict + " (reject it or ask again)")
        self._proposal_changed()
        self.prewarm()  # the file the model saw changed: cache the new one


# ---------------------------------------------------------------------------- helpers

_CONTEXT = 3


def _region_text(lines: list[str], region: tuple[int, int]) -> str:
    """The region's lines as the parser compares them ("" for an empty region: a new file)."""
    body = lines[region[0] : region[1]]
    return "\n".join(body) + "\n" if body else ""


def _relocate(old: list[str], new: list[str], start: int, end: int) -> tuple[int, int] | None:
    """Where old lines [start, end) are in `new`: found with up to 3 lines of context, uniquely."""
    for ctx in (_CONTEXT, 2, 1, 0):
        lo, hi = max(0, start - ctx), min(len(old), end + ctx)
        needle = old[lo:hi]
        if not needle:
            continue
        hits = _find_all(new, needle)
        if len(hits) == 1:
            s = hits[0] + (start - lo)
            return s, s + (end - start)
        if len(hits) > 1:
            return None  # ambiguous with less context too
    if start == end and not old:
        return 0, 0
    return None


def _diff_hunks(old: list[str], new: list[str]) -> list[tuple[int, int, list[str]]]:
    """Minimal hunks turning old into new (O(file): only when the applier and the live diff disagree)."""
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def _find_all(hay: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    first = needle[0]
    hits = []
    for i, line in enumerate(hay):
        if line == first and hay[i : i + n] == needle:
            hits.append(i)
            if len(hits) > 1:
                break
    return hits


_TOLERANT = ("whitespace", "unicode", "fuzzy", "blank_lines", "indent")


def _adapter(loc) -> Callable[[str], str] | None:
    """How streamed REPLACE lines are shown before the block completes: the locator's
    indentation shift (the final lines come from Location.render at BlockComplete)."""
    add, remove = getattr(loc, "indent_add", ""), getattr(loc, "indent_remove", "")
    rstrip = getattr(loc, "strategy", "exact") in _TOLERANT
    if not (add or remove or rstrip):
        return None

    def adapt(line: str) -> str:
        if rstrip:
            line = line.rstrip()
        if add and line.strip():
            return add + line
        if remove and line.startswith(remove):
            return line[len(remove):]
        return line

    return adapt


def _closest(lines: list[str], search: str) -> str:
    """The file lines most like SEARCH, with a little context, for refusal feedback."""
    from app.edits import locate as L

    try:
        got = L.closest_lines(lines, L.split_lines(search), context=2)
    except Exception:
        return ""
    if not got:
        return ""
    start, end, _ = got
    return "\n".join(lines[start:end])


def _feedback_for(index: int, reason: str, closest: str) -> str:
    text = f"Block {index + 1}: {reason}."
    if closest:
        text += f" The closest lines in the file are:\n```\n{closest}\n```"
    return text
