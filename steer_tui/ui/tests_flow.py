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
        self._confirmed: str | None = None  # the found command the user said yes to, for this session

    @property
    def running(self) -> bool:
        return self._runner.running

    def run(self) -> None:
        """Run the test command in the project's root (once at a time); the panel shows its output.
        With none configured, the one the project's files name is offered, and runs only if the user
        says yes (then again on each Ctrl+T of this session)."""
        app = self._app
        command = app.settings.test_command or self._confirmed
        if not command:
            self._offer()
            return
        if self._runner.running:
            return
        app.tests.begin(command)
        self._runner.start(command, str(app.project_root))
        app.refresh_bindings()

    def _offer(self) -> None:
        from steer_tui.project.test_command import detect

        app = self._app
        found = detect(app.project_root)
        if found is None:
            app.notify("no test command configured: set test_command in config.toml or STEER_TEST_COMMAND",
                       severity="warning", timeout=6)
            return
        from steer_tui.ui.screens.confirm import ConfirmScreen

        def answer(ok: bool | None) -> None:
            if ok:
                self._confirmed = found.command
                self.run()

        app.push_screen(ConfirmScreen(f"No test command is configured. Run `{found.command}` in {app.project_root}?\n"
                                      f"({found.because}; test_command in config.toml sets one for good)",
                                      yes="Run", no="Cancel"), answer)

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
