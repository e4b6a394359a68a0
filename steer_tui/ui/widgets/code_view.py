"""The file view: a Line-API ScrollView drawing the document or a live diff from cached strips."""

from __future__ import annotations

import asyncio
import gc
import time

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from steer_tui.ui.themes import DARK_DEFAULTS, LIGHT_DEFAULTS
from steer_tui.ui.widgets.rows import PlainRows, row_for_old_line

SIGNS = {"removed": "-", "added": "+", "target": "│", "conflict": "!", "meta": " ", "raw": " ", "context": " "}
TAB = 4
SYNC_LEX_LINES = 500
GROW_STEP = 128  # virtual height step while the row count grows (streaming); at least this
LEX_PER_FRAME = 12  # new lines highlighted per frame; more are drawn plain and coloured next frame
FRAME_S = 1 / 60  # one frame: the lexing budget's period, and the re-sync delay for lines drawn plain


class CodeView(ScrollView, can_focus=True):
    """Draws rows (document lines or live-diff rows) with a gutter, highlighting, cursor and selection.

    Strips are cached by the row's content (not its index), so a row that only moved
    (lines inserted above it) costs nothing, and `sync()` refreshes only the visible
    rows whose content changed since they were drawn.
    """

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    CodeView { background: $code-bg; scrollbar-size-vertical: 1; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move(-20)", "Page up", show=False),
        Binding("pagedown", "move(20)", "Page down", show=False),
        Binding("ctrl+home", "move_to(0)", "Top", show=False),
        Binding("ctrl+end", "move_to(-1)", "Bottom", show=False),
        Binding("shift+up", "select(-1)", "Extend selection up", show=False),
        Binding("shift+down", "select(1)", "Extend selection down", show=False),
        Binding("shift+pageup", "select(-20)", "Extend selection a page up", show=False),
        Binding("shift+pagedown", "select(20)", "Extend selection a page down", show=False),
    ]

    cursor_line: reactive[int] = reactive(0, repaint=False, init=False)

    class SelectionChanged(Message):
        def __init__(self, view: "CodeView") -> None:
            super().__init__()
            self.view = view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.path: str | None = None
        self.lines: list[str] = []
        self._tokens: list | None = None  # per document line, None until lexed
        self._lex_gen = 0
        # Pygments (its import and the lexer's regexes: ~100 ms) is loaded after the first frame.
        self._line_lexer = None
        self._lexer_ready = False
        self._lex_requested = -1  # the document version whose highlighting has been started
        self.source = PlainRows(self.lines)
        self.mode = "file"  # file | diff | raw: what the rows are
        self.anchor: int | None = None  # selection anchor (document line), None: no selection
        self.cursor_placed = False  # the user put the cursor somewhere (keys or mouse): it means "here"
        self.follow = True  # keep the active edit in view until the user scrolls away
        self.growing = False  # an answer is streaming: rows are added every frame
        self._lex_budget = LEX_PER_FRAME
        self._budget_at = 0.0
        self._over_budget = False
        # A final picture (Esc) is drawn whole: no line left plain to be coloured a frame later.
        self.lex_unbounded = False
        self._resync_timer = None
        self.current_hunk: int | None = None
        self._cache: LRUCache[tuple, Strip] = LRUCache(4096)  # (row key, scroll x, width) -> line
        self._geometry: tuple[int, int, int] | None = None  # set while Textual renders the view
        self._drawn: dict[int, tuple] = {}
        self._max_width = 0
        self._styles: dict[str, Style] = {}
        self._token_styles: dict | None = None  # token type -> Style, loaded with the first tokens
        self._dragging = False
        self._programmatic_scroll = False

    # ----- data -------------------------------------------------------------------------

    def set_document(self, lines: list[str], path: str | None = None) -> None:
        """Show a (new version of the) document; highlighting follows (small files: at once)."""
        if path is not None and path != self.path:
            self.path = path
            self._lexer_ready = False
        self.lines = lines
        self._tokens = None
        self._max_width = max((len(line) for line in lines), default=0)
        self.cursor_line = min(self.cursor_line, max(0, len(lines) - 1))
        if self.anchor is not None and self.anchor >= len(lines):
            self.anchor = None
        if self.mode == "file" and isinstance(self.source, PlainRows):
            self.source = PlainRows(lines)
        self._lex_gen += 1
        if self._lexer_ready and len(lines) <= SYNC_LEX_LINES:
            # Small files: highlight now (a few ms), so an accepted edit never flashes uncoloured.
            from steer_tui.ui.highlight import lex_lines

            self._lex_requested = self._lex_gen
            self._tokens = lex_lines(self._line_lexer.lexer, "\n".join(lines))
        elif self.is_mounted:
            # The first time, find the lexer after the first frame: start-up shows the text first.
            self.call_after_refresh(self._highlight, self._lex_gen)
        self.invalidate()

    def _highlight(self, gen: int) -> None:
        if gen != self._lex_gen or gen == self._lex_requested:
            return
        self._lex_requested = gen
        if len(self.lines) <= SYNC_LEX_LINES:
            from steer_tui.ui.highlight import LineLexer, lex_lines, lexer_for

            if not self._lexer_ready:
                self._line_lexer = LineLexer(lexer_for(self.path))
                self._lexer_ready = True
            self._tokens = lex_lines(self._line_lexer.lexer, "\n".join(self.lines))
            self._cache.clear()  # cached strips were drawn plain
            self.invalidate()
        else:
            self._start_lexing()

    @property
    def highlighted(self) -> bool:
        return self._tokens is not None

    def _start_lexing(self) -> None:
        gen = self._lex_gen
        text = "\n".join(self.lines)
        path = self.path
        line_lexer = self._line_lexer if self._lexer_ready else None

        def work():
            # In the thread: importing Pygments and compiling the lexer's regexes take
            # ~100 ms, which would otherwise hold up the frames right after start-up.
            from steer_tui.ui.highlight import LineLexer, lex_lines, lexer_for

            lexer = line_lexer or LineLexer(lexer_for(path))
            return lexer, lex_lines(lexer.lexer, text)

        async def run() -> None:
            lexer, tokens = await asyncio.to_thread(work)
            if not self._lexer_ready:
                self._line_lexer, self._lexer_ready = lexer, True
            if gen == self._lex_gen:
                self._tokens = tokens
                self._cache.clear()  # cached strips were drawn plain
                self.invalidate()
                # A big file's lines and tokens live as long as the view: keep them out of the
                # cyclic GC's full collections, which otherwise stall a frame for ~100 ms.
                gc.freeze()

        self.run_worker(run(), group="lex", exclusive=True, exit_on_error=False)

    def set_source(self, source, mode: str = "file") -> None:
        """Draw another row source: the live diff, or text rows for the diff/raw toggle."""
        self.source = source if source is not None else PlainRows(self.lines)
        self.mode = mode if source is not None else "file"
        self.sync(force=True)

    @property
    def row_count(self) -> int:
        return self.source.row_count

    @property
    def selection(self) -> tuple[int, int] | None:
        """Selected document lines (start, end), 0-based, end exclusive; None without a selection."""
        if self.anchor is None:
            return None
        a, b = sorted((self.anchor, self.cursor_line))
        return a, b + 1

    def clear_selection(self) -> bool:
        if self.anchor is None:
            return False
        self.anchor = None
        self.invalidate()
        self.post_message(self.SelectionChanged(self))
        return True

    # ----- refresh ----------------------------------------------------------------------

    def invalidate(self) -> None:
        """Everything may look different (theme, document, cursor/selection): redraw the visible rows."""
        self._drawn.clear()
        self._update_virtual_size()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}
        self._cache.clear()
        self._drawn.clear()

    def _update_virtual_size(self) -> None:
        rows = self.source.row_count
        if self.growing:
            # While an answer streams the row count grows every frame; a new virtual size
            # means a layout pass of the whole screen, so grow it in steps instead: an eighth
            # of the rows at a time (a few layouts per answer even on a 10,000-line file).
            step = max(GROW_STEP, -(-(rows // 8) // GROW_STEP) * GROW_STEP)
            rows = max(-(-rows // step) * step, self.virtual_size.height)  # never shrinks mid-stream
        width = self._gutter_width() + self._max_width + 1
        size = Size(width, rows)
        if size != self.virtual_size and not self._resize_in_place(size):
            self.virtual_size = size

    def _resize_in_place(self, size: Size) -> bool:
        """A new virtual size that shows or hides no scrollbar, applied without a layout pass.

        Assigning `virtual_size` asks for a layout of the screen, and a layout refreshes the
        scrollbars only after it, so their new picture lands a frame late: Esc (the exact size
        again after the stream's stepped one) changed the screen in two frames. This view's
        own size comes from CSS, never from its content, so only the scroll range changes:
        set it and the scrollbars' ranges now, and all of it shows in the next paint.
        """
        if not self.is_mounted or not self.size:
            return False
        width, height = self.container_size
        if not width or not height:
            return False
        vertical = size.height > height
        horizontal = size.width > (width - self.styles.scrollbar_size_vertical if vertical else width)
        if horizontal:  # as Textual decides it: a horizontal bar takes a row from the height
            vertical = size.height > height - self.styles.scrollbar_size_horizontal
        if vertical != self.show_vertical_scrollbar or horizontal != self.show_horizontal_scrollbar:
            return False  # a scrollbar appears or goes: that is a layout change
        self.set_reactive(ScrollView.virtual_size, size)
        if vertical:
            self.vertical_scrollbar.window_virtual_size = size.height
        if horizontal:
            self.horizontal_scrollbar.window_virtual_size = size.width
        if self.scroll_y > self.max_scroll_y or self.scroll_x > self.max_scroll_x:
            self.scroll_to(x=min(self.scroll_x, self.max_scroll_x), y=min(self.scroll_y, self.max_scroll_y),
                           animate=False, immediate=True)
        return True

    def sync(self, force: bool = False) -> int:
        """Called once per frame after the row source changed: refresh only the rows that differ.

        Returns how many rows were refreshed.
        """
        if force:
            self._drawn.clear()
        self._update_virtual_size()
        top = int(self.scroll_y)
        height = self.size.height
        count = self.source.row_count
        changed = 0
        run_start = None
        for i in range(top, top + height):
            key = self._row_key(i) if i < count else None
            if self._drawn.get(i, ()) != key:
                changed += 1
                if run_start is None:
                    run_start = i
            elif run_start is not None:
                self.refresh_lines(run_start, i - run_start)
                run_start = None
        if run_start is not None:
            self.refresh_lines(run_start, top + height - run_start)
        return changed

    def _resync(self) -> None:
        self._resync_timer = None
        self.sync()

    def follow_row(self, row: int | None) -> None:
        """Keep `row` (the line being written) in the middle of the view, unless the user scrolled away.

        The position is a function of the row alone (typewriter scrolling), so what the
        screen shows does not depend on how many frames the stream happened to take.
        """
        if row is None or not self.follow:
            return
        # Quantised: the view moves a third of a screen at a time, keeping the row in the
        # middle third, so a steadily growing edit scrolls (a full repaint) every ~h/3 lines.
        height = self.size.height
        step = max(1, height // 3)
        target = max(0, ((row - step) // step) * step)
        target = max(0, min(target, self.source.row_count - height))
        if target != int(self.scroll_y):
            self._programmatic_scroll = True
            self.scroll_to(y=target, animate=False, immediate=True)
            self._programmatic_scroll = False

    def scroll_back_to(self, x: float, y: float) -> None:
        """Put the view back where it was when its file was last shown (not a scroll by the user)."""
        self._programmatic_scroll = True
        self.scroll_to(x=x, y=y, animate=False, immediate=True)
        self._programmatic_scroll = False

    def show_rows(self, first: int, stop: int) -> None:
        """Bring rows [first, stop) into view, a third of the way down (a hunk in review)."""
        height = self.size.height or 1
        target = max(0, min(first - height // 3, self.source.row_count - height))
        self._programmatic_scroll = True
        self.scroll_to(y=target, animate=False, immediate=True)
        self._programmatic_scroll = False

    def scroll_to_row(self, row: int, center: bool = False) -> None:
        height = self.size.height or 1
        top = int(self.scroll_y)
        if center or not (top <= row < top + height):
            target = row - height // 2 if center else (row if row < top else row - height + 1)
            self._programmatic_scroll = True
            self.scroll_to(y=max(0, target), animate=False, immediate=True)
            self._programmatic_scroll = False

    # ----- rendering ----------------------------------------------------------------------

    def _gutter_width(self) -> int:
        return len(str(max(len(self.lines), self.source.row_count, 1))) + 3

    def _row_key(self, i: int) -> tuple:
        row = self.source.row(i)
        kind = row.kind
        flags = 0
        old = row.old_no
        if self.mode == "file" and old is not None and kind != "added":
            line = old - 1
            if line == self.cursor_line and self.has_focus_within_app:
                flags |= 1
            if self.anchor is not None:
                a, b = sorted((self.anchor, self.cursor_line))
                if a <= line <= b:
                    flags |= 2
        if row.hunk is not None and row.hunk == self.current_hunk:
            flags |= 4
        if getattr(row, "partial", False):
            flags |= 8  # drawn without highlighting until the line is complete
        spans = row.spans
        if spans and not isinstance(spans, tuple):
            spans = tuple(tuple(s) for s in spans)
        number = old if kind != "added" else None
        if self.mode != "file":
            number = row.new_no
        return (kind, row.text, number, spans, flags)

    @property
    def has_focus_within_app(self) -> bool:
        # The cursor line shows whether or not the view has focus: the prompt usually has it,
        # and the cursor still says where "here" is for the next instruction.
        return True

    def _style(self, name: str) -> Style:
        styles = self._styles
        if not styles:
            self._build_styles()
        return self._styles[name]

    def _build_styles(self) -> None:
        app = self.app
        variables = dict(LIGHT_DEFAULTS if not app.current_theme.dark else DARK_DEFAULTS)
        variables.update({k: v for k, v in app.theme_variables.items() if k in variables})

        def color(name: str):
            try:
                return Color.parse(variables[name]).rich_color
            except Exception:
                return None

        fg = color("code-fg")
        bg = color("code-bg")
        self._styles = {
            "base": Style(color=fg, bgcolor=bg),
            "gutter": Style(color=color("gutter-fg"), bgcolor=color("gutter-bg")),
            "cursor": Style(bgcolor=color("cursor-line-bg")),
            "selection": Style(bgcolor=color("selection-bg")),
            "removed": Style(bgcolor=color("diff-removed-bg")),
            "removed-sign": Style(color=color("diff-removed-fg"), bold=True),
            "removed-intra": Style(bgcolor=color("diff-removed-intra-bg")),
            "added": Style(bgcolor=color("diff-added-bg")),
            "added-sign": Style(color=color("diff-added-fg"), bold=True),
            "added-intra": Style(bgcolor=color("diff-added-intra-bg")),
            "target": Style(bgcolor=color("diff-target-bg")),
            "conflict": Style(bgcolor=color("diff-conflict-bg")),
            "hunk": Style(color=color("diff-hunk-marker"), bold=True),
            "meta": Style(color=color("diff-hunk-marker"), bold=True),
        }
        self._token_styles = None  # the theme's Pygments style, loaded when tokens are drawn

    def _load_token_styles(self) -> dict:
        from steer_tui.ui.highlight import token_styles

        app = self.app
        theme = app.current_theme
        pyg = getattr(app, "pygments_style_for", None)
        name = pyg(theme.name) if pyg else ("monokai" if theme.dark else "default")
        self._token_styles = token_styles(name)
        return self._token_styles

    def _tokens_for(self, row) -> tuple:
        if self.mode != "file":
            return ()
        old = row.old_no
        tokens = self._tokens
        if tokens is not None and old is not None and row.kind != "added" and 0 < old <= len(tokens):
            if old <= len(self.lines) and self.lines[old - 1] == row.text:
                return tokens[old - 1]
        if tokens is None and row.kind == "context":
            return ()  # highlighting arrives with the lexer thread; plain until then
        if getattr(row, "partial", False):
            return ()  # the line being written changes every frame: colour it once complete
        lexer = self._line_lexer
        if lexer is None:
            self._over_budget = True  # drawn plain, not cached: coloured once the lexer is loaded
            return ()
        if not lexer.cached(row.text):
            now = time.perf_counter()
            if now - self._budget_at > FRAME_S:
                self._budget_at, self._lex_budget = now, LEX_PER_FRAME
            if self._lex_budget <= 0 and not self.lex_unbounded:
                # Over this frame's budget (a fast stream shows many new lines at once): draw it
                # plain now, uncached, and colour it in a later frame.
                self._over_budget = True
                return ()
            self._lex_budget -= 1
        return lexer(row.text)

    def _build(self, key: tuple, row, scroll_x: int, width: int) -> Strip:
        kind, text, number, spans, flags = key
        base = self._style("base")
        if kind in ("removed", "added", "target", "conflict"):
            row_style = base + self._style(kind)
        else:
            row_style = base
        if flags & 2:
            row_style = row_style + self._style("selection")
        elif flags & 1:
            row_style = row_style + self._style("cursor")
        gw = self._gutter_width()
        gutter_style = self._style("gutter")
        if flags & 1:
            gutter_style = gutter_style + Style(bold=True)
        num = "" if number is None else str(number)
        sign = SIGNS.get(kind, " ")
        sign_style = row_style
        if kind in ("removed", "added"):
            sign_style = row_style + self._style(f"{kind}-sign")
        if flags & 4:
            sign = "▌" if sign == " " else sign
            sign_style = sign_style + self._style("hunk")
        gutter = [Segment(num.rjust(gw - 2) + " ", gutter_style), Segment(sign, sign_style)]
        if "\t" in text:
            text = text.expandtabs(TAB)
        segments: list[Segment] = []
        if kind == "meta":
            segments.append(Segment(text, row_style + self._style("meta")))
        else:
            runs = self._tokens_for(row) if kind != "raw" else ()
            intra = self._style(f"{kind}-intra") if spans and kind in ("removed", "added") else None
            styles = self._token_styles
            if runs and styles is None:
                styles = self._load_token_styles()
            segments = _segments(text, runs, row_style, styles or {}, spans if intra else (), intra)
        text_width = max(0, width - gw)
        length = cell_len(text)
        if scroll_x == 0 and length <= text_width:
            # The usual case, built in one go: no crop, no join, the cell length known.
            if length < text_width:
                segments.append(Segment(" " * (text_width - length), row_style))
            return Strip(gutter + segments, gw + text_width)
        body = Strip(segments, length).crop_extend(scroll_x, scroll_x + text_width, row_style)
        return Strip(gutter + list(body), gw + text_width)

    def render_lines(self, crop: Region) -> list[Strip]:
        # Geometry once per widget render rather than per line (each `size` lookup walks the DOM).
        self._geometry = (*self.scroll_offset, self.size.width)
        try:
            return super().render_lines(crop)
        finally:
            self._geometry = None

    def render_line(self, y: int) -> Strip:
        geometry = self._geometry
        if geometry is None:
            scroll_x, scroll_y = self.scroll_offset
            width = self.size.width
        else:
            scroll_x, scroll_y, width = geometry
        i = scroll_y + y
        if i >= self.source.row_count:
            self._drawn[i] = None
            return Strip.blank(width, self._style("base"))
        key = self._row_key(i)
        # The finished line is cached (not its parts): returning the same Strip object lets
        # Textual's own per-strip caches (crop, filters, divide) hit as well.
        cache_key = (key, scroll_x, width)
        line = self._cache.get(cache_key)
        if line is None:
            self._over_budget = False
            line = self._build(key, self.source.row(i), scroll_x, width)
            if self._over_budget:
                key = None  # drawn plain: not cached, and redrawn by the next sync
                if self._resync_timer is None:
                    self._resync_timer = self.set_timer(FRAME_S, self._resync)
            else:
                self._cache[cache_key] = line
        self._drawn[i] = key
        return line

    # ----- keys and mouse -------------------------------------------------------------------

    def _set_cursor(self, line: int, extend: bool) -> None:
        self.cursor_placed = True
        line = max(0, min(line, max(0, len(self.lines) - 1)))
        had = self.anchor
        if extend and self.anchor is None:
            self.anchor = self.cursor_line
        elif not extend:
            self.anchor = None
        self.cursor_line = line
        self.invalidate()
        self.scroll_to_row(row_for_old_line(self.source, line) if self.mode == "file" else line)
        if had != self.anchor or extend:
            self.post_message(self.SelectionChanged(self))

    def action_move(self, delta: int) -> None:
        if self.mode != "file":
            self.follow = False
            self.scroll_relative(y=delta, animate=False)
            return
        self.follow = False
        self._set_cursor(self.cursor_line + delta, extend=False)

    def action_move_to(self, line: int) -> None:
        self.follow = False
        self._set_cursor(len(self.lines) - 1 if line < 0 else line, extend=False)

    def show_line(self, line: int) -> None:
        """Put the cursor on `line` and its row a third of the way down (a place opened from the
        finder: what leads up to it shows too, not only what follows)."""
        self.action_move_to(line)
        row = row_for_old_line(self.source, self.cursor_line) if self.mode == "file" else self.cursor_line
        self.show_rows(row, row + 1)

    def action_select(self, delta: int) -> None:
        if self.mode == "file":
            self.follow = False
            self._set_cursor(self.cursor_line + delta, extend=True)

    def _line_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        i = int(self.scroll_y) + offset.y
        count = self.source.row_count
        if count == 0 or self.mode != "file":
            return None
        i = max(0, min(i, count - 1))
        # An added row has no file line; use the nearest file line above it.
        while i > 0 and self.source.row(i).old_no is None:
            i -= 1
        old = self.source.row(i).old_no
        return (old - 1) if old is not None else 0

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.button != 1:
            return
        line = self._line_at(event)
        if line is None:
            return
        self._dragging = True
        self.cursor_placed = True
        self.capture_mouse()
        had = self.anchor
        self.anchor = None
        self.cursor_line = line
        self._drag_start = line
        self.invalidate()
        if had is not None:
            self.post_message(self.SelectionChanged(self))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if not self._dragging:
            return
        line = self._line_at(event)
        if line is None or line == self.cursor_line and self.anchor is not None:
            return
        if line != self._drag_start:
            self.anchor = self._drag_start
            self.cursor_line = line
            self.invalidate()
            self.post_message(self.SelectionChanged(self))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.follow = False

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.follow = False

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)
        if self.lines and self._tokens is None:
            self.call_after_refresh(self._highlight, self._lex_gen)

    def _theme_changed(self, _name: str) -> None:
        self._styles = {}
        self._cache.clear()
        self.invalidate()


_STYLE_MEMO: dict = {}  # (row style, token type) -> combined style; styles differ per theme, keys too


def _segments(text, runs, row_style, styles, spans, intra) -> list[Segment]:
    """Split a line into styled segments: token runs, then intra-line change spans on top."""
    out: list[Segment] = []
    pos = 0
    n = len(text)
    pieces: list[tuple[int, int, Style]] = []
    for length, ttype in runs:
        if pos >= n:
            break
        end = min(n, pos + length)
        key = (row_style, ttype, id(styles))
        style = _STYLE_MEMO.get(key)
        if style is None:
            if len(_STYLE_MEMO) > 20000:
                _STYLE_MEMO.clear()
            from steer_tui.ui.highlight import style_for

            style = _STYLE_MEMO[key] = row_style + style_for(styles, ttype)
        pieces.append((pos, end, style))
        pos = end
    if pos < n:
        pieces.append((pos, n, row_style))
    if spans:
        cuts = sorted({0, n, *(max(0, min(n, s)) for span in spans for s in span[:2])})
        marked = set()
        for span in spans:
            s, e = span[0], span[1]
            for c in cuts:
                if s <= c < e:
                    marked.add(c)
        split: list[tuple[int, int, Style]] = []
        for start, end, style in pieces:
            points = [start] + [c for c in cuts if start < c < end] + [end]
            for a, b in zip(points, points[1:]):
                seg_start = max(c for c in cuts if c <= a)
                split.append((a, b, style + intra if seg_start in marked else style))
        pieces = split
    for start, end, style in pieces:
        if end > start:
            out.append(Segment(text[start:end], style))
    return out
