"""What the engine reads ahead in the app: the cursor's block as the next edit's region, once the cursor rests in it, and the instruction as it is typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

REGION_PREWARM_S = 0.4  # the cursor rests this long in a block: prewarm it as the next edit's region


class RegionPrewarm:
    """`later()` after every move of the cursor or the selection; the prewarm runs once they rest.
    `typed(words)` after every change of the prompt (steer_tui.typing_prewarm)."""

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

    def typed(self, words: str) -> None:
        """The prompt holds `words` now: the engine reads them as they are typed, unless an answer is
        written, or alternatives (their redirect asks them all again: steer_tui.ui.lanes)."""
        app = self.app
        if app.session is None or (app.asking is not None and app.asking.active) or app.lanes.writing:
            return
        from steer_tui.typing_prewarm import TypingPrewarmer

        if app.typing_prewarmer is None or app.typing_prewarmer.session is not app.session:
            app.typing_prewarmer = TypingPrewarmer(app.session)
        app.typing_prewarmer.typed(words, lambda: self.typed_region(words))

    def typed_region(self, words: str) -> tuple[int, int] | None:
        """The region the turn Enter would start with `words` has (Session.scoped), for the prewarm
        as they are typed; None: the turn takes it from the words."""
        app = self.app
        region = app.region_for_send(words)
        return region if region is None or app.session is None else app.session.scoped(words, region)[1]
