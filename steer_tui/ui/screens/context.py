"""The context screen: what the project's other files gave the last request, each item kept or dropped with Space."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection


def item_key(item) -> str:
    """How an item is dropped: "path:name" for a definition, the path for a whole file."""
    return item.path if item.kind == "file" else f"{item.path}:{item.name}"


def item_label(item) -> str:
    what = item.path if item.kind == "file" else f"{item.name}  ({item.path})"
    return f"{what}  · {item.reason}, {item.tokens} tokens"


class ContextScreen(ModalScreen[list[str]]):
    """Lists the items (steer_tui.project.context.ContextItem) the last request carried, all kept;
    Space unticks one, Enter or Esc closes. It returns the keys of the items unticked, which the
    session leaves out of every request from then on."""

    DEFAULT_CSS = """
    ContextScreen { align: center middle; }
    ContextScreen > Vertical { width: 90; height: auto; max-height: 80%; border: round $accent;
                               background: $surface; padding: 0 1; }
    ContextScreen SelectionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape,enter", "close", "Close", priority=True)]

    def __init__(self, items: list, note: str = "") -> None:
        super().__init__()
        self.items = list(items)
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.items:
                yield Static("Context from other files of the project (read-only; only the open file is edited).\n"
                             "Space drops or keeps an item for the next requests; @path or @name in the prompt "
                             "adds one. Enter closes.")
                yield SelectionList[str](*(Selection(item_label(i), item_key(i), True) for i in self.items),
                                         id="context-items")
            else:
                yield Static(self.note or "The last request carried no context from other files. "
                             "@path or @name in the prompt adds a file or a definition.")

    def action_close(self) -> None:
        if not self.items:
            self.dismiss([])
            return
        kept = set(self.query_one(SelectionList).selected)
        self.dismiss([item_key(i) for i in self.items if item_key(i) not in kept])


def show_context(app) -> None:
    """Ctrl+E: the context the shown session's last request (or prewarm) carried; what the user
    drops is left out of the requests after, and the new prefix is prewarmed at once."""
    from steer_tui.state import State

    session = app.session
    context = session.context if session is not None else None
    if context is None:
        app.push_screen(ContextScreen([], "Requests carry no context from other files: it is off "
                                      "(config: context = true turns it on)."))
        return
    note = "" if context.ready else "The project is still being indexed: requests carry no context yet."

    def dropped(keys: list[str] | None) -> None:
        for key in keys or []:
            context.drop(key)
        if keys:
            app.notify(f"left out of the next requests: {', '.join(keys)}", timeout=4)
            app.applier.show_extra()
            if session.state == State.IDLE:
                session.prewarm()

    app.push_screen(ContextScreen(list(context.last), note), dropped)
