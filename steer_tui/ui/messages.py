"""The Textual messages the app handles from its workers and helpers: what happened, or what it should do, with no answer back."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


class FileChangedOnDisk(Message):
    """The open file changed on disk and the change is not one of our own writes."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class TestOutput(Message):
    """A line of output from the test command."""

    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class TestsFinished(Message):
    """The test command ended with this exit code (-1: it could not be run)."""

    __test__ = False

    def __init__(self, returncode: int) -> None:
        super().__init__()
        self.returncode = returncode


class FileShown(Message):
    """The workspace switched to `path` and opened it: the file shown from now on, to be watched on disk."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


class SessionIdle(Message):
    """The shown session's state became idle (a turn ended with nothing to review, a proposal was
    settled): the cursor's block may be worth prewarming for the next edit."""


class BackendConnectionChanged(Message):
    """The status line now shows the backend connection as `state` ("connecting", "loading",
    "ready", "lost", "error"): an instruction queued meanwhile may go now, and once "ready" the
    cursor's block may be prewarmed."""

    def __init__(self, state: str) -> None:
        super().__init__()
        self.state = state


class LanesChanged(Message):
    """The alternatives (steer_tui.ui.lanes.Lanes) changed: a lane started or ended, another was
    selected, or they were dropped. The lane bar and the keys follow."""
