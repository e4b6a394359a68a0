"""The help screen: every key the app knows, grouped by where it applies."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 84; height: 80%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close help")]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for title, keys in self.sections:
                table = Table(title=title, title_justify="left", show_header=False, box=None, expand=True)
                table.add_column("key", style="bold", width=22)
                table.add_column("what")
                for key, what in keys:
                    table.add_row(key, what)
                yield Static(table)
            yield Static("\nEsc, F1 or q closes this screen.")

    def action_dismiss(self) -> None:
        self.dismiss(None)
