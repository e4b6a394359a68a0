"""The test-command runner: a real subprocess, its lines and exit code; posted as messages to a host app."""

from __future__ import annotations

import sys

from textual import on
from textual.app import App

from steer_tui.ui.messages import TestOutput, TestsFinished
from steer_tui.ui.test_runner import TestRunner, run_command

PY = sys.executable


async def test_run_command_gives_every_line_stderr_merged_and_the_exit_code(tmp_path):
    (tmp_path / "t.py").write_text("import sys\nprint('one')\nprint('two', file=sys.stderr, flush=True)\n"
                                  "print('caf\\u00e9')\nsys.exit(3)\n", encoding="utf-8")
    lines: list[str] = []
    code = await run_command(f'"{PY}" -u t.py', str(tmp_path), lines.append)
    assert code == 3
    assert lines == ["one", "two", "café"]


async def test_run_command_runs_in_the_given_directory(tmp_path):
    (tmp_path / "here.txt").write_text("x")
    lines: list[str] = []
    assert await run_command("ls", str(tmp_path), lines.append) == 0
    assert lines == ["here.txt"]


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.runner = TestRunner(self)
        self.got: list[str] = []
        self.codes: list[int] = []

    @on(TestOutput)
    def line(self, message: TestOutput) -> None:
        self.got.append(message.line)

    @on(TestsFinished)
    def done(self, message: TestsFinished) -> None:
        self.runner.finished()
        self.codes.append(message.returncode)


async def test_runner_posts_lines_then_the_end_and_is_running_until_handled(tmp_path):
    app = Host()
    async with app.run_test() as pilot:
        app.runner.start("echo a; echo b; exit 1", str(tmp_path))
        assert app.runner.running
        for _ in range(200):
            if app.codes:
                break
            await pilot.pause(0.02)
        assert app.got == ["a", "b"] and app.codes == [1]
        assert not app.runner.running


async def test_runner_reports_a_command_that_cannot_start(tmp_path):
    app = Host()
    async with app.run_test() as pilot:
        app.runner.start("true", str(tmp_path / "no such dir"))
        for _ in range(200):
            if app.codes:
                break
            await pilot.pause(0.02)
        assert app.codes == [-1]
        assert len(app.got) == 1 and app.got[0].startswith("cannot run 'true':")
