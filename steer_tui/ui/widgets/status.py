"""The status line: the open file, backend and model, connection, state, a queued instruction, time to
first token, tokens/s, tokens."""

from __future__ import annotations

import os
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.reactive import reactive
from textual.widget import Widget

NUMBERS_EVERY_S = 0.25  # the numbers change at most this often while streaming
CONNECTION_MARK = {"ready": "●", "connected": "●", "error": "✕", "connecting": "◌", "loading": "◌", "lost": "✕", "none": "✕", "closed": "✕"}


def backend_label(backend: str | None, model: str | None, server_model: str | None = None) -> str:
    """"backend · model" as the status line shows it; a ws:// gateway names its model once connected."""
    backend = backend or "local"
    if not model and backend.startswith(("ws://", "wss://")):
        model = server_model  # what the gateway at that URL says it serves
    if backend == "local" and not model:
        model = "qwen2.5-coder-1.5b (embedded)"
    if model and os.sep in str(model):
        model = Path(model).name
    return f"{backend} · {model}" if model else backend


def rate_text(tps: float | None) -> str:
    """Tokens a second for the status line: a decimal below 10, where a busy CPU puts a small model
    (0.4 tok/s is not "0")."""
    if tps is None:
        return "–"
    return f"{tps:.1f}" if tps < 10 else f"{tps:,.0f}"


class StatusLine(Widget):
    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; color: $foreground; }
    """

    file: reactive[str] = reactive("")  # the open file, relative to the project root
    backend: reactive[str] = reactive("")
    connection: reactive[str] = reactive("connecting")
    detail: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    ttft: reactive[float | None] = reactive(None)
    tps: reactive[float | None] = reactive(None)
    tokens: reactive[int | None] = reactive(None)
    drafted: reactive[int | None] = reactive(None)  # output tokens that came from accepted speculative drafts
    extra: reactive[str] = reactive("")
    queued: reactive[str] = reactive("")  # an instruction waiting for the backend (sent when it is ready)

    def __init__(self, *, mask_timings: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        # Snapshot tests mask the numbers that depend on the clock.
        self.mask_timings = mask_timings

    def set_numbers(self, ttft: float | None, tps: float | None, tokens: int | None, drafted: int | None = None) -> None:
        """Time to first token, tokens/s, tokens (and how many came from accepted drafts) in one repaint."""
        self.set_reactive(StatusLine.ttft, ttft)
        self.set_reactive(StatusLine.tps, tps)
        self.set_reactive(StatusLine.tokens, tokens)
        self.set_reactive(StatusLine.drafted, drafted)
        self.refresh()

    def render(self) -> Text:
        theme = self.app.theme_variables

        def col(name: str, fallback: str):
            try:
                return Color.parse(theme.get(name, fallback)).rich_color
            except Exception:
                return None
        conn_colour = {"ready": col("success", "green"), "lost": col("error", "red"),
                       "error": col("error", "red"), "none": col("error", "red")}.get(self.connection, col("warning", "yellow"))
        state_colour = {"generating": col("warning", "yellow"), "answering": col("warning", "yellow"), "interrupted": col("error", "red"),
                        "review": col("success", "green"), "conflict": col("error", "red")}.get(self.state)
        head = Text()
        if self.file:
            name = self.file if len(self.file) <= 48 else "…" + self.file[-47:]
            head.append(f" {name} ", style=Style(bold=True, color=col("accent", "cyan")))
            head.append("│")
        backend = Text()
        backend.append(f" {self.backend} ", style="bold")
        backend.append("│")
        state = Text(" ")
        state.append(CONNECTION_MARK.get(self.connection, "◌") + " ", style=Style(color=conn_colour))
        label = self.connection + (f": {self.detail}" if self.detail else "")
        state.append(label + " ")
        state.append("│ ")
        state.append(self.state, style=Style(bold=True, color=state_colour))
        state.append(" │ ")
        if self.queued:
            words = self.queued if len(self.queued) <= 32 else self.queued[:31] + "…"
            state.append(f"queued: {words}", style=Style(bold=True, color=col("warning", "yellow")))
            state.append(" (Esc takes it back) │ ")
        numbers = Text()
        if self.mask_timings:
            numbers.append("ttft – │ – tok/s │ – tok")
        else:
            ttft = "–" if self.ttft is None else f"{self.ttft * 1000:.0f} ms" if self.ttft < 1 else f"{self.ttft:.2f} s"
            tps = rate_text(self.tps)
            tokens = "–" if self.tokens is None else f"{self.tokens:,}"
            numbers.append(f"ttft {ttft} │ {tps} tok/s │ {tokens} tok")
            if self.drafted:
                numbers.append(f" ({self.drafted:,} drafted)")
        extra = Text(self.extra)
        if self.extra:
            numbers.append(" │ ")
        # The extra part (hunk, warning, conflict, syntax) is what to act on: where the line is too
        # narrow for all, the backend's name (the same all session) gives way first, then the numbers.
        dropped = 0
        if self.extra and self.size.width:
            sizes = [backend.cell_len, numbers.cell_len]
            total = head.cell_len + state.cell_len + sum(sizes) + extra.cell_len
            while dropped < len(sizes) and total > self.size.width:
                total -= sizes[dropped]
                dropped += 1
        text = Text(no_wrap=True, overflow="ellipsis")
        for part in (head, backend if dropped < 1 else None, state, numbers if dropped < 2 else None, extra):
            if part is not None:
                text.append_text(part)
        return text
