"""Questions in the app: the Asking being (or last) answered, drawn in the answer panel and the status line."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from steer_tui.ui.widgets.status import NUMBERS_EVERY_S

if TYPE_CHECKING:
    from steer_tui.ask import Asking
    from steer_tui.ui.host import SteerHost


class AnswerFlow:
    """Starts a question on the session's client, draws its answer when asked to, and turns it into an edit."""

    def __init__(self, app: SteerHost, on_change: Callable[[], None]) -> None:
        self._app = app
        self._on_change = on_change  # the answer grew or ended: called from the client's stream
        self.asking: Asking | None = None
        self._numbers_shown = 0.0
        self.places: list = []  # the Hits the question showed (steer_tui/project/where.py)
        self._added: tuple = (None, [])  # (the answer it was found for, the places it names without a line)

    @property
    def active(self) -> bool:
        return self.asking is not None and self.asking.active

    async def ask(self, question: str, region: tuple[int, int] | None) -> None:
        """Stop an answer still running, then ask `question` about `region` (None: the whole file)."""
        from steer_tui.ask import Asking

        app = self._app
        session = app.session
        if self.active:
            await self.asking.stop()
        # What goes with the question is found before the new Asking exists: once shown, it has its answer.
        places = await self._places(question)
        context = (await asyncio.to_thread(session.request_context, region, question)
                   if session.context is not None else None)
        asking = Asking(session.client, model=session.model, stream_id=session.stream_id,
                        max_output_tokens=app.settings.max_output_tokens, temperature=app.settings.temperature,
                        on_change=self._on_change)
        self.asking, self.places = asking, places
        about = f"lines {region[0] + 1}-{region[1]}" if region else "the whole file"
        app.answer.begin(question, about)
        app.status.state = "answering"
        app.status.set_numbers(None, None, None)
        app.refresh_bindings()
        from steer_tui.project.where import places_block
        from steer_tui.project.window import session_budget

        await asking.start(session.format, session.prompt_path, session.document.text, question, region,
                           places=places_block(self.places), context=context, file_tokens=session_budget(session))

    async def _places(self, question: str) -> list:
        """The project's lines the question names (steer_tui/project/where.py: Hits), paths from the
        project's root; none with context off or when the search fails (the answer still comes)."""
        from pathlib import Path

        from steer_tui.project.root import project_root
        from steer_tui.project.where import places_for

        app = self._app
        if not getattr(app.settings, "context", True):
            return []
        path = Path(app.session.path)
        try:
            context = app.session.context
            return await asyncio.to_thread(places_for, path, question, project_root(path),
                                           index=context.index if context is not None else None)
        except Exception as exc:
            app.notify(f"could not search the project: {exc}", severity="warning", timeout=5)
            return []

    def cited(self) -> list[tuple[str, int]]:
        """The places the answer on screen points at: the `path:line` it writes, then the places it
        names without a line (`added`)."""
        from steer_tui.project.where import references

        answer = self.asking.answer if self.asking is not None else None
        if answer is None or not answer.answer_text:
            return []
        out = references(answer.answer_text)
        return out + [(h.path, h.line) for h in self.added(answer) if (h.path, h.line) not in out]

    def added(self, answer) -> list:
        """The places a finished answer names without their line (steer_tui.project.where.cited),
        found once for each answer."""
        from steer_tui.project.root import project_root
        from steer_tui.project.where import cited

        if not (answer.done and answer.answer_text and self.places):
            return []
        key = (id(answer), answer.answer_text)
        if self._added[0] != key:
            self._added = (key, cited(answer.answer_text, self.places, project_root(self._app.session.path)))
        return self._added[1]

    def _shown_text(self, answer) -> str:
        """The answer as the panel draws it: once it ended, the places it names without a line, as `path:line`."""
        extra = self.added(answer)
        if not extra:
            return answer.text
        refs = " · ".join(f"`{h.path}:{h.line}`" for h in extra)
        return f"{answer.text}\n\n*Places:* {refs} (Ctrl+P opens them)"

    def show(self, now: float, state_after: Callable[[], str]) -> bool:
        """Draw the answer; True when it just ended (the keys change; the status shows `state_after()` again)."""
        answer = self.asking.answer if self.asking is not None else None
        if answer is None:
            return False
        app = self._app
        app.answer.show(status=answer.status, text=self._shown_text(answer))
        if answer.done or now - self._numbers_shown >= NUMBERS_EVERY_S:
            self._numbers_shown = now
            app.status.set_numbers(answer.ttft_s, answer.tokens_per_s, answer.tokens or None)
        if answer.done and app.status.state == "answering":
            app.status.state = state_after()
            if answer.status == "error":
                app.notify(f"no answer: {answer.reason}", severity="error", timeout=10)
            return True
        return False

    def take_as_edit(self) -> tuple[str, tuple[int, int] | None] | None:
        """Close the panel and give (the edit instruction the answer is the plan of, its region); None: no answer."""
        from steer_tui.ask import do_it_instruction

        answer = self.asking.answer if self.asking is not None else None
        if answer is None or not answer.answer_text:
            return None
        self._app.answer.close()
        return do_it_instruction(answer.question, answer.answer_text), answer.region

    async def do_it(self) -> None:
        """Ctrl+D: the answer becomes an edit, with the answer as its plan (sent, or queued as any edit is)."""
        edit = self.take_as_edit()
        if edit is None:
            return
        self._app.refresh_bindings()
        await self._app.sender.send("edit", *edit)
