"""Review keys: the whole proposal (Ctrl+Y / Ctrl+N, undo / redo), moving through it (the current hunk: Alt+Up/Down, Alt+Y/N) and the view it is shown in (Ctrl+O)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.ui.widgets.rows import TextRows

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

VIEWS = {"file": "live diff", "diff": "unified diff", "raw": "raw model text"}  # Ctrl+O's order


class ReviewKeys:
    """Moves the app's `current_hunk` and `view_mode` and shows the result in the file view and the status line."""

    def __init__(self, app: SteerHost) -> None:
        self._app = app

    def accept_all(self) -> None:
        if self._app.session is not None:
            self._app.session.accept_all()
            self._app.flush_now()

    def reject_all(self) -> None:
        """Drop the proposal, and the alternatives if there are any (steer_tui.ui.lanes)."""
        app = self._app
        app.lanes.drop()
        if app.session is not None:
            app.session.reject_all()
            app.flush_now()

    def undo(self, redo: bool = False) -> None:
        """Undo (or redo) an accepted edit."""
        app = self._app
        if app.session is not None:
            app.session.redo() if redo else app.session.undo()
            app.flush_now()
            app.applier.after_state_change()

    def goto(self, i: int) -> None:
        """Make hunk `i` (modulo the hunk count) current and scroll it into view."""
        app = self._app
        session = app.session
        if session is None or session.live.hunk_count == 0:
            return
        live = session.live
        i %= live.hunk_count
        app.current_hunk = i
        app.code.current_hunk = i
        first, stop = live.hunk_rows(i)
        app.code.follow = False
        if app.view_mode == "file":
            app.code.show_rows(first, stop)
        app.code.invalidate()
        app.applier.show_extra()

    def next(self) -> None:
        current = self._app.current_hunk
        self.goto(0 if current is None else current + 1)

    def prev(self) -> None:
        current = self._app.current_hunk
        self.goto(-1 if current is None else current - 1)

    def accept(self) -> None:
        """Write the current hunk only."""
        app = self._app
        if app.session is not None:
            app.session.accept_hunk(app.current_hunk or 0)
            app.flush_now()  # a call, not a message: _after_hunk_change reads the hunks it draws
            self._after_hunk_change()

    def reject(self) -> None:
        """Drop the current hunk only."""
        app = self._app
        if app.session is not None:
            app.session.reject_hunk(app.current_hunk or 0)
            app.flush_now()
            self._after_hunk_change()

    def _after_hunk_change(self) -> None:
        app = self._app
        live = app.session.live
        if live.hunk_count:
            self.goto(min(app.current_hunk or 0, live.hunk_count - 1))
        else:
            app.current_hunk = None
            app.code.current_hunk = None
        app.applier.show_extra()
        app.refresh_bindings()

    def toggle_view(self) -> None:
        """The next view: live diff, unified diff, raw model text."""
        app = self._app
        order = list(VIEWS)
        app.view_mode = order[(order.index(app.view_mode) + 1) % len(order)]
        if app.view_mode == "file":
            app.code.set_source(app.session.live if app.session else None, "file")
        else:
            self.refresh_alt_view()
        app.applier.show_extra()
        app.notify(f"view: {VIEWS[app.view_mode]}", timeout=2)

    def refresh_alt_view(self) -> None:
        """Redraw the unified diff or the raw model text from the session."""
        app = self._app
        session = app.session
        if session is None:
            return
        if app.view_mode == "diff":
            text = session.proposal_diff() or "(no pending proposal)"
            app.code.set_source(TextRows(text, diff=True), "diff")
        else:
            app.code.set_source(TextRows(session.raw_text or "(no model text yet)"), "raw")
        app.code.follow_row(app.code.source.row_count - 1)
