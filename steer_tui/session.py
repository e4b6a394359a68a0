"""The pair-programming session shared by the TUI and `steer edit` (no Textual here): it orchestrates.

One Session edits one Document. It connects to a backend (steer_tui.backend) and prewarms the model's
cache with the file. `send` starts a turn (steer_tui.turn.Turn: its attempts, each answer's deltas fed
to an steer_tui.edits.proposal.ProposalBuilder that keeps the LiveDiff the view draws); the Session
stops it, redirects it and ends it. Accept, reject, undo/redo and external changes of the file
go through steer_tui.review.Review. Its state is steer_tui.state.State, changed only through the transition
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
from typing import Callable, NamedTuple

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
from steer_tui.prewarms import Prewarms
from steer_tui.review import Review
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW, State, check_transition

__all__ = ["Session", "SessionError", "open_backend", "MAX_RETRIES", "REDIRECT_MODES"]

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
class _Ended(NamedTuple):
    """How a turn ended, for words sent after it that go on from its request (Session._follow_up)."""

    task: asyncio.Task  # the turn's task: a later turn has another
    text: str  # the file's text then
    proposed: str | None  # the proposed text then (None: no proposal)
    stopped: bool  # by Esc or a lost connection, not by its answer's end


# The stream_id suffix of the prewarms of a redirect being typed (Session.prewarm_redirect): its own
# lane, not the answer's, where it would wait for that answer to end.
REDIRECT_LANE = "~redirect"


class Session:
    """Create it, `await start()`, then `send`/`stop`/`redirect`/accept...

    `client`: an already connected Backend (tests, or a UI that owns it); without one
    `start()` opens the configured backend (the embedded engine when none is configured).
    """

    redirect_strategy: str | None = None  # "restart" | "continue" | "after" | "before" | "auto"; None: REDIRECT_MODES for the format
    _redirected: tuple | None = None  # (turn task, first instruction, redirects) of the redirected turn
    refuse_broken_syntax = False  # edit(): a proposal that breaks Python syntax is a refused attempt
    _ended_turn: _Ended | None = None  # how the last turn ended

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
    def _stream(self):
        return self._turn.stream if self._turn is not None else None

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
        if prewarm:
            self.prewarm()

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
        self.prewarms.start(self._prewarm(region, typed, complete, lane or self.stream_id), self.document.text,
                            region, typed, behind=behind)

    def prewarm_redirect(self, typed: str, complete: bool = False, naming: str | None = None, *,
                         behind: bool = False) -> bool:
        """The user types `typed` while the model writes (or a correction of the answer under review,
        `follows_up`): prewarm the turn a redirect with these words would start over (_restart_turn),
        so that Enter leaves only what was typed since. `naming`:
        the words with the one being typed, when it names a definition (its region, known before the
        word ends). False when the redirect would not start the turn over (a steer, an addition
        asked after the answer), or is an addition asked at once on the turn's own region.

        It goes on a lane of its own, and the embedded engine evaluates it between two steps of
        the answer (LocalEngine._let_prewarms_in): that answer is about to be replaced."""
        from steer_tui.prompts import names_a_definition

        words, naming = typed.strip(), (naming or typed).strip()
        if self.client is None or self.format != "rewrite" or self.region is None or not naming:
            return False
        if self.state is GENERATING:
            mode = self._redirect_mode_for(naming)
            if mode == "before" and self._asks_first(naming):
                # An addition asked at once (_restart_turn's `addition`): prewarmed where it names a
                # region other than the turn's, whose block the engine holds already. Asked of the
                # whole class around the region, its block was evaluated after Enter (1-3 s).
                region, instruction = self._asked_first(words, naming)
                if region == self.region:
                    return False
                self.prewarm(region, instruction, complete, lane=self.stream_id + REDIRECT_LANE, behind=behind)
                return True
            if mode != "restart":
                return False
        elif not self.follows_up(naming):
            return False  # words sent now would be a turn of their own
        elif self._asks_first(naming):
            # Asked first, on their own (_follow_up): the region they name, and the words as asked.
            region, instruction = self._asked_first(words, naming)
            self.prewarm(region, instruction, complete, lane=self.stream_id + REDIRECT_LANE, behind=behind)
            return True
        first, said = self._redirect_history()
        region = self.region
        if complete or names_a_definition(self.document.text, naming):
            # Until a name follows the verb, "no, only add" names the method `add`: keep the region.
            region, _ = self._restarted_turn(first, said + [naming])
        if complete:
            _, instruction = self._restarted_turn(first, said + [words])
        else:
            # The new words open the restarted turn's request (redirect_instruction); what follows
            # them depends on the words still to come.
            instruction = words
        self.prewarm(region, instruction, complete, lane=self.stream_id + REDIRECT_LANE, behind=behind)
        return True

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

    async def _prewarm(self, region: tuple[int, int] | None, typed: str, complete: bool, lane: str) -> None:
        from steer_tui.prompts import prewarm_input, system_prompt

        fmt = self.format
        try:
            await self.client.prewarm(
                model=self.model,
                instructions=system_prompt(fmt),
                input=prewarm_input(fmt, self.prompt_path, self.document.text, region, typed, complete),
                stream_id=lane,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # prewarm is an optimisation: say so, never fail the session
            self.notice("warning", NoticeCode.PREWARM_FAILED, f"prewarm failed: {exc}")

    async def close(self) -> None:
        await self.stop()
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
        if await self._follow_up(instruction):
            return
        await self._start(instruction, region, retries)

    async def _start(self, instruction: str, region: tuple[int, int] | None, retries: int = 0) -> None:
        """Start a new turn on the file as it is (any proposal is dropped)."""
        if self.has_proposal:
            self.discard_proposal()
        instruction, region = self.scoped(instruction, region)
        self.prewarms.make_way(region, instruction)
        self.instruction = instruction
        self.region = region
        self.last_result = None
        from steer_tui.turn import Turn

        self._turn = Turn(self, instruction, region, retries)
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
        from steer_tui.prompts import deletion_region, deletion_request, rewrite_region

        if region is None:
            return instruction, rewrite_region(self.document.text, instruction)
        instruction = deletion_request(self.document.text, instruction, region)
        return instruction, deletion_region(self.document.text, instruction, region)

    async def _run(self, turn) -> None:
        """Run `turn`, then leave GENERATING and report how it ended."""
        try:
            await turn.run()
        finally:
            if self._turn is turn:  # not a turn a redirect superseded
                self._ended_turn = _Ended(self._turn_task, self.document.text,
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
        await _ended(self._turn_task)
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
        stream = self._stream
        return cancel_quietly(stream) if stream is not None else None

    def interrupt(self) -> None:
        """Leave GENERATING with what the answer completed (Esc, a lost connection)."""
        if self._answer is not None:
            self._answer.drop_partial(keep_closed=True)
        # Nothing left to review: idle, not "interrupted" over an empty proposal.
        self.set_state(INTERRUPTED if self.has_proposal else IDLE)
        self.proposal_changed()

    async def redirect(self, words: str) -> None:
        """Enter while generating: the new words redirect the turn; its new answer replaces the proposal.

        How the words reach the model is `redirect_mode` (REDIRECT_MODES): "restart" stops the
        answer and starts the turn over with the first instruction and the new words in one
        request (file and region stay cached: only the instruction is evaluated again);
        "continue" steers (`response.steer`): the model answers again after its partial answer
        and the new words; "after" lets the answer finish and then asks for the words alone, as an
        edit of the code that answer leaves (a rewrite's additions, "also X"); "before" stops the
        answer and asks the words alone at once, then the request they interrupted again, of the
        code the words' answer leaves; "auto" is the setting `redirect_additions` ("after" or
        "before") for words that add to the request and "restart" for the rest. On a restart or a steer the
        superseded partial leaves the live diff at once.
        """
        if self.state is not GENERATING:
            await self.send(words, self.region)
            return
        words = words.strip()
        first, said = self._redirect_history()
        said = said + [words]
        mode = self._redirect_mode_for(words)
        if mode == "before" and self._turn is not None and self.region is not None:
            self.notice("info", NoticeCode.REDIRECTED,
                         f"redirected: {' '.join(words.split())} (asked first, then the request again)")
            await self._restart_turn(first, said, addition=words)
            return
        if mode == "after" and self._turn is not None and self.region is not None:
            self._turn.additions.append(words)
            self.instruction = f"{self.instruction}\n{words}" if self.instruction else words
            self.notice("info", NoticeCode.REDIRECTED, f"after this answer: {' '.join(words.split())}")
            self._redirected = (self._turn_task, first, said)
            return
        self.notice("info", NoticeCode.REDIRECTED, f"redirected: {' '.join(words.split())} (the answer starts over)")
        if self._stream is None or mode != "continue":
            # Also when the request is still on its way: there is nothing to steer yet.
            await self._restart_turn(first, said)
            return
        self.instruction = f"{self.instruction}\n{words}" if self.instruction else words
        if self._answer is not None:
            self._answer.instruction = self.instruction  # whether a rewrite may delete code follows the words
        self._redirected = (self._turn_task, first, said)
        try:
            await self._stream.steer(words)
        except Exception as exc:
            self.notice("error", NoticeCode.REDIRECT_FAILED, f"redirect failed: {exc}")

    def follows_up(self, words: str) -> bool:
        """Words sent now would go on from the last turn's request (`_follow_up`)."""
        from steer_tui.prompts import refers_back

        task, ended = self._turn_task, self._ended_turn
        if (self.state is GENERATING or ended is None or task is None or ended.task is not task or not task.done()
                or not self.instruction or ended.text != self.document.text or self.review.conflict):
            return False
        if (self.review.proposed_text() if self.has_proposal else None) != ended.proposed:
            return False  # rejected, in whole or in part: what is left is the user's pick, not the answer
        # After Esc, only words that go on from the request: a stopped request is asked again only then.
        return self.state is REVIEW and self.has_proposal or ended.stopped and refers_back(words)

    def _asks_first(self, words: str) -> bool:
        """Words that go on from the answer ended are asked first, on their own (an addition, a new
        request), rather than starting its turn over with them (a correction, or a format without
        regions)."""
        from steer_tui.prompts import redirect_corrects

        return self.format == "rewrite" and self.region is not None and not redirect_corrects(words)

    def _asked_first(self, words: str, naming: str | None = None) -> tuple[tuple[int, int], str]:
        """(region, instruction) of words asked first, on their own, before the request they add to:
        on the turn's region, whose block the request showed and the engine still holds, so only the
        words are new; on the definitions the words (`naming`: those with the one being typed) name
        apart from it, or the span taking in one that overlaps it (prompts.addition_region)."""
        from steer_tui.prompts import addition_instruction, addition_region
        from steer_tui.turn import docstring_request

        # A class's docstring alone is asked of the class's header (steer_tui.turn.docstring_request).
        doc = docstring_request(self, addition_instruction(naming or words))
        region = doc[0] if doc is not None else addition_region(self.document.text, self.region, naming or words)
        return region, addition_instruction(words)

    async def _follow_up(self, words: str) -> bool:
        """Words sent after the answer ended, while its proposal is under review (or after Esc), go
        on from that turn's request, as a redirect would: a correction ("no, only to pop", "use a
        dict, not a list") starts the turn over with the request and the words as one request;
        any other words (an addition, a new request) are asked at once on their own, and their
        answer is merged with the proposal as it stands (Turn.known), or, where that proposal is
        not one whole answer, with the request asked again (the "before" path of `redirect`).
        After Esc, only words that go on from the request do (prompts.refers_back).
        False when the words start a turn of their own: nothing was asked yet, the proposal was
        accepted, rejected (in whole or in part) or overtaken by a change of the file."""
        from steer_tui.prompts import redirect_adds

        task = self._turn_task
        if task is not None and not task.done() and self._turn is not None and self._turn.stopped:
            await _ended(task)  # Esc: the stopped turn is winding down
        if not self.follows_up(words):
            return False
        words = words.strip()
        first, said = self._redirect_history()
        said = said + [words]
        said_text = " ".join(words.split())
        if self._asks_first(words):
            # The request's answer is the proposal under review, when one whole answer made it (not
            # a merge of two, nor what Esc kept of one): it is merged with the addition's as it
            # stands, not asked again.
            before = self._turn
            known = (before.result.raw_text if before is not None and before.base is None and self.state is REVIEW
                     and self.has_proposal and not self._ended_turn.stopped else None)
            then = "then merged with it" if known else "then the request again"
            self.notice("info", NoticeCode.REDIRECTED, f"on top of the proposal: {said_text} (asked first, {then})")
            if not redirect_adds(words):
                # Kept as what it was taken for, an addition: a later follow-up adds it to the request.
                said[-1] = f"also {words}"
            await self._restart_turn(first, said, addition=words, known=known)
        else:
            self.notice("info", NoticeCode.REDIRECTED, f"redirected: {said_text} (the answer starts over)")
            await self._restart_turn(first, said)
        return True

    @property
    def redirect_mode(self) -> str:
        """How a redirect reaches the model: `redirect_strategy` if set, else the measured one for the format."""
        return self.redirect_strategy or REDIRECT_MODES.get(self.format, "restart")

    def _redirect_mode_for(self, words: str) -> str:
        """redirect_mode, with "auto" decided for these words."""
        mode = self.redirect_mode
        if mode == "auto":
            from steer_tui.prompts import redirect_adds

            mode = self.settings.redirect_additions if redirect_adds(words) else "restart"
        return mode

    def _restarted_turn(self, first: str, said: list[str]) -> tuple[tuple[int, int] | None, str]:
        """(region, instruction) of the turn a redirect starts over: the first request and the words
        said since, as one request (prompts.redirect_instruction), on the region they name."""
        from steer_tui.prompts import redirect_region

        region = redirect_region(self.document.text, self.region, said[-1:])
        # Measured for a region rewrite only (prompts.redirect_instruction): other formats have no region.
        return region, self._redirected_request(first, said, same_region=region is not None and region == self.region)

    @staticmethod
    def _redirected_request(first: str, said: list[str], same_region: bool = False) -> str:
        """The first request and the words said since, as one request (prompts.redirect_instruction)."""
        from steer_tui.prompts import redirect_instruction

        return redirect_instruction(first, said, same_region) if first else "\n".join(said)

    def _redirect_history(self) -> tuple[str, list[str]]:
        """(first instruction, redirects so far) of the turn under way."""
        got = self._redirected
        if got is not None and got[0] is self._turn_task:
            return got[1], list(got[2])
        return self.instruction or "", []

    async def _restart_turn(self, first: str, said: list[str], addition: str | None = None,
                            known: str | None = None) -> None:
        """Stop the answer and start the turn over with `redirect_instruction(first, said)`; with
        `addition` (words that add to the request, the last of `said`), the turn asks the addition
        alone first, on the region (steer_tui.turn.Turn.then), then the request it interrupted again, or
        takes `known` as that request's answer (Turn.known: a follow-up on a proposal under review).

        To the listener the turn goes on: the superseded turn's state changes, stats and end are
        not shown (it is replaced, not stopped); its partial leaves the live diff before anything
        is awaited, and no later delta of it reaches the diff (it is no longer the session's turn).
        """
        stream, listener, old = self._stream, self.on_event, self._turn_task
        if addition is None:
            region, combined = self._restarted_turn(first, said)
        else:
            region, combined = self._asked_first(addition)
            request = self._redirected_request(first, said[:-1]) if said[:-1] else first
        self._turn = None  # the old turn sees it was superseded: none of its deltas reach the diff any more
        self.discard_proposal()

        def quiet(ev) -> None:
            if not isinstance(ev, (StateChanged, Stats, TurnEnded)):
                listener(ev)

        self.on_event = quiet
        try:
            if stream is not None and old is not None and not old.done():
                await cancel_quietly(stream)
            await _ended(old)
        finally:
            if self.on_event is quiet:
                self.on_event = listener
        back = self.region
        await self._start(combined, region)
        if addition is not None and self._turn is not None:
            self._turn.then, self._turn.then_region, self._turn.known = request, back, known or None
            self.instruction = f"{request}\n{addition}"
        self._redirected = (self._turn_task, first, said)

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


async def _ended(task: asyncio.Task | None) -> None:
    """Wait for `task` to end without cancelling it; its own cancellation is not an error here."""
    if task is None:
        return
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
