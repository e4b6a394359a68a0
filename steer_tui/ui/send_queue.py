"""The instruction typed before the backend is ready: held, shown on the status line, sent or taken back; never lost."""

from __future__ import annotations

from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

Queued = tuple[str, str, tuple[int, int] | None]  # (kind "edit" | "ask", words, region)


class SendQueue:
    """The instructions typed while waiting, sent by a worker in the app's "queue" group: the first
    as typed, each later edit as a redirect of it (as if the backend had been ready at each Enter);
    a question typed with them joins them into one."""

    def __init__(self, app: SteerHost, dispatch: Callable[[str, str, tuple[int, int] | None], Awaitable[None]]) -> None:
        self._app = app
        self._dispatch = dispatch  # sends (kind, words, region) now
        self._parts: list[Queued] = []

    @property
    def queued(self) -> Queued | None:
        """What waits, as one instruction: the first's kind and region, all the words (Esc gives them back so)."""
        if not self._parts:
            return None
        kind, _, region = self._parts[0]
        return kind, "\n".join(words for _, words, _ in self._parts), region

    def put(self, kind: str, words: str, region: tuple[int, int] | None, waiting_for: str | None) -> None:
        """Hold the instruction after those waiting; the first one tells the user what it waits for."""
        app = self._app
        first = not self._parts
        self._parts.append((kind, words, region))
        shown_kind, shown, _ = self.queued
        app.status.queued = ("? " if shown_kind == "ask" else "") + " ".join(shown.split())
        if first:
            app.notify(f"queued until {waiting_for or 'ready'}: sent the moment it is ready "
                       "(Esc takes it back)", timeout=4)
        app.refresh_bindings()

    def send_when_warm(self) -> None:
        """Send it once the session's prewarm in flight ends (the caller knows the backend is up)."""
        self._app.run_worker(self._send, name="send-queued", group="queue", exclusive=True, exit_on_error=False)

    async def _send(self) -> None:
        app = self._app
        session = app.session
        while session.warming:
            await session.warmed()
        queued, parts, self._parts = self.queued, self._parts, []
        if queued is None:
            return  # taken back meanwhile
        app.status.queued = ""
        app.refresh_bindings()
        if any(kind != "edit" for kind, _, _ in parts):
            await self._dispatch(*queued)
            return
        # Joined into one request, two edits came out as one of the two (the small model did one);
        # the later ones redirect the first, as they would have with the backend ready.
        for part in parts:
            await self._dispatch(*part)

    def take_back(self, why: str = "") -> None:
        """Unsend it: back into the prompt, or into its history when the prompt has new words."""
        app = self._app
        queued, self._parts = self.queued, []
        app.status.queued = ""
        app.refresh_bindings()
        if queued is None:
            return
        kind, words, _region = queued
        words = f"?{words}" if kind == "ask" else words
        prompt = app.prompt
        if not prompt.value.strip():
            prompt.value = words
            prompt.cursor_position = len(words)
            where = "back in the prompt"
        else:
            prompt.remember(words)  # the prompt has new words: keep those, ↑ brings this back
            where = "in the history (↑)"
        app.notify(f"{why + ': ' if why else ''}taken back, not sent; it is {where}",
                   severity="warning" if why else "information", timeout=5)
