"""One attempt's answer from the backend: the request sent, its stream read (steer_tui.stream_reader)
into the turn's proposal, and the attempt's result as the stream ended."""

from __future__ import annotations

from steer_tui import stream_reader
from steer_tui.backend import SessionError, cancel_quietly
from steer_tui.edits.class_doc import DOC_CLOSE
from steer_tui.edits.judge import DEGENERATE_FEEDBACK, DEGENERATE_REASON, LOOP_REASON, loop_feedback, truncated_feedback
from steer_tui.events import NoticeCode, TurnResult
from steer_tui.stream_reader import End

# An answer with this many blocks whose SEARCH == REPLACE is a loop (seen with the 1.5B model): stop it.
MAX_NOOP_BLOCKS = 3


class AttemptStream:
    """Asks the turn's attempt (steer_tui.turn.Turn) of the backend and reads the answer into it;
    the stream's events come here (steer_tui.stream_reader.Reader)."""

    def __init__(self, turn):
        self.turn = turn
        self.session = turn.session
        self.gave_up: tuple[str, str] | None = None  # (reason, feedback) of an answer caught in a loop
        self.copy_watch = None  # an insertion's: steer_tui.insertion.CopyWatch, made at its first delta

    async def ask(self, instructions: str, messages: list[dict], cap: int | None, avoid: dict | None = None) -> TurnResult:
        s, t = self.session, self.turn
        try:
            stream = await s.client.create(
                model=s.model,
                instructions=instructions,
                input=messages,
                stream_id=s.stream_id,
                max_output_tokens=cap,
                temperature=s.settings.temperature,
                **({"extra": {"prefix": t.prefix, "stop": [DOC_CLOSE]}} if t.prefix
                   else {"extra": {"avoid": avoid}} if avoid is not None else {}),
            )
        except Exception as exc:
            s.set_connection("lost", str(exc))
            raise SessionError(getattr(exc, "code", "backend_unreachable"), f"request failed: {exc}") from exc
        t.stream = stream
        if t.stopped:  # stopped while the request was being sent
            await cancel_quietly(stream)
            return TurnResult("stopped", "stopped by the user")
        if t.prefix:  # the answer's start, not a token of it: the first token is still to come
            t.answer.feed(t.prefix)
            s.proposal_changed()
        return await self.ended(stream, await stream_reader.read(stream, self))

    async def ended(self, stream, end: End) -> TurnResult:
        """The attempt's result, as its stream ended."""
        s, t = self.session, self.turn
        if end.how == "gave_up":
            return await self.give_up(stream, *self.gave_up)
        if end.how == "cancelled":
            return t.conclude(TurnResult("stopped", "cancelled"))
        if end.how == "cut_off":  # max_output_tokens, ...: a partial answer never applies
            t.answer.truncate()
            s.proposal_changed()
            t.feedback = truncated_feedback(end.message)
            return t.conclude(TurnResult("refused", f"the answer was cut off ({end.message})"))
        if end.how == "failed":
            raise SessionError(end.code or "backend_error", end.message or end.code)
        if end.how == "disconnected":
            s.set_connection("lost", end.message)
            s.interrupt()
            return t.conclude(TurnResult("stopped", f"connection lost: {end.message}"))
        if t.stopped:
            return t.conclude(TurnResult("stopped", "stopped by the user"))
        if t.prefix:  # the engine ended the answer at the docstring's closing quotes, unsent
            t.answer.feed(DOC_CLOSE + "\n```\n")
        t.answer_done()
        return t.conclude(t.judge())

    async def give_up(self, stream, reason: str, feedback: str) -> TurnResult:
        """The answer is caught in a loop (blocks that change nothing, the same lines over and over,
        steer_tui.edits.repeats): stop paying for it."""
        t = self.turn
        await cancel_quietly(stream)
        t.answer.drop_partial()
        self.session.live.clear()
        self.session.proposal_changed()
        t.feedback = feedback
        return t.conclude(TurnResult("refused", reason))

    # ------------------------------------------------------------ the stream's events

    def should_stop(self) -> bool:
        return self.turn.stopped

    def on_text(self, delta: str) -> bool:
        t = self.turn
        t.on_delta(delta)
        if t.answer.noop_blocks >= MAX_NOOP_BLOCKS:
            self.gave_up = (DEGENERATE_REASON, DEGENERATE_FEEDBACK)
        elif t.repeats.looping:
            self.gave_up = (LOOP_REASON, loop_feedback(t.repeats.block))
        elif self._copying():
            from steer_tui.insertion import COPY_FEEDBACK, COPY_REASON

            self.gave_up = (COPY_REASON, COPY_FEEDBACK)
        return self.gave_up is not None

    def _copying(self) -> bool:
        """An insertion's answer (the turn's region is empty) writes out the file's own code."""
        shown = self.turn.shown
        if not (isinstance(shown, tuple) and shown[0] == shown[1]):
            return False
        if self.copy_watch is None:
            from steer_tui.insertion import CopyWatch

            self.copy_watch = CopyWatch(self.session.document.text)
        return self.copy_watch.copying(self.session.raw_text)

    def on_steered(self) -> None:
        self.turn.restart_after_steer()  # the successor's output replaces this answer: the proposal starts over

    def on_created(self) -> None:
        if self.session.connection != "ready":
            self.session.set_connection("ready", getattr(self.session.client, "url", ""))

    def on_notice(self, message: str) -> None:
        self.session.notice("info", NoticeCode.SERVER, message)

    def on_steer_failed(self, message: str) -> None:
        self.session.notice("warning", NoticeCode.REDIRECT_FAILED, f"redirect failed: {message}")
