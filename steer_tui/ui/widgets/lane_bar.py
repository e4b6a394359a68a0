"""The lane bar: one line over the alternatives being asked or reviewed, each lane's state and size, the one shown marked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

REASON_CHARS = 40  # the selected lane's reason on the bar; every lane's in full on hover


@dataclass(frozen=True, slots=True)
class LaneView:
    """One lane as the bar draws it: `label` its state or size, `reason` why it has no proposal."""

    lane: int
    label: str  # "waiting", "writing", "+3 -1", "= 1" (identical to lane 1), "refused", ...
    kind: str  # waiting | writing | proposal | same | failed: how it is drawn
    reason: str = ""
    selected: bool = False


class LaneBar(Widget):
    """Hidden while there are no lanes. `show(rows)` redraws it (steer_tui.ui.lanes.Lanes.rows)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"lanebar--title", "lanebar--selected", "lanebar--failed", "lanebar--proposal"}
    DEFAULT_CSS = """
    LaneBar { height: 1; display: none; background: $panel; color: $foreground; }
    LaneBar.-visible { display: block; }
    LaneBar > .lanebar--title { text-style: bold; color: $primary; }
    LaneBar > .lanebar--selected { background: $primary 40%; text-style: bold; }
    LaneBar > .lanebar--failed { color: $foreground 50%; }
    LaneBar > .lanebar--proposal { color: $success; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lanes: tuple[LaneView, ...] = ()

    def show(self, rows: Sequence[LaneView]) -> None:
        rows = tuple(rows)
        self.set_class(bool(rows), "-visible")
        if rows != self.lanes:
            self.lanes = rows
            self.tooltip = "\n".join(f"lane {r.lane}: {r.reason or r.label}" for r in rows) or None
            self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(" alternatives ", self.get_component_rich_style("lanebar--title"))
        selected = self.get_component_rich_style("lanebar--selected")
        styles = {"failed": self.get_component_rich_style("lanebar--failed"),
                  "proposal": self.get_component_rich_style("lanebar--proposal"),
                  "writing": Style(italic=True), "waiting": Style(dim=True), "same": Style(dim=True)}
        for r in self.lanes:
            text.append(" ")
            part = f" {r.lane} {r.label}{'…' if r.kind == 'writing' else ''} "
            if r.selected and r.kind == "failed" and r.reason:
                reason = r.reason if len(r.reason) <= REASON_CHARS else r.reason[: REASON_CHARS - 1] + "…"
                part = f" {r.lane} {r.label}: {reason} "
            style = styles.get(r.kind, Style())
            text.append(part, style + selected if r.selected else style)
        text.append("   Alt+←/→ lane", Style(dim=True))
        return text
