"""The steer app: file view, prompt, status line and footer over one Session; `make_app` builds it."""

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
    import os
    import time
    from pathlib import Path
    from typing import Callable, Iterable

    from textual import work
    from textual.app import App, ComposeResult, SystemCommand
    from textual.binding import Binding
    from textual.screen import Screen

    from app.config import Settings
    from app.ui import gc_policy
    from app.ui.messages import FileChangedOnDisk, TestOutput
    from app.ui.themes import LoadedTheme, defaults_for, load_themes
    from app.ui.widgets.answer import AnswerPanel
    from app.ui.widgets.code_view import CodeView
    from app.ui.widgets.keybar import KeyBar
    from app.ui.widgets.prompt import Prompt
    from app.ui.widgets.rows import TextRows
    from app.ui.widgets.status import StatusLine
    from app.ui.widgets.test_panel import TestPanel
finally:
    gc.freeze()
    if _gc_was_enabled:
        gc.enable()

_ANSWER_CHANGED = object()  # in the event inbox: the answer grew or ended
FRAME_S = 1 / 60  # session events are applied to the screen at most once per frame
STATS_S = 0.25  # the status line's numbers change at most this often while streaming
IDLE_GC_S = 1.0  # the full garbage collection postponed during a stream runs this long after it
SURROUNDINGS_MAX = 200  # lines of the cursor's enclosing block sent as the region
REGION_PREWARM_S = 0.4  # the cursor rests this long in a block: prewarm it as the next edit's region

# (action, palette title, help text). Every action is in the palette and on the help screen.
ACTIONS: list[tuple[str, str, str]] = [
    ("stop", "Stop generating", "Stop the answer now; complete blocks stay as the proposal"),
    ("take_back", "Take back the queued instruction",
     "An instruction waiting for the backend goes back into the prompt, unsent"),
    ("ask", "Ask about the code", "Ask the prompt's words as a question (or start them with ?): a prose answer "
     "in a panel about the selection or the block at the cursor; the file does not change"),
    ("do_it", "Do it", "Turn the answer into an edit, with the answer as its plan"),
    ("close_answer", "Close the answer", "Hide the answer panel"),
    ("accept_all", "Accept all", "Write every pending hunk to the file"),
    ("reject_all", "Reject all", "Drop the pending proposal"),
    ("next_hunk", "Next hunk", "Move to the next hunk of the proposal"),
    ("prev_hunk", "Previous hunk", "Move to the previous hunk of the proposal"),
    ("accept_hunk", "Accept hunk", "Write the current hunk only"),
    ("reject_hunk", "Reject hunk", "Drop the current hunk only"),
    ("undo", "Undo", "Undo the last accepted edit"),
    ("redo", "Redo", "Redo the last undone edit"),
    ("toggle_view", "Toggle view", "Live diff / unified diff / raw model text"),
    ("run_tests", "Run tests", "Run the configured test command (only now, only when asked)"),
    ("fix_tests", "Send test failure", "Send the failed test output to the model"),
    ("toggle_tests", "Show/hide test panel", "Show or hide the test output panel"),
    ("focus_code", "Focus file view", "Move the keyboard focus between the prompt and the file"),
    ("follow", "Follow the edit", "Scroll back to the line being written and keep following it"),
    ("clear_selection", "Clear selection", "Forget the selection (the next edit uses the cursor's surroundings)"),
    ("reload", "Reload the file", "Read the file from disk again"),
    ("help", "Help", "Show every key"),
    ("quit", "Quit", "Leave steer (asks first when a proposal is pending)"),
]


