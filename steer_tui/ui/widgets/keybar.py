"""The footer line: the keys that apply now, drawn as one widget (click a key to press it)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget


class KeyBar(Widget):
    """Looks like Textual's Footer, but is one line of text.

    Textual's Footer removes and mounts a widget per key whenever the bindings change
    (every state change: Enter, the end of a stream, Esc), which costs a layout pass and
    15-30 ms in that frame. Here a change of keys is a repaint of one line, and only when
    the keys shown actually differ.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--divider"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyBar > .keybar--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyBar > .keybar--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyBar > .keybar--divider {
        color: $foreground 20%;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # ((key, key display, description, enabled), ...) shown on the left; the finder (or palette) key on the right.
        self._keys: tuple = ()
        self._palette: tuple | None = None
        self._spans: list[tuple[int, int, str]] = []  # (x0, x1, key) for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def sync(self) -> None:
        """Take up the keys that apply now, without waiting for the screen's bindings signal."""
        self._bindings_changed(self.screen)

    def _bindings_changed(self, screen) -> None:
        if screen is not self.screen:
            return
        app = self.app
        seen: set[str] = set()
        keys = []
        active = screen.active_bindings
        for _node, binding, enabled, _tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append((binding.key, app.get_key_display(binding), binding.description, enabled))
        palette = None
        if app.ENABLE_COMMAND_PALETTE:
            # On the right: the finder's key where the app has one (the palette is '>' in it), else the palette's.
            entry = active.get(getattr(app, "FINDER_KEY", None) or app.COMMAND_PALETTE_BINDING)
            if entry is not None:
                _node, binding, enabled, _tooltip = entry
                palette = (binding.key, app.get_key_display(binding), binding.description, enabled)
        keys_t = tuple(keys)
        if keys_t != self._keys or palette != self._palette:
            self._keys, self._palette = keys_t, palette
            self.refresh()  # one line repainted; the size never changes, so no layout

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keybar--key")
        desc_style = self.get_component_rich_style("keybar--description")
        dim = Style(dim=True)
        text = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, display, description, enabled in self._keys:
            start = x
            extra = Style() if enabled else dim
            part = f" {display} "
            text.append(part, key_style + extra)
            x += len(part)
            if description:
                text.append(description + " ", desc_style + extra)
                x += len(description) + 1
            spans.append((start, x, key))
        if self._palette is not None:
            # Docked on the right, as in Textual's Footer: the keys on the left are cut short first.
            key, display, description, enabled = self._palette
            right = 1 + len(display) + 1 + len(description) + 1
            width = self.size.width
            room = max(0, width - right)
            if x > room:
                text.truncate(room)
                spans = [(a, min(b, room), k) for a, b, k in spans if a < room]
            elif x < room:
                text.append(" " * (room - x))
            text.append("▏", self.get_component_rich_style("keybar--divider"))
            text.append(display, key_style)
            text.append(f" {description} ", desc_style)
            spans.append((room, width, key))
        self._spans = spans
        return text

    def on_mouse_down(self, event: events.MouseDown) -> None:
        for x0, x1, key in self._spans:
            if x0 <= event.x < x1:
                self.app.simulate_key(key)
                return
