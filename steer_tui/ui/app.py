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
    import re
    from pathlib import Path
    from typing import Callable, Iterable

    from textual import on
    from textual.app import App, ComposeResult, SystemCommand
    from textual.screen import Screen

    from steer_tui.config import Settings
    from steer_tui.project.root import project_root
    from steer_tui.region import region_for_send
    from steer_tui.state import State
    from steer_tui.ui import gc_policy, keys
    from steer_tui.ui.answering import AnswerFlow
    from steer_tui.ui.conditions import applies
    from steer_tui.ui.event_applier import ANSWER_CHANGED, EventApplier
    from steer_tui.ui.file_watcher import FileWatcher
    from steer_tui.ui.frame_batch import FrameBatch
    from steer_tui.ui.keys import ACTIONS, help_sections  # noqa: F401 (ACTIONS: tests import it from here)
    from steer_tui.ui.messages import FileChangedOnDisk, TestOutput, TestsFinished
    from steer_tui.ui.open_files import OpenFile, ViewState, relative_label
    from steer_tui.ui.paint import paint_now
    from steer_tui.ui.project_files import ProjectFiles
    from steer_tui.ui.region_prewarm import RegionPrewarm
    from steer_tui.ui.review_keys import ReviewKeys
    from steer_tui.ui.send_queue import Queued
    from steer_tui.ui.sender import Sender
    from steer_tui.ui.tests_flow import TestsFlow
    from steer_tui.ui.themes import LoadedTheme, defaults_for, load_themes, pygments_style_for, set_initial_theme
    from steer_tui.ui.widgets.answer import AnswerPanel
    from steer_tui.ui.widgets.code_view import CodeView
    from steer_tui.ui.mention_suggester import MentionSuggester
    from steer_tui.ui.widgets.keybar import KeyBar
    from steer_tui.ui.widgets.prompt import Prompt
    from steer_tui.ui.widgets.status import StatusLine, backend_label
    from steer_tui.ui.widgets.test_panel import TestPanel
finally:
    gc.freeze()
    if _gc_was_enabled:
        gc.enable()

