"""The test command in the app: run only when asked, its output in the test panel, a failure sent to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.ui.test_runner import TestRunner

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost


class TestsFlow:
    """Starts the configured command on a TestRunner, feeds the test panel, and turns its failure into an instruction."""

    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, app: SteerHost) -> None:
        self._app = app
        self._runner = TestRunner(app)

    @property
    def running(self) -> bool:
        return self._runner.running

    def run(self) -> None:
        """Run the configured test command in the file's folder (once at a time); the panel shows its output."""
        app = self._app
        command = app.settings.test_command
        if not command:
            app.notify("no test command configured: set test_command in config.toml or STEER_TEST_COMMAND",
                       severity="warning", timeout=6)
            return
        if self._runner.running:
            return
        app.tests.begin(command)
        self._runner.start(command, str(app.path.resolve().parent if app.path is not None else app.project_root))
        app.refresh_bindings()

    def finished(self, returncode: int) -> None:
        app = self._app
        self._runner.finished()
        app.tests.finish(returncode)
        app.refresh_bindings()

    async def send_failure(self) -> None:
        """Send the failed command's output to the model as an edit of the whole file."""
        app = self._app
        session = app.session
        tests = app.tests
        if session is None or not tests.failed:
            return
        instruction = (f"The test command `{tests.command}` failed with this output:\n"
                       f"```\n{tests.failure_text()}\n```\nFix the code in this file so the tests pass.")
        app.code.follow = True
        await session.send(instruction, None)
