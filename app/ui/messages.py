"""Messages the app's background workers post to the screen (file watcher, test runner)."""

from __future__ import annotations

from textual.message import Message


class FileChangedOnDisk(Message):
    """The open file changed on disk and the change is not one of our own writes."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class TestOutput(Message):
    """A line of output from the test command (None with the exit code at the end)."""

    def __init__(self, line: str | None, returncode: int | None = None) -> None:
        super().__init__()
        self.line = line
        self.returncode = returncode
