"""SteerHost, the app as its helpers see it: what they read of it and the calls they need done before their next line (what they only tell it is a message, steer_tui.ui.messages)."""

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
    quitting: bool  # the user said Quit over a pending proposal: the next quit asks nothing
    # The widgets.
    code: Any  # steer_tui.ui.widgets.code_view.CodeView
    status: Any  # steer_tui.ui.widgets.status.StatusLine
    prompt: Any  # steer_tui.ui.widgets.prompt.Prompt
    tests: Any  # steer_tui.ui.widgets.test_panel.TestPanel
    answer: Any  # steer_tui.ui.widgets.answer.AnswerPanel
    # The helpers reachable from the others through the app: each use reads a value back or must
    # land before the caller's next line, so none of them is a message.
    applier: Any  # steer_tui.ui.event_applier.EventApplier: draws in the same frame as its caller's change
    review_keys: Any  # steer_tui.ui.review_keys.ReviewKeys: the applier reads back the hunk it goes to
    answer_flow: Any  # steer_tui.ui.answering.AnswerFlow: `show` answers a bool; a queued `ask` is awaited in order
    sender: Any  # steer_tui.ui.sender.Sender: its queue is taken back before the file shown changes
    testing: Any  # steer_tui.ui.tests_flow.TestsFlow: conditions read `running`
    files: Any  # steer_tui.ui.project_files.ProjectFiles
    # steer_tui.ui.lanes.Lanes: the applier reads the lane the file view shows and tells it of a settled
    # review before the keys are drawn; the sender and the conditions read whether lanes are written.
    lanes: Any
    # steer_tui.ui.frame_batch.FrameBatch: session events, applied once per frame; its `add` is the
    # session's listener, called per delta, where a message each would cost the hot path.
    frames: Any
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

    # Queries: the value is needed now.
    def session_state(self) -> str: ...
    def current_backend_label(self) -> str: ...
    def region_for_send(self, words: str = "") -> tuple[int, int] | None: ...

    # Commands whose effect the caller reads back at once, so they cannot wait on the message queue:
    # the flush draws the pending events (and moves current_hunk) before the hunk keys or a file
    # switch look at them; the stop is awaited so that a switch sees the stream stopped.
    def flush_now(self) -> None: ...
    async def action_stop(self) -> None: ...

    # Textual's own.
    def post_message(self, message: Any) -> bool: ...  # steer_tui.ui.messages: what a helper tells the app
    def refresh_bindings(self) -> None: ...
    def notify(self, message: str, **kwargs) -> None: ...
    def set_timer(self, delay: float, callback: Callable, **kwargs) -> Any: ...
    def run_worker(self, work: Any, **kwargs) -> Any: ...
    def push_screen(self, screen: Any, callback: Callable | None = None) -> Any: ...
    def call_later(self, callback: Callable, *args: Any) -> Any: ...
    def call_after_refresh(self, callback: Callable, *args: Any) -> Any: ...
    def exit(self, *args: Any, **kwargs: Any) -> None: ...
