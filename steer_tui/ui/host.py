"""What the UI's helpers (event_applier, review_keys, sender, answering, tests_flow, conditions,
region_prewarm, workspace) may use of the app: the port steer_tui.ui.app.SteerApp implements, so that none
of them imports the app or reaches into its private members."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol


class SteerHost(Protocol):
    """The app as its helpers see it."""

    # The project, the file shown (None: none yet), its session and the settings.
    project_root: Path
    path: Path | None
    document: Any  # steer_tui.files.Document, None until opened
    session: Any  # steer_tui.session.Session, None until started
    settings: Any  # steer_tui.config.Settings
    # What review shows: the hunk under the cursor and the view (steer_tui.ui.review_keys.VIEWS).
    current_hunk: int | None
    view_mode: str
    prompt_has_text: bool
    # The widgets.
    code: Any  # steer_tui.ui.widgets.code_view.CodeView
    status: Any  # steer_tui.ui.widgets.status.StatusLine
    prompt: Any  # steer_tui.ui.widgets.prompt.Prompt
    tests: Any  # steer_tui.ui.widgets.test_panel.TestPanel
    answer: Any  # steer_tui.ui.widgets.answer.AnswerPanel
    # The helpers, each reachable from the others through the app.
    applier: Any  # steer_tui.ui.event_applier.EventApplier
    review_keys: Any  # steer_tui.ui.review_keys.ReviewKeys
    answer_flow: Any  # steer_tui.ui.answering.AnswerFlow
    sender: Any  # steer_tui.ui.sender.Sender
    testing: Any  # steer_tui.ui.tests_flow.TestsFlow
    region_prewarm: Any  # steer_tui.ui.region_prewarm.RegionPrewarm
    workspace: Any  # steer_tui.ui.workspace.Workspace
    files: Any  # steer_tui.ui.project_files.ProjectFiles
    frames: Any  # steer_tui.ui.frame_batch.FrameBatch: session events, applied once per frame
    typing_prewarmer: Any  # steer_tui.typing_prewarm.TypingPrewarmer of the session shown, or None
    # How sessions start: on a given client (tests, benches) or one the first session opens.
    given_client: Any
    connects: bool
    session_factory: Callable | None
    # Textual's own.
    screen_stack: list
    is_mounted: bool

    @property
    def asking(self) -> Any: ...  # steer_tui.ask.Asking being (or last) answered
    @property
    def queued(self) -> Any: ...  # steer_tui.ui.send_queue.Queued waiting for the backend

    def session_state(self) -> str: ...
    def current_backend_label(self) -> str: ...
    def region_for_send(self, words: str = "") -> tuple[int, int] | None: ...
    def flush_now(self) -> None: ...
    def refresh_bindings(self) -> None: ...
    def notify(self, message: str, **kwargs) -> None: ...
    def set_timer(self, delay: float, callback: Callable, **kwargs) -> Any: ...
    def run_worker(self, work: Any, **kwargs) -> Any: ...
    def watch_file(self, path: Path | None) -> None: ...
    async def action_stop(self) -> None: ...
    def push_screen(self, screen: Any, callback: Callable | None = None) -> Any: ...
    def call_later(self, callback: Callable, *args: Any) -> Any: ...
    def call_after_refresh(self, callback: Callable, *args: Any) -> Any: ...
