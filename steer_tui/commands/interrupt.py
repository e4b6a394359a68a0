"""Ctrl+C for the one-shot commands: it cancels the command's main task, so the command's own
clean-up runs (the request is cancelled, the file stays untouched) and it can exit 130."""

from __future__ import annotations

import asyncio
import signal


class SigintCancels:
    """While installed, SIGINT cancels the task that installed it and sets `interrupted`.

    A CancelledError with `interrupted` false came from somewhere else and is re-raised by the
    callers; the flag is what tells the two apart.
    """

    def __init__(self) -> None:
        self.interrupted = False
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._installed = False

    @classmethod
    def install(cls) -> "SigintCancels":
        self = cls()
        try:
            self._loop.add_signal_handler(signal.SIGINT, self._on_sigint)
            self._installed = True
        except (NotImplementedError, RuntimeError):
            pass  # no signal handlers on this loop (another thread, Windows): KeyboardInterrupt as usual
        return self

    def _on_sigint(self) -> None:
        self.interrupted = True
        self._task.cancel()

    def remove(self) -> None:
        if self._installed:
            self._installed = False
            try:
                self._loop.remove_signal_handler(signal.SIGINT)
            except (NotImplementedError, RuntimeError):
                pass
