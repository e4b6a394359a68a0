"""Messages the app's background workers post to the screen (file watcher, test runner)."""

from __future__ import annotations

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
