"""Where an instruction from the prompt goes: the answer being written, the stream, the session, or the send queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.state import State
from steer_tui.ui.send_queue import Queued, SendQueue

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost


class Sender:
    """Routes each instruction (redirect, ask, edit) and holds it in its SendQueue while the backend is not ready."""

    def __init__(self, app: SteerHost) -> None:
        self._app = app
        self.queue = SendQueue(app, self.dispatch)

    @property
    def queued(self) -> Queued | None:
        return self.queue.queued

    async def submit(self, text: str, *, ask: bool = False) -> None:
        """Enter (or Ctrl+K with ask): redirect what is streaming, else send, else queue. Never lose it."""
        app = self._app
        prompt = app.prompt
        asking = app.asking
        if asking is not None and asking.active:
            prompt.remember(text)
            prompt.value = ""
            await asking.redirect(text.lstrip("?").strip() or text)  # typing while it answers redirects it
            return
        question = text[1:].strip() if text.startswith("?") else (text if ask else None)
        if question == "":
            app.notify("type the question after the ?", severity="warning")
            return
        if app.document is None:
            app.notify("no file is open; your words stay in the prompt", severity="warning")
            return
        if app.lanes.writing:  # alternatives are written: the words redirect every lane (steer_tui.ui.lanes)
            if question is not None:
                app.notify("alternatives are being written: Esc stops them, then ask", severity="warning")
                return
            prompt.remember(text)
            prompt.value = ""
            await app.lanes.redirect(text)
            return
        session = app.session
        if question is not None and session is not None and session.state == State.GENERATING:
            app.notify("an edit is being written: Esc stops it, then ask", severity="warning")
            return
        if self.backend_failed():
            app.notify("no backend: your words stay in the prompt", severity="warning")
            return
        prompt.remember(text)
        prompt.value = ""
        kind, words = ("ask", question) if question is not None else ("edit", text)
        if self.queued is not None:
            # Another Enter while one waits: it waits behind it (SendQueue: sent as a redirect of it).
            self._queue(kind, words, app.region_for_send(words))
            return
        if session is not None and session.client is not None and session.state == State.GENERATING:
            await session.redirect(words)  # the stream is there: redirect now, nothing to wait for
            return
        await self.send(kind, words, app.region_for_send(words))

    async def send(self, kind: str, words: str, region: tuple[int, int] | None) -> None:
        """Dispatch now if nothing is to be waited for, else queue."""
        if self.waiting_for() is not None:
            self._queue(kind, words, region)
            return
        await self.dispatch(kind, words, region)

    async def dispatch(self, kind: str, words: str, region: tuple[int, int] | None) -> None:
        app = self._app
        session = app.session
        if kind == "ask":
            await app.answer_flow.ask(words, region)
            return
        if session.state == State.GENERATING:
            await session.redirect(words)
            return
        app.code.follow = True
        await session.send(words, region)

    # ----- the queue: what is typed before the backend is ready --------------------------------

    def backend_failed(self) -> bool:
        app = self._app
        session = app.session
        return app.status.connection == "error" and (session is None or session.client is None)

    def waiting_for(self) -> str | None:
        """What a send must wait for now (None: send at once)."""
        session = self._app.session
        if session is None or session.client is None or session.connection in ("connecting", "loading"):
            return "the backend"
        if session.warming:
            return "the model to read the file"  # a turn sent now would only queue behind it
        return None

    def _queue(self, kind: str, words: str, region: tuple[int, int] | None) -> None:
        self.queue.put(kind, words, region, self.waiting_for())
        self.kick()

    def kick(self) -> None:
        """Send the queued instruction if the backend is ready now (or once the prewarm in flight ends)."""
        if self.queued is None:
            return
        if self.backend_failed():
            self.queue.take_back("the backend did not start")
            return
        session = self._app.session
        if session is None or session.client is None or session.connection in ("connecting", "loading"):
            return  # the next connection change kicks again
        self.queue.send_when_warm()
