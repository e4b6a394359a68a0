"""The steer app: file view, prompt, status line and footer over the open file's Session, the
project's other files a Ctrl+P away; `make_app` builds it."""

from __future__ import annotations

import gc

# Start-up: importing Textual creates ~100k objects that live as long as the app, and the cyclic
# collector walked them over and over while they loaded. No collections while this module's
# imports run; then they are frozen (kept out of every later collection: the full ones
# during a stream get cheaper too) and collection is on again.
_gc_was_enabled = gc.isenabled()
gc.disable()
try:
    import asyncio
    from pathlib import Path
    from typing import Callable, Iterable

    from textual import on
    from textual.app import App, ComposeResult, SystemCommand
    from textual.screen import Screen

    from steer_tui.config import Settings
    from steer_tui.project.root import project_root
    from steer_tui.region import region_for_send
    from steer_tui.state import State
    from steer_tui.ui import gc_policy, keys, stopping
    from steer_tui.ui.answering import AnswerFlow
    from steer_tui.ui.conditions import applies
    from steer_tui.ui.event_applier import ANSWER_CHANGED, EventApplier
    from steer_tui.ui.file_watcher import FileWatcher
    from steer_tui.ui.frame_batch import FrameBatch
    from steer_tui.ui.keys import ACTIONS, help_sections  # noqa: F401 (ACTIONS: tests import it from here)
    from steer_tui.ui.lanes import Lanes
    from steer_tui.ui.messages import (BackendConnectionChanged, FileChangedOnDisk, FileShown, LanesChanged, SessionIdle,
                                      TestOutput, TestsFinished)
    from steer_tui.ui.open_files import OpenFile
    from steer_tui.ui.paint import paint_now
    from steer_tui.ui.project_files import ProjectFiles
    from steer_tui.ui.region_prewarm import RegionPrewarm
    from steer_tui.ui.review_keys import ReviewKeys
    from steer_tui.ui.send_queue import Queued
    from steer_tui.ui.sender import Sender
    from steer_tui.ui.tests_flow import TestsFlow
    from steer_tui.ui.themes import LoadedTheme, defaults_for, load_themes, pygments_style_for, set_initial_theme
    from steer_tui.ui.workspace import Workspace
    from steer_tui.ui.widgets.answer import AnswerPanel
    from steer_tui.ui.widgets.code_view import CodeView
    from steer_tui.ui.mention_suggester import MentionSuggester
    from steer_tui.ui.widgets.keybar import KeyBar
    from steer_tui.ui.widgets.lane_bar import LaneBar
    from steer_tui.ui.widgets.prompt import Prompt
    from steer_tui.ui.widgets.status import StatusLine, backend_label
    from steer_tui.ui.widgets.test_panel import TestPanel
finally:
    gc.freeze()
    if _gc_was_enabled:
        gc.enable()


