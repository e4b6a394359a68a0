"""The session's events on the screen: a frame's batch applied by type to the file view, status line, keys and toasts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.state import State
from steer_tui.ui import gc_policy
from steer_tui.ui.messages import BackendConnectionChanged, SessionIdle
from steer_tui.ui.widgets.status import NUMBERS_EVERY_S

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

ANSWER_CHANGED = object()  # in the event batch: the answer grew or ended
STATS_S = NUMBERS_EVERY_S  # the status line's numbers change at most this often while streaming
IDLE_GC_S = 1.0  # the full garbage collection postponed during a stream runs this long after it
# Warnings about the proposal under review (what would fail when its code runs): their toast fades,
# so the status line keeps them while that proposal is on screen.
PROPOSAL_WARNINGS = frozenset({"unused", "undefined", "member", "logging_args"})


class EventApplier:
    """Applies a batch of session events (steer_tui.events classes, matched by type) and keeps the file view in step."""

    def __init__(self, app: SteerHost) -> None:
        self._app = app
        self._stats_shown = 0.0
        self._gc_timer = None
        self._drawn_version = -1
        self._lines_id = None
        self.proposal_warning: str | None = None  # the last PROPOSAL_WARNINGS notice of this turn

    def apply(self, events: list, started: float) -> None:
        """Apply `events` (in order) as one screen update; `started`: this frame's time."""
        # Imported here, not at start-up: the session (and its events) starts after the first frame.
        from steer_tui.events import Applied, ConnectionChanged, Notice, ProposalUpdated, StateChanged, Stats, TurnEnded

        app = self._app
        status = app.status
        rows_changed = False
        bindings = False
        answer_changed = False
        connection = None  # the last connection state of the batch, told to the app after it is drawn
        for ev in events:
            if ev is ANSWER_CHANGED:
                answer_changed = True
            elif isinstance(ev, ProposalUpdated):
                rows_changed = True
                if status.connection == "lost" and app.session_state() == State.GENERATING:
                    # Deltas are arriving again: the client reconnected.
                    status.connection, status.detail = "ready", ""
            elif isinstance(ev, StateChanged):
                status.state = ev.state
                bindings = True
                app.code.growing = ev.state == State.GENERATING
                if ev.state == State.GENERATING:
                    self.proposal_warning = None
                    gc_policy.postpone()
                    app.code.follow = True
                    app.current_hunk = None
                else:
                    rows_changed = True  # the exact virtual size again
                    self.collect_later()
                    if ev.state == State.IDLE:
                        app.post_message(SessionIdle())
            elif isinstance(ev, Stats):
                if app.session_state() == State.INTERRUPTED:
                    continue  # after Esc the screen stays as it was when the user stopped it
                # The numbers change a few times a second at most; the final ones show at once.
                if ev.final or started - self._stats_shown >= STATS_S:
                    self._stats_shown = started
                    status.set_numbers(ev.ttft_s, ev.tokens_per_s, ev.tokens)
            elif isinstance(ev, Notice):
                if ev.level == "warning" and ev.code in PROPOSAL_WARNINGS:
                    self.proposal_warning = ev.text.removesuffix("; review it before accepting")
                    self.show_extra()
                app.notify(ev.text, severity={"error": "error", "warning": "warning"}.get(ev.level, "information"),
                           # a warning is about the proposal under review: it stays as long as an error
                           timeout=8 if ev.level in ("error", "warning") else 4)
            elif isinstance(ev, ConnectionChanged):
                status.connection = ev.state
                status.detail = ev.detail if ev.state in ("loading", "lost", "error") else ""
                bindings = True
                connection = ev.state
                if ev.state == "ready":
                    status.backend = app.current_backend_label()  # a gateway URL now names its model
            elif isinstance(ev, Applied):
                rows_changed = True
                bindings = True
                what = {"accept": "accepted", "accept_hunk": "hunk accepted", "undo": "undone", "redo": "redone"}
                app.notify(f"{what.get(ev.action, ev.action)}: written to {app.path.name}", timeout=3)
            elif isinstance(ev, TurnEnded):
                # How it ended was already said by the turn's own notice (refused, no change,
                # nothing to change, an error); a second toast would only repeat it.
                bindings = True
                status.drafted = ev.result.draft_accepted or None
        if answer_changed:
            bindings = app.answer_flow.show(started, app.session_state) or bindings
        if rows_changed:
            self.sync_code()
        if connection is not None:
            app.post_message(BackendConnectionChanged(connection))
        if bindings:
            self.after_state_change()
        elif rows_changed:
            self.show_extra()

    def collect_later(self) -> None:
        # The full collection postponed while streaming, once the screen has been still a while.
        if self._gc_timer is not None:
            self._gc_timer.stop()

        def collect() -> None:
            self._gc_timer = None
            if self._app.session_state() != State.GENERATING:
                gc_policy.collect_now()

        self._gc_timer = self._app.set_timer(IDLE_GC_S, collect, name="idle-gc")

    def show_lines(self, lines: list[str]) -> None:
        """Give the file view `lines` (a new list: the file was opened, or the session replaced its lines)."""
        self._lines_id = id(lines)
        self._app.code.set_document(lines, str(self._app.path))

    def sync_code(self, force: bool = False) -> None:
        """Bring the file view (or the diff / raw view) and the current hunk in step with the session's live diff."""
        app = self._app
        session = app.session
        if session is None:
            return
        live = session.live
        code = app.code
        if id(live.lines) != self._lines_id:
            self.show_lines(live.lines)
        lane = app.lanes.lane_view(session)  # a finished lane chosen while another is written
        if app.view_mode == "file" and lane is not None:
            if code.source is not lane:
                code.set_source(lane, "file")
        elif app.view_mode == "file":
            if code.source is not live:
                code.set_source(live, "file")
            elif live.version != self._drawn_version or force:
                code.sync(force=force)
            if session.state == State.GENERATING:
                code.follow_row(live.cursor_row)
        else:
            app.review_keys.refresh_alt_view()
        self._drawn_version = live.version
        if app.current_hunk is not None:
            if live.hunk_count == 0:
                app.current_hunk = None
            elif app.current_hunk >= live.hunk_count:
                app.current_hunk = live.hunk_count - 1
            code.current_hunk = app.current_hunk

    def after_state_change(self) -> None:
        """Review starts at a hunk; the status line's extra part and the keys follow the new state."""
        app = self._app
        app.lanes.review_changed()  # a lane accepted or rejected: the others go (before the keys are drawn)
        session = app.session
        # A finished answer starts review at its first hunk; after Esc the view stays where the
        # user stopped it (the screen must be still), and the hunk keys start from the first.
        if session is not None and session.state == State.REVIEW and session.has_proposal:
            if app.current_hunk is None:
                broken = session.syntax_problem
                # A hunk that breaks the syntax is the one to look at first.
                app.review_keys.goto(broken.hunk if broken is not None and broken.hunk is not None else 0)
        self.show_extra()
        app.refresh_bindings()

    def show_extra(self) -> None:
        """Redraw the status line's extra part (hunk n/m, conflict, syntax, new file, view, selection)."""
        self._app.status.extra = self.extra_status()

    def extra_status(self) -> str:
        from steer_tui.turn import NOT_SENT

        app = self._app
        session = app.session
        parts = []
        if session is not None:
            if session.has_proposal and session.state != State.GENERATING:
                n = session.live.hunk_count
                cur = (app.current_hunk or 0) + 1
                parts.append(f"hunk {cur}/{n}")
                if self.proposal_warning:
                    parts.append(f"WARNING: {self.proposal_warning}")
            if session.conflict:
                parts.append("CONFLICT")
            if session.state == State.IDLE and session.last_result is not None and session.last_result.error_code == NOT_SENT:
                # The toast saying why fades; what to do stays until the next turn.
                parts.append("NOT SENT: name a function or class, put the cursor in one, or select lines")
            broken = session.syntax_problem if session.has_proposal else None
            if broken is not None:
                which = f"hunk {broken.hunk + 1} " if broken.hunk is not None else ""
                parts.append(f"SYNTAX: {which}breaks line {broken.line or '?'}")
            context = session.context
            if context is not None and context.last:
                tokens = sum(item.tokens for item in context.last)
                parts.append(f"context: {len(context.last)} from other files, {tokens} tok (Ctrl+E)")
        if app.document is not None and app.document.is_new:
            parts.append("new file")
        if app.view_mode != "file":
            parts.append(f"view: {app.view_mode}")
        sel = app.code.selection if app.is_mounted else None
        if sel:
            parts.append(f"selection {sel[0] + 1}-{sel[1]}")
        return " · ".join(parts)
