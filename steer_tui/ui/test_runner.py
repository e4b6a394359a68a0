"""The test command: run in a subprocess only when asked, its output posted to the app line by line."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Callable

from textual.dom import DOMNode

from steer_tui.ui.messages import TestOutput, TestsFinished


async def run_command(command: str, cwd: str, on_line: Callable[[str], None]) -> int:
    """Run `command` in a shell in `cwd`, stdout and stderr merged; each line to `on_line`; the exit code."""
    proc = await asyncio.create_subprocess_shell(
        command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    async for raw in proc.stdout:
        on_line(raw.decode("utf-8", "replace").rstrip("\n"))
    return await proc.wait()


class TestRunner:
    """One run of the test command at a time, in `host`'s "tests" worker group; posts TestOutput, then TestsFinished."""

    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, host: DOMNode) -> None:
        self._host = host
        self.running = False

    def start(self, command: str, cwd: str) -> None:
        """Start the command (the caller checks `running`), which stays True until TestsFinished is handled."""
        self.running = True
        self._host.run_worker(partial(self._run, command, cwd), name="tests", group="tests", exclusive=True,
                              exit_on_error=False)

    def finished(self) -> None:
        self.running = False

    async def _run(self, command: str, cwd: str) -> None:
        post = self._host.post_message
        code = -1
        try:
            code = await run_command(command, cwd, lambda line: post(TestOutput(line)))
        except Exception as exc:
            post(TestOutput(f"cannot run {command!r}: {exc}"))
        post(TestsFinished(code))
