"""The test panel: output of the configured test command, run only when the user asks."""

from __future__ import annotations

from textual.widgets import Log


class TestPanel(Log):
    DEFAULT_CSS = """
    TestPanel { height: 12; border-top: solid $accent; display: none; background: $surface; }
    TestPanel.-visible { display: block; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(max_lines=5000, **kwargs)
        self.command: str | None = None
        self.returncode: int | None = None
        self.output: list[str] = []

    def begin(self, command: str) -> None:
        self.clear()
        self.output = []
        self.command = command
        self.returncode = None
        self.write_line(f"$ {command}")
        self.add_class("-visible")

    def add(self, line: str) -> None:
        self.output.append(line)
        self.write_line(line)

    def finish(self, returncode: int) -> None:
        self.returncode = returncode
        verdict = "passed" if returncode == 0 else f"failed (exit {returncode})"
        self.write_line(f"── {verdict}" + ("; ctrl+f sends the failure to the model" if returncode else ""))

    @property
    def failed(self) -> bool:
        return bool(self.returncode)

    def failure_text(self, limit: int = 80) -> str:
        return "\n".join(self.output[-limit:])