_PLACE = re.compile(r"^(.+):(\d+)$")  # a place the finder gives back: "path:line"


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
        self._open: dict[Path, OpenFile] = {}  # by resolved path
        self._current: OpenFile | None = None
        self._backend_owner: OpenFile | None = None  # the file whose session opened the shared backend
        self._backend_started: asyncio.Event | None = None
        self._themes: dict[str, LoadedTheme] = {}
        loaded, self._theme_problems = load_themes()
        for item in loaded:
            self._themes[item.theme.name] = item
        super().__init__()
        for item in loaded:
            self.register_theme(item.theme)
        self._unknown_theme = set_initial_theme(self, self.settings.theme or "dark")
        self._client = client
        self._session_factory = session_factory
        self._watch = watch
        self._mask_timings = mask_timings
        self._connect = connect
        self.session = None
        self.document = None
        # Session events are held and applied to the screen once per frame. The flush is looked up
        # at each frame: bench/pipeline.py wraps _apply_events on the instance.
        self._frames = FrameBatch(self, lambda: self._apply_events())
        self.applier = EventApplier(self)
        self.region_prewarm = RegionPrewarm(self)
        self._typing = None  # steer_tui.typing_prewarm.TypingPrewarmer of the session, made on the first key
        self.current_hunk: int | None = None
        self.view_mode = "file"  # or "diff", "raw": see steer_tui.ui.review_keys.VIEWS
        self.review_keys = ReviewKeys(self)
        self._watcher = FileWatcher(self)
        self.testing = TestsFlow(self)
        self.quitting = False
        self._cleanups: list[Callable] = []  # async callables run when the app closes
        # The answer is drawn with the session's events, once per frame.
        self.answer_flow = AnswerFlow(self, lambda: self._frames.add(ANSWER_CHANGED))
        self.sender = Sender(self)
        self.prompt_has_text = False

    def add_cleanup(self, fn: Callable) -> None:
        """Run `await fn()` when the app closes (after the session): e.g. a gateway a test started."""
        self._cleanups.append(fn)

    def connect_client(self, client) -> None:
        """Start the session on an already-connected client (tests, benchmarks, embedding)."""
        self._client = client
        self._connect = True
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
        self._code = CodeView(id="code")
        self._answer = AnswerPanel(id="answer")
        self._tests = TestPanel(id="tests")
        self._status = StatusLine(id="status", mask_timings=self._mask_timings)
        self._prompt = Prompt(id="prompt", suggester=MentionSuggester(self._project_paths, self._symbol_names))
        yield self._code
        yield self._answer
        yield self._tests
        yield self._status
        yield self._prompt
        yield KeyBar(id="keys")

    def _project_paths(self) -> list[str]:
        """The project's files for `@` completion (listed in the background the first time)."""
        if self.files.files is None and not self.files.listing:
            self.files.refresh()
        return self.files.files or []

    def _symbol_names(self) -> list[str]:
        """The names the project's index knows, for `@` completion; none until it is built."""
        context = getattr(self.session, "context", None)
        if context is None or not context.ready:
            return []
        return [s.name for s in context.index.all_symbols()]

    @property
    def code(self) -> CodeView:
        return self._code

    @property
    def status(self) -> StatusLine:
        return self._status

    @property
    def prompt(self) -> Prompt:
        return self._prompt

    @property
    def tests(self) -> TestPanel:
        return self._tests

    @property
    def answer(self) -> AnswerPanel:
        return self._answer

    def on_mount(self) -> None:
        if self._unknown_theme is not None:
            self.notify(f"unknown theme {self._unknown_theme!r}; using {self.theme}", severity="warning")
        for problem in self._theme_problems:
            self.notify(problem, severity="warning")
        self.status.backend = self.current_backend_label()
        self.status.connection = "connecting" if self._connect else "none"
        if self.path is not None:
            self._current = self._open_file_record(self.path)
            self._open_document()
        else:
            self._show_no_file()
        self.prompt.focus()
        if self._mask_timings:
            self.prompt.cursor_blink = False  # snapshots: no blink phase in the frame
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.watch(self.code, "cursor_line", lambda _line: self.region_prewarm.later(), init=False)
        if self.document is not None and self._connect:
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

    def _open_file_record(self, path: Path) -> OpenFile:
        key = path.resolve()
        record = self._open.get(key)
        if record is None:
            record = self._open[key] = OpenFile(path)
        self.status.file = relative_label(key, self.project_root)
        self.sub_title = self.status.file
        return record

    def _show_no_file(self) -> None:
        lines = ["", f"  No file is open in {self.project_root}.", "",
                 "  Ctrl+P finds a file of the project by name (type > first for the command palette).",
                 "  steer FILE opens one from the command line; a new name creates it on the first accepted edit."]
        self.code.set_document(lines, "")
        self.status.file = "no file"

    def _open_document(self) -> None:
        from steer_tui.files import Document, DocumentError

        try:
            # A path that does not exist yet is a new file: an empty buffer, created on accept.
            self.document = Document.open(self.path)
        except (DocumentError, OSError) as exc:
            self.notify(f"cannot open {exc}", severity="error", timeout=10)
            return
        if self._current is not None:
            self._current.document = self.document
        if self.document.is_new:
            self.notify(f"{self.path.name} is a new file: say what to write; accepting creates it", timeout=8)
            self.applier.show_extra()
        text = self.document.text
        self.applier.show_lines(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else [])

    def _start_session(self) -> None:
        """Start the shown file's session (in the "session" worker group), unless it has one."""
        record = self._current
        if record is None or record.document is None or record.session is not None or record.starting:
            return
        record.starting = True
        self.run_worker(self._run_session(record), group="session", exit_on_error=False)

    def _events_of(self, record: OpenFile) -> Callable:
        """The session's event callback: a file not shown keeps its events to itself (coming back
        redraws from its session), except what is said of the shared connection and its notices."""
        from steer_tui.events import ConnectionChanged, Notice

        add = self._frames.add

        def on_event(ev) -> None:
            if record is self._current or isinstance(ev, (ConnectionChanged, Notice)):
                add(ev)

        return on_event

    async def _run_session(self, record: OpenFile) -> None:
        from steer_tui.session import Session, SessionError

        factory = self._session_factory or Session
        client = self._client
        owner = self._backend_owner
        if client is None and owner is not None and owner is not record:
            # One backend connection for all the files: the first session's, once it is up.
            if self._backend_started is not None:
                await self._backend_started.wait()
            client = owner.session.client if owner.session is not None else None
        opens_backend = client is None
        if opens_backend:
            self._backend_owner = record
            self._backend_started = asyncio.Event()
        try:
            session = factory(record.document, self.settings, self._events_of(record), client=client)
            session.context = _project_context(record.document.path, self.settings)
        except Exception as exc:  # a bad setting: show it, keep the file usable
            record.starting = False
            if opens_backend:
                self._backend_started.set()
            self.status.connection = "error"
            self.notify(f"cannot start the session: {exc}", severity="error", timeout=10)
            return
        record.session = session
        record.starting = False
        if record is self._current:
            self.session = session
            self.applier.sync_code(force=True)
        try:
            await session.start()
        except SessionError as exc:
            self.status.connection = "error"
            self.status.detail = exc.code
            self.notify(f"no backend: {exc.message}", severity="error", timeout=15)
        except Exception as exc:
            self.status.connection = "error"
            self.notify(f"no backend: {exc}", severity="error", timeout=15)
        finally:
            if opens_backend:
                self._backend_started.set()
        self.refresh_bindings()

    # ----- session events: buffered, applied once per frame ---------------------------------

    def _apply_events(self) -> None:
        # Not `_flush`: Textual's App._flush(stderr=...) is what its print capture calls.
        # bench/pipeline.py times this method, wrapped on the instance.
        events = self._frames.take()
        if not self.screen_stack:
            return  # the app is closing (its screens are gone): a session event has nothing to show
        self.applier.apply(*events)

    def paint_now(self) -> None:
        """Draw what changed now instead of on the screen's next 60 Hz tick (Esc: see steer_tui.ui.paint)."""
        paint_now(self.screen, self.query_one(KeyBar), self.code)

    def flush_now(self) -> None:
        """Apply buffered events at once (Esc: the screen must be final within this frame)."""
        self._frames.cancel()
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
        prompt = self.prompt
        if text in ("/test", "/tests"):
            prompt.value = ""
            self.action_run_tests()
            return
        if text == "/help":
            prompt.value = ""
            self.action_help()
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
        if self.session is not None and not (self.asking is not None and self.asking.active):
            from steer_tui.typing_prewarm import TypingPrewarmer  # the engine reads the words as they are typed

            if self._typing is None or self._typing.session is not self.session:
                self._typing = TypingPrewarmer(self.session)
            self._typing.typed(event.value, lambda: self._typed_region(event.value))

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
        edit = self.answer_flow.take_as_edit()
        if edit is None:
            return
        self.refresh_bindings()
        await self.sender.send("edit", *edit)

    def action_close_answer(self) -> None:
        self.answer.close()
        self.refresh_bindings()

    def region_for_send(self, words: str = "") -> tuple[int, int] | None:
        """The lines the instruction `words` is about (see steer_tui.region.region_for_send); None: the whole file."""
        code = self.code
        path = str(self.path) if self.path else None  # the language of "this method" (steer_tui.lang)
        return region_for_send(code.lines, code.selection, code.cursor_line, code.cursor_placed, words, path)

    def _typed_region(self, words: str) -> tuple[int, int] | None:
        """The region the turn Enter would start with `words` has (Session.scoped), for the prewarm
        as they are typed; None: the turn takes it from the words."""
        region = self.region_for_send(words)
        return region if region is None or self.session is None else self.session.scoped(words, region)[1]

    def on_code_view_selection_changed(self, event: CodeView.SelectionChanged) -> None:
        self.region_prewarm.later()
        self.applier.show_extra()
        self.refresh_bindings()

    # ----- actions ------------------------------------------------------------------------------

    async def action_stop(self) -> None:
        asking = self.asking
        if asking is not None and asking.active:
            await asking.stop()
            self.flush_now()
            return
        session = self.session
        if session is None or session.state != State.GENERATING:
            return
        # No await before the paint: a yield here would let a regular paint of the
        # pre-Esc picture slip in first. The server-side cancel is awaited after.
        rest = session.stop_now()
        self.flush_now()
        self.paint_now()
        if rest is not None:
            await rest
        self.flush_now()

    def action_clear_selection(self) -> None:
        if self.code.clear_selection():
            return
        if self.answer.visible:
            self.action_close_answer()
        else:
            self.tests.remove_class("-visible")

    def action_accept_all(self) -> None:
        if self.session is not None:
            self.session.accept_all()
            self.flush_now()

    def action_reject_all(self) -> None:
        if self.session is not None:
            self.session.reject_all()
            self.flush_now()

    def action_next_hunk(self) -> None:
        self.review_keys.next()

    def action_prev_hunk(self) -> None:
        self.review_keys.prev()

    def action_accept_hunk(self) -> None:
        self.review_keys.accept()

    def action_reject_hunk(self) -> None:
        self.review_keys.reject()

    def action_undo(self) -> None:
        if self.session is not None:
            self.session.undo()
            self.flush_now()
            self.applier.after_state_change()

    def action_redo(self) -> None:
        if self.session is not None:
            self.session.redo()
            self.flush_now()
            self.applier.after_state_change()

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
        if self.session is not None:
            self.session.file_changed()
            self.flush_now()
        elif self.path is not None:
            self._open_document()

    # ----- the project: find a file, switch between the open files --------------------------------

    def action_find_file(self) -> None:
        from steer_tui.ui.screens.finder import FinderScreen  # not needed for the first frame

        if isinstance(self.screen, FinderScreen):
            return

        def chosen(rel: str | None) -> None:
            if rel is None:
                return
            place = _PLACE.match(rel)
            if place is not None and not (self.project_root / rel).is_file():
                self.call_later(self.open_place, place.group(1), int(place.group(2)))
            else:
                self.call_later(self.open_file, self.project_root / rel)

        self.push_screen(FinderScreen(self.files, references=self._cited_places()), chosen)

    def _cited_places(self) -> list[tuple[str, int]]:
        """The project's `path:line` places the answer on screen cites (the finder lists them first)."""
        from steer_tui.project.where import references

        answer = self.asking.answer if self.asking is not None and self.answer.visible else None
        if answer is None or not answer.answer_text:
            return []
        cited = []
        for path, line in references(answer.answer_text):
            full = (self.project_root / path) if not Path(path).is_absolute() else Path(path)
            if full.is_file():
                cited.append((relative_label(full.resolve(), self.project_root), line))
        return cited

    async def open_place(self, path: str, line: int) -> None:
        """Open `path` (relative to the project root) with the cursor on `line` (1-based)."""
        await self.open_file(path)
        current = self._current
        if current is not None and current.path.resolve() == (self.project_root / path).resolve() and self.code.lines:
            self.code.action_move_to(max(0, min(line - 1, len(self.code.lines) - 1)))

    async def open_file(self, path: str | Path) -> None:
        """Show `path` (relative: to the project root), opening it if it is not open yet. The file
        shown keeps its session as it is (a proposal under review waits there); a turn it is writing
        or an answer streaming is asked about first: stop it and switch, or stay."""
        path = Path(path)
        if not path.is_absolute():
            path = self.project_root / path
        current = self._current
        if current is not None and current.path.resolve() == path.resolve():
            return
        generating = self.session_state() == State.GENERATING
        if generating or (self.asking is not None and self.asking.active):
            from steer_tui.ui.screens.confirm import ConfirmScreen

            what = "An edit is being written" if generating else "An answer is being written"

            def answer(ok: bool | None) -> None:
                if ok:
                    self.call_later(self._stop_and_switch, path)

            self.push_screen(ConfirmScreen(f"{what} in {self.status.file}.\nStop it (what is complete stays as "
                                           f"the proposal) and open {relative_label(path.resolve(), self.project_root)}?",
                                           yes="Stop and open", no="Stay"), answer)
            return
        self._switch_to(path)

    async def _stop_and_switch(self, path: Path) -> None:
        await self.action_stop()
        self._switch_to(path)

    def _switch_to(self, path: Path) -> None:
        self.flush_now()  # what the file shown has pending is drawn before it goes
        if self.queued is not None:
            self.sender.queue.take_back("another file was opened")
        old = self._current
        code = self.code
        if old is not None:
            old.view = ViewState.of(code, self.view_mode, self.current_hunk)
        if self.answer.visible:
            self.answer.close()  # the answer was about the other file
        record = self._open_file_record(path)
        self._current = record
        self.path = record.path
        self.document = record.document
        self.session = record.session
        self._typing = None
        view = record.view
        self.view_mode = view.view_mode
        self.current_hunk = view.current_hunk
        code.set_source(None)
        code.anchor = None
        if record.document is None:
            self._open_document()
            if self.document is None:
                self._show_no_file()
                self.status.file = relative_label(path.resolve(), self.project_root)
                self.refresh_bindings()
                return
        if self.session is not None:
            # Not watched while it was not shown: it may have changed on disk meanwhile.
            if self.session.file_changed():
                self.notify(f"{self.path.name} changed on disk; reloaded", timeout=4)
            self.flush_now()
            self.applier.sync_code(force=True)
        elif self._connect:
            self._start_session()
        code.cursor_line = min(view.cursor_line, max(0, len(code.lines) - 1))
        code.anchor = view.anchor if view.anchor is not None and view.anchor < len(code.lines) else None
        code.cursor_placed = view.cursor_placed
        code.follow = view.follow
        code.growing = self.session_state() == State.GENERATING
        code.invalidate()
        self.call_after_refresh(code.scroll_back_to, *view.scroll)
        status = self.status
        status.state = self.session_state()
        status.set_numbers(None, None, None)
        self.applier.after_state_change()
        if self._watch:
            self._watcher.start(self.path)

    @property
    def open_files(self) -> list[OpenFile]:
        """The files opened so far, in the order they were first opened."""
        return list(self._open.values())

    def action_context(self) -> None:
        """Show the context the last request (or prewarm) carried; what the user drops stays out."""
        from steer_tui.ui.screens.context import ContextScreen

        session = self.session
        context = session.context if session is not None else None
        if context is None:
            self.push_screen(ContextScreen([], "Requests carry no context from other files: it is off "
                                           "(config: context = true turns it on)."))
            return
        note = "" if context.ready else "The project is still being indexed: requests carry no context yet."

        def dropped(keys: list[str] | None) -> None:
            for key in keys or []:
                context.drop(key)
            if keys:
                self.notify(f"left out of the next requests: {', '.join(keys)}", timeout=4)
                self.applier.show_extra()
                if session.state == State.IDLE:
                    session.prewarm()  # the context changed: the engine evaluates the new prefix now

        self.push_screen(ContextScreen(list(context.last), note), dropped)

    def action_help(self) -> None:
        from steer_tui.ui.screens.help import HelpScreen  # not needed for the first frame

        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return help_sections(self.BINDINGS)

    async def action_quit(self) -> None:
        pending = [r for r in self._open.values() if r.session is not None and r.session.has_proposal]
        if pending and not self.quitting:
            from steer_tui.ui.screens.confirm import ConfirmScreen

            def answer(ok: bool | None) -> None:
                if ok:
                    self.quitting = True
                    self.exit()

            if pending == [self._current]:
                question = "A proposal is pending and has not been accepted.\nQuit anyway and drop it?"
            else:
                names = ", ".join(relative_label(r.path.resolve(), self.project_root) for r in pending)
                question = f"Proposals are pending and have not been accepted: {names}.\nQuit anyway and drop them?"
            self.push_screen(ConfirmScreen(question, yes="Quit", no="Stay"), answer)
            return
        self.exit()

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
        if self.path is None or Path(message.path) != self.path.resolve():
            return  # said of a file no longer shown: it is checked again when shown
        session = self.session
        if session is None:
            self._open_document()
            return
        if session.file_changed():  # False for our own writes: the disk equals the Document
            self.notify(f"{self.path.name} changed on disk; reloaded", timeout=4)
        self.flush_now()
        self.applier.after_state_change()

    async def on_unmount(self) -> None:
        self._watcher.stop()
        gc_policy.restore()  # a process-wide setting: never leave it changed
        # Every file's session; the one that opened the shared backend last (closing it closes that).
        owner = self._backend_owner.session if self._backend_owner is not None else None
        sessions = [r.session for r in self._open.values() if r.session is not None and r.session is not owner]
        if self.session is not None and self.session not in sessions and self.session is not owner:
            sessions.append(self.session)
        for session in [*sessions, *([owner] if owner is not None else [])]:
            try:
                await asyncio.wait_for(session.close(), 3)
            except Exception:
                pass
        for fn in self._cleanups:
            try:
                await asyncio.wait_for(fn(), 5)
            except Exception:
                pass


def _project_context(path, settings):
    """The open file's project context (steer_tui/project/session_context.py): the project's one
    index, shared by the files open in it, built in the background and kept current."""
    from steer_tui.project.session_context import for_file

    return for_file(path, settings, watch=True, shared=True) if path is not None else None


def make_app(path: str | Path | None, settings: Settings | None = None, **kwargs) -> SteerApp:
    """The one way to build the app (CLI, tests, benchmark): `path` a file (opened within its
    project), a folder or None (the project there, the finder open). kwargs: see SteerApp."""
    return SteerApp(path, settings, **kwargs)