class SteerApp(App):
    """A project and its open files, one Session each; the file shown is `path`, its session
    `session`. Session events are buffered and applied once per frame."""

    TITLE = "steer"
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = keys.PALETTE_KEY  # Ctrl+P finds a file; '>' in the finder is the palette
    FINDER_KEY = keys.FINDER_KEY
    CSS = """
    Screen { layout: vertical; background: $code-bg; }
    CodeView { height: 1fr; }
    Prompt { dock: none; height: 3; border: tall $primary 40%; background: $surface; }
    Prompt:focus { border: tall $primary; }
    """
    BINDINGS = keys.BINDINGS

    def __init__(
        self,
        path: str | Path | None,
        settings: Settings | None = None,
        *,
        client=None,
        session_factory: Callable | None = None,
        watch: bool = True,
        mask_timings: bool = False,
        connect: bool = True,
        project: str | Path | None = None,
    ) -> None:
        self.settings = settings or Settings()
        # A folder (None: the current one) opens the project with no file; a file opens within its project.
        target = Path(path) if path is not None else Path(".")
        self.path: Path | None = None if target.is_dir() else target
        self.project_root = Path(project).resolve() if project is not None else project_root(target)
        self.files = ProjectFiles(self, self.project_root)
        self.workspace = Workspace(self)  # the open files, the one shown, switching
        loaded, self._theme_problems = load_themes()
        self._themes: dict[str, LoadedTheme] = {item.theme.name: item for item in loaded}
        super().__init__()
        for item in loaded:
            self.register_theme(item.theme)
        self._unknown_theme = set_initial_theme(self, self.settings.theme or "dark")
        self.given_client = client
        self.session_factory = session_factory
        self._watch = watch
        self._mask_timings = mask_timings
        self.connects = connect
        self.session = None
        self.document = None
        # Session events are held and applied to the screen once per frame. The flush is looked up
        # at each frame: bench/pipeline.py wraps _apply_events on the instance.
        self.frames = FrameBatch(self, lambda: self._apply_events())
        self.applier = EventApplier(self)
        self.region_prewarm = RegionPrewarm(self)
        self.typing_prewarmer = None  # steer_tui.typing_prewarm.TypingPrewarmer of the session, made on the first key
        self.current_hunk: int | None = None
        self.view_mode = "file"  # or "diff", "raw": see steer_tui.ui.review_keys.VIEWS
        self.review_keys = ReviewKeys(self)
        self._watcher = FileWatcher(self)
        self.testing = TestsFlow(self)
        self.quitting = False
        self._cleanups: list[Callable] = []  # async callables run when the app closes
        # The answer is drawn with the session's events, once per frame.
        self.answer_flow = AnswerFlow(self, lambda: self.frames.add(ANSWER_CHANGED))
        self.sender = Sender(self)
        self.lanes = Lanes(self)  # alternatives of a request, one lane shown at a time
        self.prompt_has_text = False

    def add_cleanup(self, fn: Callable) -> None:
        """Run `await fn()` when the app closes (after the session): e.g. a gateway a test started."""
        self._cleanups.append(fn)

    def connect_client(self, client) -> None:
        """Start the session on an already-connected client (tests, benchmarks, embedding)."""
        self.given_client = client
        self.connects = True
        self.status.connection = "connecting"
        self._start_session()

    # ----- set-up --------------------------------------------------------------------------

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Built-in Textual themes lack our diff variables: give them defaults for their brightness.
        try:
            dark = self.current_theme.dark
        except Exception:
            dark = True
        return defaults_for(dark)

    def pygments_style_for(self, theme_name: str) -> str:
        return pygments_style_for(self, self._themes, theme_name)

    def compose(self) -> ComposeResult:
        # Kept as attributes: the per-frame flush reads them per event, and a DOM query per
        # access cost ~4 ms a frame; they also stay reachable while a modal screen is on top.
        self.code: CodeView = CodeView(id="code")
        self.lane_bar = LaneBar(id="lanes")
        self.answer: AnswerPanel = AnswerPanel(id="answer")
        self.tests: TestPanel = TestPanel(id="tests")
        self.status: StatusLine = StatusLine(id="status", mask_timings=self._mask_timings)
        self.prompt: Prompt = Prompt(id="prompt", suggester=MentionSuggester.of(self))
        yield from (self.code, self.lane_bar, self.answer, self.tests, self.status, self.prompt)
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        if self._unknown_theme is not None:
            self.notify(f"unknown theme {self._unknown_theme!r}; using {self.theme}", severity="warning")
        for problem in self._theme_problems:
            self.notify(problem, severity="warning")
        self.status.backend = self.current_backend_label()
        self.status.connection = "connecting" if self.connects else "none"
        if self.path is not None:
            self.workspace.current = self.workspace.record_for(self.path)
            self.workspace.open_document()
        else:
            self.workspace.show_no_file()
        self.prompt.focus()
        if self._mask_timings:
            self.prompt.cursor_blink = False  # snapshots: no blink phase in the frame
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.watch(self.code, "cursor_line", lambda _line: self.region_prewarm.later(), init=False)
        if self.document is not None and self.connects:
            self._start_session()
        if self.document is not None and self._watch:
            self._watcher.start(self.path)
        if self.path is None:
            self.action_find_file()
        else:
            self.files.refresh()  # listed before the first Ctrl+P (a big tree takes a second or so)

    def current_backend_label(self) -> str:
        server_model = self.session.server_model if self.session is not None else None
        return backend_label(self.settings.backend, self.settings.model, server_model)

    def _start_session(self) -> None:
        """Start the shown file's session, unless it has one (workspace.start_session)."""
        self.workspace.start_session()

    # ----- session events: buffered, applied once per frame ---------------------------------

    def _apply_events(self) -> None:
        # Not `_flush`: Textual's App._flush(stderr=...) is what its print capture calls.
        # bench/pipeline.py times this method, wrapped on the instance.
        events = self.frames.take()
        if not self.screen_stack:
            return  # the app is closing (its screens are gone): a session event has nothing to show
        self.applier.apply(*events)

    def paint_now(self) -> None:
        """Draw what changed now instead of on the screen's next 60 Hz tick (Esc: see steer_tui.ui.paint)."""
        paint_now(self.screen, self.query_one(KeyBar), self.code)

    def flush_now(self) -> None:
        """Apply buffered events at once (Esc: the screen must be final within this frame)."""
        self.frames.cancel()
        self._apply_events()

    # ----- what applies now -------------------------------------------------------------------

    def session_state(self) -> str:
        return self.session.state if self.session is not None else State.IDLE

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return applies(self, action)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from keys.palette_commands(self, lambda action: applies(self, action, beneath=True))

    # ----- prompt: send or redirect ---------------------------------------------------------------

    async def on_input_submitted(self, event: Prompt.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        commands = {"/test": self.action_run_tests, "/tests": self.action_run_tests, "/help": self.action_help}
        if text in commands:
            self.prompt.value = ""
            commands[text]()
            return
        await self.sender.submit(text)

    def on_input_changed(self, event: Prompt.Changed) -> None:
        # Ask (Ctrl+K) applies to words in the prompt: the key bar shows it once there are some.
        if event.input is not self.prompt:
            return  # the command palette's input
        has = bool(event.value.strip())
        if has != self.prompt_has_text:
            self.prompt_has_text = has
            self.refresh_bindings()
        self.region_prewarm.typed(event.value)  # the engine reads the words as they are typed

    @property
    def queued(self) -> Queued | None:
        """(kind "edit" | "ask", words, region): sent the moment the backend is ready. Nothing typed is lost."""
        return self.sender.queued

    def action_take_back(self) -> None:
        self.sender.queue.take_back()

    # ----- questions: a prose answer, the file untouched ----------------------------------------

    @property
    def asking(self):
        """The steer_tui.ask.Asking being (or last) answered; None before the first question."""
        return self.answer_flow.asking

    async def action_ask(self) -> None:
        text = self.prompt.value.strip()
        if text:
            await self.sender.submit(text, ask=True)

    async def action_do_it(self) -> None:
        await self.answer_flow.do_it()

    def action_close_answer(self) -> None:
        self.answer.close()
        self.refresh_bindings()

    def region_for_send(self, words: str = "") -> tuple[int, int] | None:
        """The lines the instruction `words` is about (see steer_tui.region.region_for_send); None: the whole file."""
        code = self.code
        path = str(self.path) if self.path else None  # the language of "this method" (steer_tui.lang)
        return region_for_send(code.lines, code.selection, code.cursor_line, code.cursor_placed, words, path)

    def on_code_view_selection_changed(self, event: CodeView.SelectionChanged) -> None:
        self.region_prewarm.later()
        self.applier.show_extra()
        self.refresh_bindings()

    @on(SessionIdle)
    def _session_idle(self, message: SessionIdle) -> None:
        self.region_prewarm.later()

    @on(BackendConnectionChanged)
    def _connection_changed(self, message: BackendConnectionChanged) -> None:
        self.sender.kick()  # what was typed while it connected goes now, or comes back if it failed
        if message.state == "ready":
            self.region_prewarm.later()  # a cursor placed while the model was loading

    # ----- actions ------------------------------------------------------------------------------

    async def action_stop(self) -> None:
        await stopping.stop(self)  # Esc

    def action_clear_selection(self) -> None:
        if self.code.clear_selection():
            return
        if self.answer.visible:
            self.action_close_answer()
        else:
            self.tests.remove_class("-visible")

    def action_accept_all(self) -> None:
        self.review_keys.accept_all()

    def action_reject_all(self) -> None:
        self.review_keys.reject_all()

    def action_next_hunk(self) -> None:
        self.review_keys.next()

    def action_prev_hunk(self) -> None:
        self.review_keys.prev()

    def action_accept_hunk(self) -> None:
        self.review_keys.accept()

    def action_reject_hunk(self) -> None:
        self.review_keys.reject()

    def action_undo(self) -> None:
        self.review_keys.undo()

    def action_redo(self) -> None:
        self.review_keys.undo(redo=True)

    def action_toggle_view(self) -> None:
        self.review_keys.toggle_view()

    def action_follow(self) -> None:
        self.code.follow = True
        live = self.session.live if self.session else None
        if live is not None:
            self.code.follow_row(live.cursor_row)

    def action_focus_code(self) -> None:
        if self.focused is self.code:
            self.prompt.focus()
        else:
            self.code.focus()

    def action_reload(self) -> None:
        self.workspace.reload()

    # ----- the project: find a file, switch between the open files --------------------------------

    def action_find_file(self) -> None:
        self.workspace.find_file()

    async def open_file(self, path: str | Path) -> None:
        """Show `path` (relative: to the project root); see Workspace.open_file."""
        await self.workspace.open_file(path)

    @property
    def open_files(self) -> list[OpenFile]:
        return self.workspace.open_files

    def action_context(self) -> None:
        from steer_tui.ui.screens.context import show_context

        show_context(self)

    def action_help(self) -> None:
        from steer_tui.ui.screens.help import HelpScreen  # not needed for the first frame

        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return help_sections(self.BINDINGS)

    async def action_quit(self) -> None:
        self.workspace.quit()

    # ----- alternatives: lanes of one request (steer_tui.ui.lanes) --------------------------------

    def action_alternatives(self) -> None:
        self.lanes.ask()

    def action_lane(self, step: int) -> None:
        self.lanes.step(step)

    @on(LanesChanged)
    def _lanes_changed(self, message: LanesChanged | None = None) -> None:
        self.lane_bar.show(self.lanes.rows())
        self.refresh_bindings()

    # ----- tests: only when asked ------------------------------------------------------------------

    def action_toggle_tests(self) -> None:
        self.tests.toggle_class("-visible")

    def action_run_tests(self) -> None:
        self.testing.run()

    @on(TestOutput)
    def _test_line(self, message: TestOutput) -> None:
        self.tests.add(message.line)

    @on(TestsFinished)
    def _tests_finished(self, message: TestsFinished) -> None:
        self.testing.finished(message.returncode)

    async def action_fix_tests(self) -> None:
        await self.testing.send_failure()

    # ----- the file on disk ----------------------------------------------------------------------

    @on(FileChangedOnDisk)
    def _file_changed(self, message: FileChangedOnDisk) -> None:
        self.workspace.changed_on_disk(Path(message.path))

    @on(FileShown)
    def _file_shown(self, message: FileShown) -> None:
        self._lanes_changed()  # the lanes of the file shown, if it has any
        if self._watch:
            self._watcher.start(message.path)

    async def on_unmount(self) -> None:
        self._watcher.stop()
        gc_policy.restore()  # a process-wide setting: never leave it changed
        await self.workspace.close_sessions()
        for fn in self._cleanups:
            try:
                await asyncio.wait_for(fn(), 5)
            except Exception:
                pass


def make_app(path: str | Path | None, settings: Settings | None = None, **kwargs) -> SteerApp:
    """The one way to build the app (CLI, tests, benchmark): `path` a file (opened within its
    project), a folder or None (the project there, the finder open). kwargs: see SteerApp."""
    return SteerApp(path, settings, **kwargs)

