"""The pair-programming session shared by the TUI and `steer edit` (no Textual here): it orchestrates.

One Session edits one Document. It connects to a backend (steer_tui.backend) and prewarms the model's
cache with the file. `send` starts a turn (steer_tui.turn.Turn: its attempts, each answer's deltas fed
to an steer_tui.edits.proposal.ProposalBuilder that keeps the LiveDiff the view draws); the Session
stops it and ends it, and words said to it go through steer_tui.redirects.Redirects. Accept, reject,
undo/redo and external changes of the file go through steer_tui.review.Review. A Turn and the
Review see the session as steer_tui.port.SessionPort (what they may read and do). Its state is steer_tui.state.State, changed only through the transition
table there. Everything the UI shows comes out as steer_tui.events objects to one callback, called on
the event loop's thread.

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

from steer_tui.backend import Backend, SessionError, cancel_quietly, open_backend
from steer_tui.config import Settings
from steer_tui.edits.lines import document_lines, unified_diff
from steer_tui.edits.livediff import LiveDiff
from steer_tui.events import (
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
from steer_tui.prewarm_request import send_prewarm
from steer_tui.prewarms import Prewarms
from steer_tui.redirects import REDIRECT_LANE, Ended, Redirects, ended
from steer_tui.review import Review
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW, State, check_transition

__all__ = ["Session", "SessionError", "open_backend", "MAX_RETRIES", "REDIRECT_MODES", "REDIRECT_LANE"]

MAX_RETRIES = 2  # refusal feedback goes back to the model at most this many times
# How a redirect reaches the model, per edit format (Session.redirect_mode), measured with the
# embedded model by bench/redirect.py (10 scripted redirects): "continue" (response.steer: the
# model answers again after its partial answer and the words) followed 5/10 with the first token
# in ~0.4 s; "restart" (the turn starts over as one request, the region narrowed to a definition
# the words name) followed 3/4 narrowing redirects where continue followed 1/4, but evaluates the
# region and instruction again (seconds on a loaded 2-core CPU). "after": the answer goes on and the
# words are asked on their own of the code it leaves (steer_tui.turn.Turn.additions), once it is done.
# "auto" (rewrite): words that add to the request ("also X") come after, all others restart.
# bench/redirect.py, 10 scenarios: the earlier auto (restart only when the words move the region,
# else continue) 7/10, restart for all 8/10, this auto 9/10. Asked together with the request, an
# addition was one of the two things the small model did (0/2 for restart and continue alike).
# Other formats are not measured: continue, as before.
# How "auto" asks words that add to the request is the setting `redirect_additions`: "before" (the
# default: the answer stops, the addition is asked alone at once, then the interrupted request
# again) or "after" (the answer goes on; the addition once it is done). bench/redirect.py, all 13
# additions: "before" followed 11/13 with the addition's first token 0.29-1.13 s after Enter;
# "after" 12/13, its first token 2.0-5.1 s after Enter (it waits for the answer), done sooner.
REDIRECT_MODES = {"rewrite": "auto", "search_replace": "continue", "apply_patch": "continue", "udiff": "continue"}


class Session:
    """Create it, `await start()`, then `send`/`stop`/`redirect`/accept...

    `client`: an already connected Backend (tests, or a UI that owns it); without one
    `start()` opens the configured backend (the embedded engine when none is configured).
    """

    redirect_strategy: str | None = None  # "restart" | "continue" | "after" | "before" | "auto"; None: REDIRECT_MODES for the format
    refuse_broken_syntax = False  # edit(): a proposal that breaks Python syntax is a refused attempt
    # What the project's other files say (steer_tui.project.session_context.ProjectContext): set by
    # the app, `steer edit` and `steer ask`; None sends the file alone.
    context = None
    ended_turn: Ended | None = None  # how the last turn ended

    def __init__(self, document, settings: Settings | None = None, on_event: Callable[[Event], None] | None = None,
                 *, client: Backend | None = None, edit_format: str | None = None, model: str | None = None):
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
        self.live = LiveDiff(document_lines(document.text)[0])
        self.instruction: str | None = None
        self.region: tuple[int, int] | None = None
        self.last_result: TurnResult | None = None
        self.review = Review(self)
        self._turn = None  # the steer_tui.turn.Turn under way or last run; None while a redirect starts it over
        self._turn_task: asyncio.Task | None = None
        self.prewarms = Prewarms()
        self.redirects = Redirects(self)
        # Nothing reads the file's message ahead (a one-shot command): a region that is all but a few
        # lines of the file is shown once, in its block (prompts.build_input `once`). The app prewarms
        # that message, so there it stays the whole file, the prefix every request shares.
        self.region_once = False

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
    def turn(self):
        """The steer_tui.turn.Turn under way or last run (None before the first and while a redirect restarts one)."""
        return self._turn

    @property
    def _answer(self):
        return self._turn.answer if self._turn is not None else None

    @property
    def stream(self):
        """The backend's stream of the turn's attempt under way or last made."""
        return self._turn.stream if self._turn is not None else None

    @property
    def turn_task(self) -> asyncio.Task | None:
        """The task running the turn under way or last run."""
        return self._turn_task

    def let_go_of_turn(self) -> None:
        """The turn under way is superseded (a redirect starts it over): none of its deltas reach the diff any more."""
        self._turn = None

    @property
    def raw_text(self) -> str:
        """The model's answer so far (for the raw view)."""
        answer = self._answer
        return answer.raw_text if answer is not None else ""

    @property
    def blocks(self) -> dict:
        """The blocks of the answer streaming or last streamed (steer_tui.edits.proposal.BlockState by index)."""
        answer = self._answer
        return answer.blocks if answer is not None else {}

    @property
    def proposal(self) -> list:
        """The pending hunks (steer_tui.edits.livediff.HunkInfo), in file order."""
        return self.live.hunks()

    @property
    def has_proposal(self) -> bool:
        return self.live.hunk_count > 0

    @property
    def can_undo(self) -> bool:
        return self.review.journal.can_undo

    @property
    def can_redo(self) -> bool:
        return self.review.journal.can_redo

    @property
    def format(self) -> str:
        from steer_tui.prompts import REWRITE, default_format, is_empty

        if is_empty(self.document.text):
            return REWRITE  # a new (empty) file is written whole, whatever the format
        backend = self.settings.backend
        if self.server_engine == "local":
            backend = "local"  # a gateway URL in front of the embedded model: its measured format
        return self.edit_format or default_format(backend, self.model)

    def _served(self, key: str, kind: type = str):
        # What a steer gateway said it serves (open_backend asks on connect); None if unknown.
        info = getattr(self.client, "server_info", None)
        value = info.get(key) if isinstance(info, dict) else None
        return value if isinstance(value, kind) else None

    @property
    def server_engine(self) -> str | None:
        """The engine a steer gateway says it serves (local, upstream, replay), None if not known yet."""
        return self._served("engine")

    @property
    def server_features(self) -> frozenset[str]:
        """What a steer gateway's engine does beyond the protocol ("avoid"); empty if not known."""
        return frozenset(f for f in self._served("features", list) or () if isinstance(f, str))

    @property
    def server_context(self) -> int | None:
        """The context window (tokens) a steer gateway says its engine has, None if not known."""
        return self._served("context_tokens", int)

    @property
    def server_model(self) -> str | None:
        """The model a steer gateway says it serves, None if not known."""
        return self._served("model")

    def proposal_diff(self) -> str:
        """The pending proposal as a unified diff (O(file): for the diff view and `steer edit`)."""
        return unified_diff(self.path, self.document.text, self.review.proposed_text())

    # ------------------------------------------------------------ events

    def emit(self, ev) -> None:
        try:
            self.on_event(ev)
        except Exception as exc:  # a broken listener must not kill the stream
            logging.getLogger(__name__).exception("session listener failed: %s", exc)

    def set_state(self, state: State) -> None:
        if state is not self.state:
            check_transition(self.state, state)
            prev, self.state = self.state, state
            self.emit(StateChanged(state, prev))

    _set_state = set_state  # the name tests drive the state by

    def set_connection(self, state: str, detail: str = "") -> None:
        self.connection = state
        self.emit(ConnectionChanged(state, detail))

    def notice(self, level: str, code: NoticeCode, text: str) -> None:
        self.emit(Notice(level, text, code))

    def proposal_changed(self) -> None:
        self.emit(ProposalUpdated(self.live.version, self.live.hunk_count, self.live.cursor_row))

    # ------------------------------------------------------------ connection

    async def start(self, *, prewarm: bool = True) -> None:
        """Connect (opening the configured backend if no client was given) and prewarm the file."""
        if self.client is None:
            self.set_connection("connecting", self.settings.backend)
            try:
                self.client = await open_backend(self.settings, self.set_connection)
            except SessionError as exc:
                self.set_connection("error", exc.message)
                raise
            except Exception as exc:
                self.set_connection("error", str(exc))
                raise SessionError(getattr(exc, "code", "backend_unreachable"), str(exc)) from exc
        self.set_connection("ready", getattr(self.client, "url", ""))
        if prewarm and self.context is not None and not self.context.ready:
            loop = asyncio.get_running_loop()
            self.context.start(lambda: loop.call_soon_threadsafe(self._context_ready))
        if prewarm:
            self.prewarm()

    def _context_ready(self) -> None:
        """The project's index is built: the context goes into the prewarm now, while nothing waits."""
        if self.client is None or self.state is not IDLE or self.prewarms.in_flight():
            return
        if self.request_context(None, ""):  # else the prefix is the one already warmed
            self.prewarm()

    def request_context(self, region: tuple[int, int] | None, instruction: str):
        """What a request on `region` with `instruction` carries from the project's other files
        (steer_tui.project.context.RequestContext; None: no project context)."""
        if self.context is None:
            return None
        return self.context.request(self.document.text, region, instruction)

    def prewarm(self, region: tuple[int, int] | None = None, typed: str = "", complete: bool = False,
                *, lane: str | None = None, behind: bool = False) -> None:
        """Ask the engine to evaluate system prompt + file now (in the background).

        With `region` (rewrite format only: its turn message opens with the region block) the
        block is evaluated too, so after Enter only the instruction is left to evaluate; and
        `typed`, the instruction's words typed so far (`complete`: as the whole instruction).
        `lane`: a stream_id of its own, so it does not wait behind the answer being written.
        `behind`: one in flight of the same region goes on, this one queued behind it (Prewarms.start).
        """
        if self.client is None:
            return
        if self.format != "rewrite":
            region = None
        from steer_tui.project.window import fits, session_budget

        self.prewarms.start(send_prewarm(self, region, typed, complete, lane or self.stream_id), self.document.text,
                            region, typed, behind=behind,
                            in_part=not fits(self.document.text, session_budget(self)))

    def prewarm_redirect(self, typed: str, complete: bool = False, naming: str | None = None, *,
                         behind: bool = False) -> bool:
        """The user types `typed` while the model writes (or a correction of the answer under
        review): prewarm the turn a redirect with these words would start (Redirects.prewarm)."""
        return self.redirects.prewarm(typed, complete, naming, behind=behind)

    @property
    def warming(self) -> bool:
        """A prewarm of the whole file (not of one block) is in flight."""
        return self.prewarms.warming_file

    async def warmed(self) -> None:
        """Wait for the prewarms in flight (if any) to end, however they end."""
        await self.prewarms.wait()

    def prewarm_region(self, region: tuple[int, int]) -> None:
        """The cursor rests in `region`, the likely scope of the next edit: prewarm its block,
        unless it already is, or a turn or a proposal is under way (nothing may delay those)."""
        if self.format != "rewrite" or self.state is not IDLE or self.prewarms.covers == (self.document.text, region):
            return
        self.prewarm(region)

    async def close(self) -> None:
        await self.stop()
        if self.context is not None:
            self.context.close()  # its watcher, if it has one
        for task in (*self.prewarms.in_flight(), self._turn_task):
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
        self.set_connection("closed")

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
        if await self.redirects.follow_up(instruction):
            return
        await self.start_turn(instruction, region, retries)

    async def start_turn(self, instruction: str, region: tuple[int, int] | None, retries: int = 0, *,
                         avoid: dict | None = None) -> None:
        """Start a new turn on the file as it is (any proposal is dropped). `avoid`: its first
        attempt departs from that earlier answer (Turn.departure; steer_tui.alternatives)."""
        if self.has_proposal:
            self.discard_proposal()
        instruction, region = self.scoped(instruction, region)
        self.prewarms.make_way(region, instruction)
        self.instruction = instruction
        self.region = region
        self.last_result = None
        from steer_tui.turn import Turn

        self._turn = Turn(self, instruction, region, retries)
        self._turn.avoid = avoid
        self._turn_task = asyncio.ensure_future(self._run(self._turn))
        # Let the task send its request before returning, so `stop()` right after works.
        self.set_state(GENERATING)
        await asyncio.sleep(0)

    def scoped(self, instruction: str, region: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
        """(instruction, region) of a turn sent with these: a rewrite's region is never the whole
        file when the words name definitions (rewriting it is slow on a CPU and defeats the
        prewarm: prompts.rewrite_region), and a deletion of the definition that is the region is
        asked by name of the code around it (prompts.deletion_request, deletion_region)."""
        if self.format != "rewrite":
            return instruction, region
        from steer_tui.prompts import deletion_region, deletion_request, edit_region

        if region is None:  # a new definition asked alone: the empty region where it goes (insertion.py)
            return instruction, edit_region(self.document.text, instruction, self.path)
        instruction = deletion_request(self.document.text, instruction, region, self.path)
        return instruction, deletion_region(self.document.text, instruction, region, self.path)

    async def _run(self, turn) -> None:
        """Run `turn`, then leave GENERATING and report how it ended."""
        try:
            await turn.run()
            if self._turn is turn and turn.result.status == "proposal":
                from steer_tui.project.imports import add_needed_imports

                add_needed_imports(self)
        finally:
            if self._turn is turn:  # not a turn a redirect superseded
                self.ended_turn = Ended(self._turn_task, self.document.text,
                                          self.review.proposed_text() if self.has_proposal else None,
                                          self.state is not GENERATING)
            result = self.last_result = turn.result
            if self.state is GENERATING:
                self.set_state(REVIEW if self.has_proposal else IDLE)
            elif self.state is INTERRUPTED and not self.has_proposal:
                self.set_state(IDLE)
            self.review.turn_ended()
            self.emit(Stats(result.ttft_s, result.tokens, result.tokens_per_s, time.perf_counter() - turn.t0, True))
            self.emit(TurnEnded(result))

    async def wait(self) -> TurnResult:
        """Wait for the current turn (with its retries) to end."""
        await ended(self._turn_task)
        return self.last_result or TurnResult("nothing")

    async def edit(self, instruction: str, region: tuple[int, int] | None = None, retries: int = MAX_RETRIES) -> TurnResult:
        """One whole turn: send, wait, retrying with refusal feedback (what `steer edit` does).

        With no review to come, an answer that breaks a Python file's syntax is a refused attempt."""
        self.refuse_broken_syntax = True
        try:
            await self.send(instruction, region, retries=retries)
            return await self.wait()
        finally:
            self.refuse_broken_syntax = False

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
        self.interrupt()  # from here on no delta reaches the live diff
        stream = self.stream
        return cancel_quietly(stream) if stream is not None else None

    def interrupt(self) -> None:
        """Leave GENERATING with what the answer completed (Esc, a lost connection)."""
        if self._answer is not None:
            self._answer.drop_partial(keep_closed=True)
        # Nothing left to review: idle, not "interrupted" over an empty proposal.
        self.set_state(INTERRUPTED if self.has_proposal else IDLE)
        self.proposal_changed()

    async def redirect(self, words: str) -> None:
        """Enter while generating: the new words redirect the turn; its new answer replaces the
        proposal. How they reach the model is `redirect_mode` (steer_tui.redirects.Redirects.redirect)."""
        if self.state is not GENERATING:
            await self.send(words, self.region)
            return
        await self.redirects.redirect(words)

    def follows_up(self, words: str) -> bool:
        """Words sent now would go on from the last turn's request (Redirects.follow_up)."""
        return self.redirects.follows_up(words)

    @property
    def redirect_mode(self) -> str:
        """How a redirect reaches the model: `redirect_strategy` if set, else the measured one for the format."""
        return self.redirect_strategy or REDIRECT_MODES.get(self.format, "restart")

    def _restarted_turn(self, first: str, said: list[str]) -> tuple[tuple[int, int] | None, str]:
        return self.redirects.restarted_turn(first, said)  # tests ask for the turn a redirect would start

    def _asked_first(self, words: str, naming: str | None = None) -> tuple[tuple[int, int], str]:
        return self.redirects.asked_first(words, naming)  # tests ask for the region words are asked of first

    @property
    def syntax_problem(self):
        """The pending proposal breaks a Python file that parsed (steer_tui.edits.syntax.SyntaxProblem, its hunk
        indexing `proposal`), else None. Computed once per proposal version, never while streaming."""
        if self.state is GENERATING or not self.has_proposal:
            return None
        return self.review.checked_syntax()

    def _feedback_instruction(self) -> str:
        """What the retry after the last refusal tells the model."""
        return self._turn.feedback_instruction()

    # ------------------------------------------------------------ review (steer_tui.review)

    @property
    def conflict(self) -> str | None:
        """Why accept is blocked (the file changed under the proposal), None if it is not."""
        return self.review.conflict

    def accept_all(self) -> bool:
        """Write every pending hunk to the file (atomically, through Document)."""
        return self.review.accept_all()

    def accept_hunk(self, i: int) -> bool:
        return self.review.accept_hunk(i)

    def reject_hunk(self, i: int) -> bool:
        return self.review.reject_hunk(i)

    def reject_all(self) -> bool:
        return self.review.reject_all()

    def undo(self) -> bool:
        return self.review.undo()

    def redo(self) -> bool:
        return self.review.redo()

    def file_changed(self) -> bool:
        """The file may have changed on disk (watchfiles). Returns True if it really did (steer_tui.review)."""
        return self.review.file_changed()

    def discard_proposal(self, quiet: bool = False) -> None:
        self.review.discard(quiet)
