"""Painting the screen at once, outside Textual's 60 Hz tick: Esc leaves the screen still within a frame."""

from __future__ import annotations

from textual.screen import Screen

from steer_tui.ui.widgets.code_view import CodeView
from steer_tui.ui.widgets.keybar import KeyBar


def paint_now(screen: Screen, keys: KeyBar, code: CodeView) -> None:
    """Draw what changed now instead of on the screen's next 60 Hz tick.

    Esc must leave the screen still within one frame; waiting for the tick alone can
    take a whole frame before the paint even starts. Textual has no public call for
    this, so it is the screen's own timer callback; if Textual's internals move, the
    regular tick paints instead.
    """
    # The keys follow the state too; the bindings signal would only come a pass later.
    keys.sync()
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
            code.lex_unbounded = True
            try:
                screen._on_timer_update()
            finally:
                code.lex_unbounded = False
    except AttributeError:
        # Textual's internals moved: the regular tick still paints, a frame later at most.
        screen.refresh()
