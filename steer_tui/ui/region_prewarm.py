"""The cursor's block prewarmed as the next edit's region, once the cursor rests in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

REGION_PREWARM_S = 0.4  # the cursor rests this long in a block: prewarm it as the next edit's region


class RegionPrewarm:
    """`later()` after every move of the cursor or the selection; the prewarm runs once they rest."""

    def __init__(self, app: SteerHost) -> None:
        self.app = app
        self.timer = None

    def later(self) -> None:
        # Debounced: moving through the file must not start a prewarm per line passed.
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.app.set_timer(REGION_PREWARM_S, self.now, name="region-prewarm")

    def now(self) -> None:
        self.timer = None
        app = self.app
        session = app.session
        if session is None or session.client is None or session.connection != "ready":
            return
        if app.asking is not None and app.asking.active:
            return  # the answer has the engine; a prewarm now would only wait behind it
        region = app.region_for_send()
        if region is not None:
            session.prewarm_region(region)
