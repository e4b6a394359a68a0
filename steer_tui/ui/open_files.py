"""The files open in the app: each one's Document, Session and the file view as it was left."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class ViewState:
    """What the file view showed of a file when the user left it: restored on coming back."""

    cursor_line: int = 0
    anchor: int | None = None  # the selection's other end
    cursor_placed: bool = False
    follow: bool = True
    scroll: tuple[float, float] = (0.0, 0.0)
    view_mode: str = "file"
    current_hunk: int | None = None

    @classmethod
    def of(cls, code, view_mode: str, current_hunk: int | None) -> "ViewState":
        return cls(code.cursor_line, code.anchor, code.cursor_placed, code.follow,
                   (code.scroll_x, code.scroll_y), view_mode, current_hunk)


@dataclass
class OpenFile:
    """One open file. Its Session (its proposal, undo history and prewarms) lives as long as the
    app, sharing the backend connection of the first session, whether the file is shown or not."""

    path: Path
    document: Any = None  # steer_tui.files.Document; None when it could not be opened
    session: Any = None  # steer_tui.session.Session, once started
    starting: bool = False
    view: ViewState = field(default_factory=ViewState)


def relative_label(path: Path, root: Path | None) -> str:
    """`path` as the status line names it: relative to the project root when inside it."""
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(path)