class SteerApp(App):
    """One file, one session. Session events are buffered and applied once per frame."""

    TITLE = "steer"
    ENABLE_COMMAND_PALETTE = True
    CSS = """
    Screen { layout: vertical; background: $code-bg; }
    CodeView { height: 1fr; }
    Prompt { dock: none; height: 3; border: tall $primary 40%; background: $surface; }
    Prompt:focus { border: tall $primary; }
    """
    BINDINGS = [
        Binding("escape", "take_back", "Take back", priority=True),
        Binding("escape", "stop", "Stop", priority=True),
        Binding("ctrl+k", "ask", "Ask", priority=True),
        Binding("ctrl+d", "do_it", "Do it", priority=True),
        Binding("ctrl+y", "accept_all", "Accept all", priority=True),
        Binding("ctrl+n", "reject_all", "Reject all", priority=True),
        Binding("alt+down", "next_hunk", "Next hunk", priority=True),
        Binding("alt+up", "prev_hunk", "Prev hunk", priority=True),
        Binding("alt+y", "accept_hunk", "Accept hunk", priority=True),
        Binding("alt+n", "reject_hunk", "Reject hunk", priority=True),
        Binding("ctrl+z", "undo", "Undo", priority=True),
        Binding("ctrl+r", "redo", "Redo", priority=True),
        Binding("ctrl+o", "toggle_view", "View", priority=True),
        Binding("ctrl+t", "run_tests", "Tests", priority=True),
        Binding("ctrl+f", "fix_tests", "Send failure", priority=True),
        Binding("ctrl+g", "toggle_tests", "Test panel", show=False, priority=True),
        Binding("ctrl+l", "follow", "Follow", show=False, priority=True),
        Binding("escape", "clear_selection", "Clear selection", show=False),
        Binding("f1", "help", "Help", priority=True),
        Binding("tab", "focus_code", "File/prompt", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        path: str | Path,
        settings: Settings | None = None,
        *,
        client=None,
        session_factory: Callable | None = None,
        watch: bool = True,
        mask_timings: bool = False,
        connect: bool = True,
    ) -> None:
        self.settings = settings or Settings()
        self.path = Path(path)
        self._themes: dict[str, LoadedTheme] = {}
        loaded, self._theme_problems = load_themes()
        for item in loaded:
            self._themes[item.theme.name] = item
        super().__init__()
        for item in loaded:
            self.register_theme(item.theme)
        self._unknown_theme: str | None = None
        self._choose_theme(self.settings.theme or "dark")
        self._client = client
        self._session_factory = session_factory
        self._watch = watch
        self._mask_timings = mask_timings
        self._connect = connect
        self.session = None
        self.document = None
        self._inbox: list = []
        self._flush_timer = None
        self._last_flush = 0.0
        self._stats_shown = 0.0
        self._gc_timer = None
        self._region_timer = None
        self._typing = None  # app.typing_prewarm.TypingPrewarmer of the session, made on the first key
        self._drawn_version = -1
        self._lines_id = None
        self.current_hunk: int | None = None
        self.view_mode = "file"
        self._stop_watching = asyncio.Event()
        self._ignore_digest: str | None = None
        self._test_running = False
        self.quitting = False
        # Timings the benchmark reads: (flush start, flush end) per screen update.
        self.update_times: list[float] = []
        self.first_frame_at: float | None = None
        self.stop_pressed_at: float | None = None
        self.stop_done_at: float | None = None
        self._cleanups: list[Callable] = []  # async callables run when the app closes
        self.asking = None  # app.ask.Asking: the question being (or last) answered
        self._answer_shown = 0.0
        # (kind "edit" | "ask", text, region): sent the moment the backend is ready. Nothing typed is lost.
        self.queued: tuple[str, str, tuple[int, int] | None] | None = None
        self._prompt_has_text = False

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
        item = self._themes.get(theme_name)
        if item is not None:
            return item.pygments_style
        theme = self.get_theme(theme_name)
        return "monokai" if theme is None or theme.dark else "default"

    def compose(self) -> ComposeResult:
        # Kept as attributes: the per-frame flush reads them per event, and a DOM query per
        # access cost ~4 ms a frame; they also stay reachable while a modal screen is on top.
        self._code = CodeView(id="code")
        self._answer = AnswerPanel(id="answer")
        self._tests = TestPanel(id="tests")
        self._status = StatusLine(id="status", mask_timings=self._mask_timings)
        self._prompt = Prompt(id="prompt")
        yield self._code
        yield self._answer
        yield self._tests
        yield self._status
        yield self._prompt
        yield KeyBar(id="keys")

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

    def _choose_theme(self, wanted: str) -> None:
        """Set the theme before the app runs, without the change watcher.

        The first stylesheet parse then uses this theme's variables; setting `theme` in
        on_mount instead re-parses and re-applies all CSS (~20-40 ms before the first frame).
        What the watcher would do besides is repeated here (as App.__init__ does for its default).
        """
        if wanted not in self.available_themes:
            self._unknown_theme = wanted
            wanted = "dark" if "dark" in self.available_themes else "textual-dark"
        self.set_reactive(App.theme, wanted)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.set_class(True, f"-theme-{wanted}", update=False)
        refresh_filter = getattr(self, "_refresh_truecolor_filter", None)
        if refresh_filter is not None:
            refresh_filter(self.ansi_theme)
        # App.__init__ took the CSS variables from its default theme; nothing is parsed yet.
        self.stylesheet.set_variables(self.get_css_variables())

    def on_mount(self) -> None:
        if self._unknown_theme is not None:
            self.notify(f"unknown theme {self._unknown_theme!r}; using {self.theme}", severity="warning")
        for problem in self._theme_problems:
            self.notify(problem, severity="warning")
        self.status.backend = self._backend_label()
        self.status.connection = "connecting" if self._connect else "none"
        self._open_document()
        self.prompt.focus()
        if self._mask_timings:
            self.prompt.cursor_blink = False  # snapshots: no blink phase in the frame
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()
        self.watch(self.code, "cursor_line", lambda _line: self._region_prewarm_later(), init=False)
        if self.document is not None and self._connect:
            self._start_session()
        if self.document is not None and self._watch:
            self._watch_file()

    def _backend_label(self) -> str:
        backend = self.settings.backend or "local"
        model = self.settings.model
        if not model and backend.startswith(("ws://", "wss://")) and self.session is not None:
            model = self.session.server_model  # what the gateway at that URL says it serves
        if backend == "local" and not model:
            model = "qwen2.5-coder-1.5b (embedded)"
        if model and os.sep in str(model):
            model = Path(model).name
        return f"{backend} · {model}" if model else backend

    def _open_document(self) -> None:
        from app.files import Document, DocumentError

        try:
            # A path that does not exist yet is a new file: an empty buffer, created on accept.
            self.document = Document.open(self.path)
        except (DocumentError, OSError) as exc:
            self.notify(f"cannot open {exc}", severity="error", timeout=10)
            return
        if self.document.is_new:
            self.notify(f"{self.path.name} is a new file: say what to write; accepting creates it", timeout=8)
            self.status.extra = self._extra_status()
        self._show_lines(self.document.text.split("\n")[:-1] if self.document.text.endswith("\n")
                         else self.document.text.split("\n") if self.document.text else [])

    def _show_lines(self, lines: list[str]) -> None:
        self._lines_id = id(lines)
        self.code.set_document(lines, str(self.path))

    @work(group="session", exclusive=True, exit_on_error=False)
    async def _start_session(self) -> None:
        from app.session import Session, SessionError

        factory = self._session_factory or Session
        try:
            self.session = factory(self.document, self.settings, self._on_session_event, client=self._client)
        except Exception as exc:  # a bad setting: show it, keep the file usable
            self.status.connection = "error"
            self.notify(f"cannot start the session: {exc}", severity="error", timeout=10)
            return
        self._sync_code(force=True)
        try:
            await self.session.start()
        except SessionError as exc:
            self.status.connection = "error"
            self.status.detail = exc.code
            self.notify(f"no backend: {exc.message}", severity="error", timeout=15)
        except Exception as exc:
            self.status.connection = "error"
            self.notify(f"no backend: {exc}", severity="error", timeout=15)
        self.refresh_bindings()

    # ----- session events: buffered, applied once per frame ---------------------------------

    def _on_session_event(self, event) -> None:
        # Runs per delta: keep it to an append and, at most once per frame, a timer.
        self._inbox.append(event)
        if self._flush_timer is None:
            # Textual timers need a positive interval.
            delay = max(0.001, self._last_flush + FRAME_S - time.perf_counter())
            self._flush_timer = self.set_timer(delay, self._apply_events, name="flush")

    def _apply_events(self) -> None:
        # Not `_flush`: Textual's App._flush(stderr=...) is what its print capture calls.
        self._flush_timer = None
        started = time.perf_counter()
        self._last_flush = started
        events, self._inbox = self._inbox, []
        rows_changed = False
        bindings = False
        answer_changed = False
        kick = False
        for ev in events:
            name = type(ev).__name__
            if ev is _ANSWER_CHANGED:
                answer_changed = True
            elif name == "ProposalUpdated":
                rows_changed = True
                if self.status.connection == "lost" and self._state() == "generating":
                    # Deltas are arriving again: the client reconnected.
                    self.status.connection, self.status.detail = "ready", ""
            elif name == "StateChanged":
                self.status.state = ev.state
                bindings = True
                self.code.growing = ev.state == "generating"
                if ev.state == "generating":
                    gc_policy.postpone()
                    self.code.follow = True
                    self.current_hunk = None
                else:
                    rows_changed = True  # the exact virtual size again
                    self._collect_later()
                    if ev.state == "idle":
                        self._region_prewarm_later()
            elif name == "Stats":
                if self._state() == "interrupted":
                    continue  # after Esc the screen stays as it was when the user stopped it
                # The numbers change a few times a second at most; the final ones show at once.
                if ev.final or started - self._stats_shown >= STATS_S:
                    self._stats_shown = started
                    self.status.set_numbers(ev.ttft_s, ev.tokens_per_s, ev.tokens)
            elif name == "Notice":
                self.notify(ev.text, severity={"error": "error", "warning": "warning"}.get(ev.level, "information"),
                            timeout=8 if ev.level == "error" else 4)
            elif name == "ConnectionChanged":
                self.status.connection = ev.state
                self.status.detail = ev.detail if ev.state in ("loading", "lost", "error") else ""
                bindings = True
                kick = True
                if ev.state == "ready":
                    self._region_prewarm_later()  # a cursor placed while the model was loading
                    self.status.backend = self._backend_label()  # a gateway URL now names its model
            elif name == "Applied":
                rows_changed = True
                bindings = True
                what = {"accept": "accepted", "accept_hunk": "hunk accepted", "undo": "undone", "redo": "redone"}
                self.notify(f"{what.get(ev.action, ev.action)}: written to {self.path.name}", timeout=3)
            elif name == "TurnEnded":
                result = ev.result
                bindings = True
                self.status.drafted = result.draft_accepted or None
                if result.status == "refused":
                    self.notify(f"edit refused: {result.reason}", severity="error", timeout=10)
                elif result.status == "error":
                    self.notify(f"error: {result.reason}", severity="error", timeout=10)
                elif result.status == "nothing":
                    self.notify(f"no change: {result.reason}", timeout=5)
        if answer_changed:
            bindings = self._show_answer(started) or bindings
        if rows_changed:
            self._sync_code()
        if kick:
            self._kick_queue()
        if bindings:
            self._after_state_change()
        elif rows_changed:
            self.status.extra = self._extra_status()
        self.update_times.append(time.perf_counter() - started)

    def _collect_later(self) -> None:
        # The full collection postponed while streaming, once the screen has been still a while.
        if self._gc_timer is not None:
            self._gc_timer.stop()

        def collect() -> None:
            self._gc_timer = None
            if self._state() != "generating":
                gc_policy.collect_now()

        self._gc_timer = self.set_timer(IDLE_GC_S, collect, name="idle-gc")

    def paint_now(self) -> None:
        """Draw what changed now instead of on the screen's next 60 Hz tick.

        Esc must leave the screen still within one frame; waiting for the tick alone can
        take a whole frame before the paint even starts. Textual has no public call for
        this, so it is the screen's own timer callback; if Textual's internals move, the
        regular tick paints instead.
        """
        screen = self.screen
        # The keys follow the state too; the bindings signal would only come a pass later.
        self.query_one(KeyBar).sync()
        # Widgets asked to repaint only reach the screen's dirty set through a message per
        # widget on a later loop pass; hand them over now so this paint draws them and no
        # second paint follows. A change of layout still goes the usual way.
        try:
            dirty = screen._dirty_widgets
            for widget in screen.walk_children(with_self=False):
                if widget._repaint_required and not widget._layout_required and widget.display:
                    widget._repaint_required = False
                    dirty.add(widget)
            if dirty or screen._repaint_required or screen._layout_required:
                code = self.code
                code.lex_unbounded = True
                try:
                    screen._on_timer_update()
                finally:
                    code.lex_unbounded = False
        except AttributeError:
            # Textual's internals moved: the regular tick still paints, a frame later at most.
            screen.refresh()

    def flush_now(self) -> None:
        """Apply buffered events at once (Esc: the screen must be final within this frame)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
        self._apply_events()

    def _sync_code(self, force: bool = False) -> None:
        session = self.session
        if session is None:
            return
        live = session.live
        code = self.code
        if id(live.lines) != self._lines_id:
            self._show_lines(live.lines)
        if self.view_mode == "file":
            if code.source is not live:
                code.set_source(live, "file")
            elif live.version != self._drawn_version or force:
                code.sync(force=force)
            if session.state == "generating":
                code.follow_row(live.cursor_row)
        else:
            self._refresh_alt_view()
        self._drawn_version = live.version
        if self.current_hunk is not None:
            if live.hunk_count == 0:
                self.current_hunk = None
            elif self.current_hunk >= live.hunk_count:
                self.current_hunk = live.hunk_count - 1
            code.current_hunk = self.current_hunk

    def _after_state_change(self) -> None:
        session = self.session
        # A finished answer starts review at its first hunk; after Esc the view stays where the
        # user stopped it (the screen must be still), and the hunk keys start from the first.
        if session is not None and session.state == "review" and session.has_proposal:
            if self.current_hunk is None:
                broken = session.syntax_problem
                # A hunk that breaks the syntax is the one to look at first.
                self._goto_hunk(broken.hunk if broken is not None and broken.hunk is not None else 0)
        self.status.extra = self._extra_status()
        self.refresh_bindings()

    def _extra_status(self) -> str:
        session = self.session
        parts = []
        if session is not None:
            if session.has_proposal and session.state != "generating":
                n = session.live.hunk_count
                cur = (self.current_hunk or 0) + 1
                parts.append(f"hunk {cur}/{n}")
            if session.conflict:
                parts.append("CONFLICT")
            broken = session.syntax_problem if session.has_proposal else None
            if broken is not None:
                which = f"hunk {broken.hunk + 1} " if broken.hunk is not None else ""
                parts.append(f"SYNTAX: {which}breaks line {broken.line or '?'}")
        if self.document is not None and self.document.is_new:
            parts.append("new file")
        if self.view_mode != "file":
            parts.append(f"view: {self.view_mode}")
        sel = self.code.selection if self.is_mounted else None
        if sel:
            parts.append(f"selection {sel[0] + 1}-{sel[1]}")
        return " · ".join(parts)

    # ----- what applies now -------------------------------------------------------------------

    def _state(self) -> str:
        return self.session.state if self.session is not None else "idle"

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("quit", "help", "command_palette"):
            return True
        if len(self.screen_stack) > 1 and action in {a for a, _, _ in ACTIONS} | {"clear_selection"}:
            return False  # a modal screen has the keys
        s = self.session
        state = self._state()
        has = s is not None and s.has_proposal
        answering = self.asking is not None and self.asking.active
        if action == "take_back":
            return self.queued is not None
        if action == "stop":
            return state == "generating" or answering
        if action == "ask":
            return self._prompt_has_text and state != "generating" and not answering and self.document is not None
        if action == "do_it":
            answer = self.asking.answer if self.asking is not None else None
            return (self.answer.visible and answer is not None and answer.done and bool(answer.answer_text)
                    and s is not None and state != "generating" and self.queued is None)
        if action == "close_answer":
            return self.answer.visible and not answering
        if action in ("accept_all", "accept_hunk"):
            return has and state in ("review", "interrupted") and not s.conflict
        if action in ("reject_all",):
            return has and state != "generating"
        if action in ("reject_hunk", "next_hunk", "prev_hunk"):
            return has and state != "generating"
        if action == "undo":
            return s is not None and s.can_undo and state != "generating"
        if action == "redo":
            return s is not None and s.can_redo and state != "generating"
        if action == "toggle_view":
            return s is not None
        if action == "run_tests":
            return not self._test_running
        if action == "fix_tests":
            return (self.tests.failed and not self._test_running and s is not None and state != "generating"
                    and not answering)
        if action == "toggle_tests":
            return self.tests.command is not None
        if action == "follow":
            return state == "generating"
        if action == "clear_selection":
            return self.code.selection is not None or self.tests.has_class("-visible") or self.answer.visible
        return True

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for action, title, help_text in ACTIONS:
            if action in ("quit", "help"):
                continue  # the base class offers these
            if self.check_action(action, ()) is False:
                continue
            yield SystemCommand(title, help_text, lambda a=action: self.run_action(a))

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
        await self._submit(text)

    def on_input_changed(self, event: Prompt.Changed) -> None:
        # Ask (Ctrl+K) applies to words in the prompt: the key bar shows it once there are some.
        if event.input is not self.prompt:
            return  # the command palette's input
        has = bool(event.value.strip())
        if has != self._prompt_has_text:
            self._prompt_has_text = has
            self.refresh_bindings()
        if self.session is not None and not (self.asking is not None and self.asking.active):
            from app.typing_prewarm import TypingPrewarmer  # the engine reads the words as they are typed

            if self._typing is None or self._typing.session is not self.session:
                self._typing = TypingPrewarmer(self.session)
            self._typing.typed(event.value, self.region_for_send)

    async def _submit(self, text: str, *, ask: bool = False) -> None:
        """Enter (or Ctrl+K with ask): redirect what is streaming, else send, else queue. Never lose it."""
        prompt = self.prompt
        asking = self.asking
        if asking is not None and asking.active:
            prompt.remember(text)
            prompt.value = ""
            await asking.redirect(text.lstrip("?").strip() or text)  # typing while it answers redirects it
            return
        question = text[1:].strip() if text.startswith("?") else (text if ask else None)
        if question == "":
            self.notify("type the question after the ?", severity="warning")
            return
        if self.document is None:
            self.notify("no file is open; your words stay in the prompt", severity="warning")
            return
        session = self.session
        if question is not None and session is not None and session.state == "generating":
            self.notify("an edit is being written: Esc stops it, then ask", severity="warning")
            return
        if self._backend_failed():
            self.notify("no backend: your words stay in the prompt", severity="warning")
            return
        prompt.remember(text)
        prompt.value = ""
        kind, words = ("ask", question) if question is not None else ("edit", text)
        if self.queued is not None:
            # Another Enter while one waits: they go together, as one instruction.
            qkind, qwords, region = self.queued
            self._queue(qkind, f"{qwords}\n{words}", region)
            return
        if session is not None and session.client is not None and session.state == "generating":
            await session.redirect(words)  # the stream is there: redirect now, nothing to wait for
            return
        region = self.region_for_send()
        if self._waiting_for() is not None:
            self._queue(kind, words, region)
            return
        await self._dispatch(kind, words, region)

    async def _dispatch(self, kind: str, words: str, region: tuple[int, int] | None) -> None:
        session = self.session
        if kind == "ask":
            await self._ask(words, region)
            return
        if session.state == "generating":
            await session.redirect(words)
            return
        self.code.follow = True
        await session.send(words, region)

    # ----- the queue: what is typed before the backend is ready --------------------------------

    def _backend_failed(self) -> bool:
        session = self.session
        return self.status.connection == "error" and (session is None or session.client is None)

    def _waiting_for(self) -> str | None:
        """What a send must wait for now (None: send at once)."""
        session = self.session
        if session is None or session.client is None or session.connection in ("connecting", "loading"):
            return "the backend"
        if session.warming:
            return "the model to read the file"  # a turn sent now would only queue behind it
        return None

    def _queue(self, kind: str, words: str, region: tuple[int, int] | None) -> None:
        first = self.queued is None
        self.queued = (kind, words, region)
        self.status.queued = ("? " if kind == "ask" else "") + " ".join(words.split())
        if first:
            self.notify(f"queued until {self._waiting_for() or 'ready'}: sent the moment it is ready "
                        "(Esc takes it back)", timeout=4)
        self.refresh_bindings()
        self._kick_queue()

    def _kick_queue(self) -> None:
        """Send the queued instruction if the backend is ready now (or once the prewarm in flight ends)."""
        if self.queued is None:
            return
        if self._backend_failed():
            self._take_back("the backend did not start")
            return
        session = self.session
        if session is None or session.client is None or session.connection in ("connecting", "loading"):
            return  # the next connection change kicks again
        self._send_queued()

    @work(group="queue", exclusive=True, exit_on_error=False)
    async def _send_queued(self) -> None:
        session = self.session
        while session.warming:
            await session.warmed()
        queued, self.queued = self.queued, None
        if queued is None:
            return  # taken back meanwhile
        self.status.queued = ""
        self.refresh_bindings()
        await self._dispatch(*queued)

    def _take_back(self, why: str = "") -> None:
        queued, self.queued = self.queued, None
        self.status.queued = ""
        self.refresh_bindings()
        if queued is None:
            return
        kind, words, _region = queued
        words = f"?{words}" if kind == "ask" else words
        prompt = self.prompt
        if not prompt.value.strip():
            prompt.value = words
            prompt.cursor_position = len(words)
            where = "back in the prompt"
        else:
            prompt.remember(words)  # the prompt has new words: keep those, ↑ brings this back
            where = "in the history (↑)"
        self.notify(f"{why + ': ' if why else ''}taken back, not sent; it is {where}",
                    severity="warning" if why else "information", timeout=5)

    def action_take_back(self) -> None:
        self._take_back()

    # ----- questions: a prose answer, the file untouched ----------------------------------------

    async def _ask(self, question: str, region: tuple[int, int] | None) -> None:
        from app.ask import Asking

        session = self.session
        if self.asking is not None and self.asking.active:
            await self.asking.stop()
        asking = Asking(session.client, model=session.model, stream_id=session.stream_id,
                        max_output_tokens=self.settings.max_output_tokens, temperature=self.settings.temperature,
                        on_change=self._on_answer_changed)
        self.asking = asking
        about = f"lines {region[0] + 1}-{region[1]}" if region else "the whole file"
        self.answer.begin(question, about)
        self.status.state = "answering"
        self.status.set_numbers(None, None, None)
        self.refresh_bindings()
        await asking.start(session.format, session.prompt_path, session.document.text, question, region)

    def _on_answer_changed(self) -> None:
        self._on_session_event(_ANSWER_CHANGED)  # drawn with the session's events, once per frame

    def _show_answer(self, now: float) -> bool:
        """Draw the answer; True when it just ended (the keys change)."""
        asking = self.asking
        answer = asking.answer if asking is not None else None
        if answer is None:
            return False
        self.answer.show(status=answer.status, text=answer.text)
        if answer.done or now - self._answer_shown >= STATS_S:
            self._answer_shown = now
            self.status.set_numbers(answer.ttft_s, answer.tokens_per_s, answer.tokens or None)
        if answer.done and self.status.state == "answering":
            self.status.state = self._state()
            if answer.status == "error":
                self.notify(f"no answer: {answer.reason}", severity="error", timeout=10)
            return True
        return False

    async def action_ask(self) -> None:
        text = self.prompt.value.strip()
        if text:
            await self._submit(text, ask=True)

    async def action_do_it(self) -> None:
        from app.ask import do_it_instruction

        answer = self.asking.answer if self.asking is not None else None
        if answer is None or not answer.answer_text:
            return
        self.answer.close()
        instruction = do_it_instruction(answer.question, answer.answer_text)
        self.refresh_bindings()
        if self._waiting_for() is not None:
            self._queue("edit", instruction, answer.region)
            return
        await self._dispatch("edit", instruction, answer.region)

    def action_close_answer(self) -> None:
        self.answer.close()
        self.refresh_bindings()

    def region_for_send(self) -> tuple[int, int] | None:
        """The selection, else the block around the cursor the user placed; else None (the whole file).

        A cursor the user never moved says nothing about where the edit belongs: scoping the
        edit to the first lines of the file would make a region-rewrite model rewrite them.
        """
        code = self.code
        if code.selection is not None:
            return code.selection
        lines = code.lines
        if not lines or not code.cursor_placed:
            return None
        cur = min(code.cursor_line, len(lines) - 1)

        def top_level(i: int) -> bool:
            line = lines[i]
            return bool(line.strip()) and not line[0].isspace() and not line.startswith((")", "]", "}"))

        start = cur
        while start > 0 and not top_level(start):
            start -= 1
        # Decorators and comments directly above belong to the block.
        while start > 0 and lines[start - 1].startswith(("@", "#")):
            start -= 1
        end = cur + 1
        while end < len(lines) and not top_level(end):
            end += 1
        while end > cur + 1 and not lines[end - 1].strip():
            end -= 1
        if end - start > SURROUNDINGS_MAX:
            start = max(0, cur - SURROUNDINGS_MAX // 2)
            end = min(len(lines), start + SURROUNDINGS_MAX)
        return start, end

    def _region_prewarm_later(self) -> None:
        # Debounced: moving through the file must not start a prewarm per line passed.
        if self._region_timer is not None:
            self._region_timer.stop()
        self._region_timer = self.set_timer(REGION_PREWARM_S, self._region_prewarm, name="region-prewarm")

    def _region_prewarm(self) -> None:
        self._region_timer = None
        session = self.session
        if session is None or session.client is None or session.connection != "ready":
            return
        if self.asking is not None and self.asking.active:
            return  # the answer has the engine; a prewarm now would only wait behind it
        region = self.region_for_send()
        if region is not None:
            session.prewarm_region(region)

    def on_code_view_selection_changed(self, event: CodeView.SelectionChanged) -> None:
        self._region_prewarm_later()
        self.status.extra = self._extra_status()
        self.refresh_bindings()

    # ----- actions ------------------------------------------------------------------------------

    async def action_stop(self) -> None:
        asking = self.asking
        if asking is not None and asking.active:
            await asking.stop()
            self.flush_now()
            return
        session = self.session
        if session is None or session.state != "generating":
            return
        self.stop_pressed_at = time.perf_counter()
        # No await before the paint: a yield here would let a regular paint of the
        # pre-Esc picture slip in first. The server-side cancel is awaited after.
        rest = session.stop_now()
        self.flush_now()
        self.stop_done_at = time.perf_counter()
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

    def _goto_hunk(self, i: int) -> None:
        session = self.session
        if session is None or session.live.hunk_count == 0:
            return
        live = session.live
        i %= live.hunk_count
        self.current_hunk = i
        self.code.current_hunk = i
        first, stop = live.hunk_rows(i)
        self.code.follow = False
        if self.view_mode == "file":
            self.code.show_rows(first, stop)
        self.code.invalidate()
        self.status.extra = self._extra_status()

    def action_next_hunk(self) -> None:
        self._goto_hunk(0 if self.current_hunk is None else self.current_hunk + 1)

    def action_prev_hunk(self) -> None:
        self._goto_hunk(-1 if self.current_hunk is None else self.current_hunk - 1)

    def action_accept_hunk(self) -> None:
        if self.session is not None:
            self.session.accept_hunk(self.current_hunk or 0)
            self.flush_now()
            self._after_hunk_change()

    def action_reject_hunk(self) -> None:
        if self.session is not None:
            self.session.reject_hunk(self.current_hunk or 0)
            self.flush_now()
            self._after_hunk_change()

    def _after_hunk_change(self) -> None:
        live = self.session.live
        if live.hunk_count:
            self._goto_hunk(min(self.current_hunk or 0, live.hunk_count - 1))
        else:
            self.current_hunk = None
            self.code.current_hunk = None
        self.status.extra = self._extra_status()
        self.refresh_bindings()

    def action_undo(self) -> None:
        if self.session is not None:
            self.session.undo()
            self.flush_now()
            self._after_state_change()

    def action_redo(self) -> None:
        if self.session is not None:
            self.session.redo()
            self.flush_now()
            self._after_state_change()

    def action_toggle_view(self) -> None:
        order = ["file", "diff", "raw"]
        self.view_mode = order[(order.index(self.view_mode) + 1) % len(order)]
        if self.view_mode == "file":
            self.code.set_source(self.session.live if self.session else None, "file")
        else:
            self._refresh_alt_view()
        self.status.extra = self._extra_status()
        self.notify(f"view: {dict(file='live diff', diff='unified diff', raw='raw model text')[self.view_mode]}",
                    timeout=2)

    def _refresh_alt_view(self) -> None:
        session = self.session
        if session is None:
            return
        if self.view_mode == "diff":
            text = session.proposal_diff() or "(no pending proposal)"
            self.code.set_source(TextRows(text, diff=True), "diff")
        else:
            self.code.set_source(TextRows(session.raw_text or "(no model text yet)"), "raw")
        self.code.follow_row(self.code.source.row_count - 1)

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
        else:
            self._open_document()

    def action_help(self) -> None:
        from app.ui.screens.help import HelpScreen  # not needed for the first frame

        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        helps = {a: h for a, _, h in ACTIONS}
        app_keys = []
        seen = set()
        for b in self.BINDINGS:
            key = b.key.replace("ctrl+", "Ctrl+").replace("alt+", "Alt+")
            if (b.key, b.action) in seen:
                continue
            seen.add((b.key, b.action))
            app_keys.append((key, helps.get(b.action, b.description)))
        prompt_keys = [("Enter", "Send the instruction (the selection or the block at the cursor is the region); "
                                 "while generating or answering: redirect with these words; before the backend "
                                 "is ready: queued, sent the moment it is (Esc takes it back)"),
                       ("?question", "Ask instead of edit: a prose answer in a panel below the code, about the "
                                     "selection or the block at the cursor; the file does not change (Ctrl+K: the "
                                     "same without the ?); Ctrl+D then turns the answer into an edit"),
                       ("Up / Down", "Instruction history"),
                       ("/test", "Run the test command")]
        view_keys = [("Up / Down / PgUp / PgDn", "Move the cursor line"),
                     ("Ctrl+Home / Ctrl+End", "Top / bottom of the file"),
                     ("Shift+arrows / Shift+PgUp/PgDn", "Select lines (scopes the next edit)"),
                     ("Mouse drag", "Select lines; click moves the cursor; wheel scrolls (stops following)")]
        palette = [("Ctrl+P", "Command palette: every action, and themes")]
        return [("Everywhere", app_keys + palette), ("Prompt", prompt_keys), ("File view (Tab to focus)", view_keys)]

    async def action_quit(self) -> None:
        session = self.session
        if session is not None and session.has_proposal and not self.quitting:
            from app.ui.screens.confirm import ConfirmScreen

            def answer(ok: bool | None) -> None:
                if ok:
                    self.quitting = True
                    self.exit()

            self.push_screen(ConfirmScreen("A proposal is pending and has not been accepted.\nQuit anyway and drop it?",
                                           yes="Quit", no="Stay"), answer)
            return
        self.exit()

    # ----- tests: only when asked ------------------------------------------------------------------

    def action_toggle_tests(self) -> None:
        self.tests.toggle_class("-visible")

    def action_run_tests(self) -> None:
        command = self.settings.test_command
        if not command:
            self.notify("no test command configured: set test_command in config.toml or STEER_TEST_COMMAND",
                        severity="warning", timeout=6)
            return
        if self._test_running:
            return
        self._test_running = True
        self.tests.begin(command)
        self.refresh_bindings()
        self._run_tests(command)

    @work(group="tests", exclusive=True, exit_on_error=False)
    async def _run_tests(self, command: str) -> None:
        code = -1
        try:
            proc = await asyncio.create_subprocess_shell(
                command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                cwd=str(self.path.resolve().parent), stdin=asyncio.subprocess.DEVNULL,
            )
            assert proc.stdout is not None
            async for raw in proc.stdout:
                self.post_message(TestOutput(raw.decode("utf-8", "replace").rstrip("\n")))
            code = await proc.wait()
        except Exception as exc:
            self.post_message(TestOutput(f"cannot run {command!r}: {exc}"))
        self.post_message(TestOutput(None, code))

    def on_test_output(self, message: TestOutput) -> None:
        if message.line is not None:
            self.tests.add(message.line)
            return
        self._test_running = False
        self.tests.finish(message.returncode if message.returncode is not None else -1)
        self.refresh_bindings()

    async def action_fix_tests(self) -> None:
        session = self.session
        if session is None or not self.tests.failed:
            return
        instruction = (f"The test command `{self.tests.command}` failed with this output:\n"
                       f"```\n{self.tests.failure_text()}\n```\nFix the code in this file so the tests pass.")
        self.code.follow = True
        await session.send(instruction, None)

    # ----- the file on disk ----------------------------------------------------------------------

    @work(group="watch", exclusive=True, exit_on_error=False)
    async def _watch_file(self) -> None:
        from watchfiles import awatch

        target = self.path.resolve()
        directory = target.parent

        def only_ours(change, path: str) -> bool:
            return Path(path) == target

        try:
            # Watch the directory: atomic writes replace the file, which would end a watch on it.
            async for _changes in awatch(directory, watch_filter=only_ours, stop_event=self._stop_watching,
                                         debounce=300, step=50, recursive=False):
                self.post_message(FileChangedOnDisk(str(target)))
        except Exception as exc:
            self.notify(f"not watching the file for changes: {exc}", severity="warning")

    def on_file_changed_on_disk(self, message: FileChangedOnDisk) -> None:
        session = self.session
        if session is None:
            self._open_document()
            return
        if session.file_changed():  # False for our own writes: the disk equals the Document
            self.notify(f"{self.path.name} changed on disk; reloaded", timeout=4)
        self.flush_now()
        self._after_state_change()

    async def on_unmount(self) -> None:
        self._stop_watching.set()
        gc_policy.restore()  # a process-wide setting: never leave it changed
        if self.session is not None:
            try:
                await asyncio.wait_for(self.session.close(), 3)
            except Exception:
                pass
        for fn in self._cleanups:
            try:
                await asyncio.wait_for(fn(), 5)
            except Exception:
                pass


def make_app(path: str | Path, settings: Settings | None = None, **kwargs) -> SteerApp:
    """The one way to build the app (CLI, tests, benchmark). kwargs: see SteerApp."""
    return SteerApp(path, settings, **kwargs)

