"""The instruction prompt at the bottom: an Input with history (up/down), kept across sends."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class Prompt(Input):
    """Enter sends (the app decides: send, redirect); up/down walk the history."""

    BINDINGS = [
        Binding("up", "history(-1)", "Previous instruction", show=False),
        Binding("down", "history(1)", "Next instruction", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="Say what to change, Enter to send", **kwargs)
        self.history: list[str] = []
        self._pos = 0
        self._draft = ""

    def remember(self, text: str) -> None:
        text = text.strip()
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._pos = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._pos == len(self.history):
            self._draft = self.value  # what the user was typing is never lost
        pos = max(0, min(len(self.history), self._pos + step))
        if pos == self._pos:
            return
        self._pos = pos
        self.value = self.history[pos] if pos < len(self.history) else self._draft
        self.cursor_position = len(self.value)
