"""Esc's stop: the answer being written, the alternatives (every lane), or the turn, with the screen final in the same frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steer_tui.state import State

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost


async def stop(app: SteerHost) -> None:
    """Stop what is being written now: an answer, else the lanes and the turn (steer_tui.ui.lanes), else a turn."""
    asking = app.asking
    if asking is not None and asking.active:
        await asking.stop()
        app.flush_now()
        return
    session = app.session
    if app.lanes.writing:
        app.lanes.stop()  # no lane is asked any more; the one being written is stopped (Session.stop_now)
    elif session is None or session.state != State.GENERATING:
        return
    # No await before the paint: a yield here would let a regular paint of the
    # pre-Esc picture slip in first. The server-side cancel is awaited after.
    rest = session.stop_now() if session is not None else None
    app.flush_now()
    app.paint_now()
    if rest is not None:
        await rest
    app.flush_now()
