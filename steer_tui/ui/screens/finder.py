"""The file finder (Ctrl+P): type part of a path, the best matches listed with the matched
characters lit, Up/Down/Enter/Esc; '>' first switches to the command palette."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from steer_tui.project.fuzzy import Match

LIST_ROWS = 14  # rows of matches shown at once (Up/Down scroll through up to LIMIT)
LIMIT = 50


class MatchList(Widget):
    """The matches as one block of text lines: the chosen one highlighted, matched characters lit."""

    DEFAULT_CSS = """
    MatchList { height: 1; }
    """
    COMPONENT_CLASSES = {"matchlist--folder", "matchlist--hit", "matchlist--chosen"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.matches: list = []  # steer_tui.project.fuzzy.Match
        self.chosen = 0
        self._top = 0

    def show(self, matches: list) -> None:
        self.matches = matches
        self.chosen = 0
        self._top = 0
        rows = max(1, min(len(matches), LIST_ROWS))
        if self.styles.height is None or self.styles.height.value != rows:
            self.styles.height = rows  # as tall as the matches, up to LIST_ROWS
        self.refresh()

    def move(self, step: int) -> None:
        if not self.matches:
            return
        self.chosen = max(0, min(len(self.matches) - 1, self.chosen + step))
        if self.chosen < self._top:
            self._top = self.chosen
        elif self.chosen >= self._top + LIST_ROWS:
            self._top = self.chosen - LIST_ROWS + 1
        self.refresh()

    @property
    def chosen_path(self) -> str | None:
        return self.matches[self.chosen].path if self.matches else None

    def render(self) -> Text:
        folder = self.get_component_rich_style("matchlist--folder")
        hit = self.get_component_rich_style("matchlist--hit")
        chosen = self.get_component_rich_style("matchlist--chosen")
        out = Text(no_wrap=True, overflow="ellipsis", end="")
        for row, m in enumerate(self.matches[self._top:self._top + LIST_ROWS]):
            i = self._top + row
            line = Text(no_wrap=True, overflow="ellipsis", end="")
            name_at = m.path.rfind("/") + 1
            line.append(" ")
            line.append(m.path[:name_at], folder)
            line.append(m.path[name_at:])
            for p in m.positions:
                line.stylize(hit, p + 1, p + 2)
            line.append(" " * max(0, self.size.width - len(line)))
            if i == self.chosen:
                line.stylize(chosen)
            if row:
                out.append("\n")
            out.append_text(line)
        return out

    def on_click(self, event: events.Click) -> None:
        i = self._top + event.y
        if 0 <= i < len(self.matches):
            self.chosen = i
            self.refresh()
            self.screen.action_choose()  # one click opens it, as in VS Code's quick open


class FinderScreen(ModalScreen[str | None]):
    """Gives back the chosen path (relative to the project root), or None (Esc)."""

    DEFAULT_CSS = """
    FinderScreen { align: center top; }
    FinderScreen > Vertical {
        width: 90%; max-width: 120; height: auto; margin-top: 2;
        border: round $accent; background: $surface; padding: 0 1;
    }
    FinderScreen Input { border: none; height: 1; padding: 0 1; background: $surface; }
    FinderScreen Input:focus { border: none; }
    FinderScreen #finder-hint { height: 1; color: $text-muted; }
    FinderScreen MatchList > .matchlist--folder { color: $text-muted; }
    FinderScreen MatchList > .matchlist--hit { color: $accent; text-style: bold underline; }
    FinderScreen MatchList > .matchlist--chosen { background: $primary 40%; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", priority=True),
        Binding("down", "move(1)", "Next", show=False, priority=True),
        Binding("up", "move(-1)", "Previous", show=False, priority=True),
        Binding("pagedown", f"move({LIST_ROWS})", "Page down", show=False, priority=True),
        Binding("pageup", f"move(-{LIST_ROWS})", "Page up", show=False, priority=True),
    ]

    def __init__(self, files, query: str = "", references: list[tuple[str, int]] = ()) -> None:
        """`files`: steer_tui.ui.project_files.ProjectFiles (listed again now; the list follows).
        `references`: the `path:line` places the answer on screen cites, listed first while the query
        is empty; choosing one gives back "path:line"."""
        super().__init__()
        self.files = files
        self._initial = query
        self.references = [Match(f"{path}:{line}", 0.0, ()) for path, line in references]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(value=self._initial, placeholder="Find a file by name · type > for commands", id="finder-input")
            yield MatchList(id="finder-list")
            yield Static("", id="finder-hint")

    @property
    def input(self) -> Input:
        return self.query_one("#finder-input", Input)

    @property
    def match_list(self) -> MatchList:
        return self.query_one("#finder-list", MatchList)

    def on_mount(self) -> None:
        self.files.listen(self._files_changed)
        self.files.refresh()
        self.input.focus()
        self._search()

    def on_unmount(self) -> None:
        self.files.unlisten(self._files_changed)

    def _files_changed(self) -> None:
        if self.is_attached:
            self._search(keep_choice=True)

    def _search(self, keep_choice: bool = False) -> None:
        index = self.files.index
        hint = self.query_one("#finder-hint", Static)
        chosen = self.match_list.chosen_path if keep_choice else None
        if index is None:
            self.match_list.show(list(self.references))
            hint.update(self.files.error or "listing the project's files…")
            return
        query = self.input.value
        matches = index.search(query, LIMIT)
        if self.references and not query.strip():
            matches = [*self.references, *matches][:LIMIT]
        self.match_list.show(matches)
        if chosen is not None:
            for i, m in enumerate(matches):
                if m.path == chosen:
                    self.match_list.move(i)
                    break
        total = len(index)
        found = f"{len(matches)}{'+' if len(matches) == LIMIT else ''} of {total:,} files" if query.strip() \
            else f"{total:,} files"
        if self.references and not query.strip():
            found = f"{len(self.references)} places the answer cites, then {found}"
        if self.files.listing:
            found += " · listing again…"
        hint.update(f"{found} · ↑↓ choose · Enter open · Esc close · > commands")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value.startswith(">"):
            self._to_palette(event.value[1:].lstrip())
            return
        self._search()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # not an instruction for the app's prompt
        self.action_choose()

    def _to_palette(self, words: str) -> None:
        """VS Code's convention: '>' turns the file finder into the command palette."""
        app = self.app
        self.dismiss(None)

        def open_palette() -> None:
            app.action_command_palette()
            if words:
                def fill() -> None:
                    from textual.command import CommandInput

                    try:
                        field = app.screen.query_one(CommandInput)
                    except Exception:
                        return
                    field.value = words
                    field.cursor_position = len(words)

                app.call_after_refresh(fill)

        app.call_after_refresh(open_palette)

    def action_move(self, step: int) -> None:
        self.match_list.move(step)

    def action_choose(self) -> None:
        path = self.match_list.chosen_path
        if path is not None:
            self.dismiss(path)

    def action_close(self) -> None:
        self.dismiss(None)
