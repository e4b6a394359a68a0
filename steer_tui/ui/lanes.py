"""Alternatives in the app ("lanes", steer_tui.alternatives): asked on the shown file's session, one lane shown at a time, settled by accept or reject."""

from __future__ import annotations

import asyncio
import difflib
from typing import TYPE_CHECKING

from steer_tui.edits.lines import document_lines
from steer_tui.edits.livediff import LiveDiff
from steer_tui.state import State
from steer_tui.ui.messages import LanesChanged
from steer_tui.ui.widgets.lane_bar import LaneView

if TYPE_CHECKING:
    from steer_tui.alternatives import Alternative, Alternatives
    from steer_tui.ui.host import SteerHost

FAILED = {"nothing": "nothing", "refused": "refused", "stopped": "stopped", "error": "error"}


def view_of(alt: Alternative, selected: bool) -> LaneView:
    if alt.status in ("waiting", "writing"):
        return LaneView(alt.lane, alt.status, alt.status, selected=selected)
    if alt.applies and alt.same_as is not None:
        return LaneView(alt.lane, f"= {alt.same_as}", "same", f"identical to lane {alt.same_as}", selected)
    if alt.applies:
        return LaneView(alt.lane, f"+{alt.added} -{alt.removed}", "proposal", alt.describe(), selected)
    return LaneView(alt.lane, FAILED.get(alt.status, alt.status), "failed", alt.reason, selected)


def hunks_of(base: str, text: str) -> list[tuple[int, int, list[str]]]:
    """The hunks (start, end, new lines; lines of `base`, end exclusive) that make `base` into `text`."""
    old, new = document_lines(base)[0], document_lines(text)[0]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(i1, i2, new[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


class Lanes:
    """Owns the alternatives asked in the app: their run (a worker), the lane selected and what the file
    view shows of it, and their end: accepting a lane (whole or a hunk) or rejecting it drops them all.

    While they are written the view follows the lane being written (on the embedded engine the lanes
    go one after another on the session itself), or shows a finished lane the user chose. Once they
    are all done, the lane selected is the session's proposal under review, as a turn's would be."""

    def __init__(self, app: SteerHost) -> None:
        self._app = app
        self.alternatives: Alternatives | None = None  # None: no lanes
        self.session = None  # the session they were asked on
        self.base = ""  # the file's text they were asked of
        self.instruction = ""
        self.region: tuple[int, int] | None = None
        self.selected = 1
        self.picked = False  # the user chose the lane (else it follows the lane being written, then the best)
        self.running = False
        self._restarting = False
        self._worker = None
        self._views: dict[int, LiveDiff] = {}

    # ----- what applies -------------------------------------------------------------------------

    @property
    def shown(self) -> bool:
        """There are lanes, of the file shown."""
        return self.alternatives is not None and self.session is self._app.session

    @property
    def writing(self) -> bool:
        """The lanes of the file shown are being written."""
        return self.running and self.shown

    def can_ask(self) -> bool:
        """Alternatives can be asked now: of the proposal under review, or of the words in the prompt."""
        app = self._app
        s = app.session
        if s is None or s.client is None or s.connection != "ready" or self.shown:
            return False
        if s.state == State.REVIEW and s.has_proposal and s.last_result is not None and s.instruction:
            return True
        return s.state == State.IDLE and app.prompt_has_text and not app.prompt.value.lstrip().startswith("?")

    def rows(self) -> list[LaneView]:
        """The lanes of the file shown, for the lane bar (none: no bar)."""
        if not self.shown:
            return []
        return [view_of(a, a.lane == self.selected) for a in self.alternatives.alternatives]

    # ----- asking -------------------------------------------------------------------------------

    def ask(self) -> None:
        """Ask the configured number of alternatives: of the proposal under review (it is lane 1), else
        of the words in the prompt."""
        app = self._app
        if not self.can_ask():
            return
        s = app.session
        keep = s.state == State.REVIEW
        if keep:
            words, region = s.instruction, s.region
        else:
            words = app.prompt.value.strip()
            app.prompt.remember(words)
            app.prompt.value = ""
            region = app.region_for_send(words)
        self.start(words, region, keep=keep)

    def start(self, words: str, region: tuple[int, int] | None, *, keep: bool = False) -> None:
        from steer_tui.alternatives import Alternatives

        app = self._app
        s = app.session
        self.session, self.base, self.instruction, self.region = s, s.document.text, words, region
        self.selected, self.picked, self._views = 1, False, {}
        self.alternatives = alts = Alternatives(s, words, region, app.settings.alternatives, retries=0,
                                                on_event=self._on_event, keep_first=keep)
        self.running = True
        app.code.follow = True
        self._worker = app.run_worker(self._run(alts), group="lanes", exit_on_error=False)
        self._changed()

    async def _run(self, alts: Alternatives) -> None:
        try:
            await alts.run()
        except asyncio.CancelledError:  # the app is closing
            self.running = False
            raise
        except Exception as exc:  # a lost backend: the lanes end where they are
            self._app.notify(f"alternatives: {exc}", severity="error", timeout=8)
        if alts is self.alternatives:
            self.running = False
            if not self._restarting:
                self._ended()

    def _on_event(self, ev) -> None:
        from steer_tui.alternatives import LaneStarted

        if isinstance(ev, LaneStarted) and not self.picked:
            self.selected = ev.lane  # the view follows the lane being written
        self._changed()

    def _ended(self) -> None:
        app = self._app
        alts, s = self.alternatives, self.session
        if alts.best is None:
            said = "; ".join(f"{a.lane}: {a.describe()}" for a in alts.alternatives)
            app.notify(f"no alternative to review ({said})", severity="warning", timeout=8)
            self.drop()
            return
        if s.document.text != self.base:
            app.notify("the file changed while the alternatives were written: they are dropped",
                       severity="warning", timeout=8)
            self.drop()
            return
        if not self.picked:
            self.selected = alts.best.lane
        self._review(self.selected)
        self._changed()

    def stop(self) -> None:
        """Esc: every lane stops now (steer_tui.alternatives.Alternatives.stop); the finished ones stay."""
        if self.running and self.alternatives is not None:
            self.alternatives.stop("stopped (Esc)")

    async def redirect(self, words: str) -> None:
        """Words typed while the lanes are written: every lane stops and the alternatives are asked
        again, of the request and these words as one (steer_tui.redirects.Redirects.redirected_request)."""
        from steer_tui.redirects import Redirects

        if not self.running or self.alternatives is None:
            return
        instruction = Redirects.redirected_request(self.instruction, [words])
        self._restarting = True
        try:
            self.alternatives.stop("redirected")
            if self._worker is not None:
                try:
                    await self._worker.wait()
                except Exception:
                    pass
        finally:
            self._restarting = False
        if self.session is self._app.session and self.session.state == State.IDLE:
            self.start(instruction, self.region)
        else:
            self.drop()

    # ----- switching, settling ------------------------------------------------------------------

    def step(self, by: int) -> None:
        """Select the next (`by` 1) or previous (-1) lane, identical ones merged into the first of them."""
        if not self.shown:
            return
        lanes = [a.lane for a in self.alternatives.alternatives if a.same_as is None]
        at = lanes.index(self.selected) if self.selected in lanes else 0
        self.selected = lanes[(at + by) % len(lanes)]
        self.picked = True
        if self.running:
            self._app.applier.sync_code(force=True)  # a call: the view shows the lane in this frame
        else:
            self._review(self.selected)
        self._changed()

    def lane_view(self, session) -> LiveDiff | None:
        """What the file view shows instead of the session's live diff: a finished lane chosen while
        another is written (None: the session's own)."""
        if not self.running or session is not self.session or self.alternatives is None:
            return None
        alt = self._target(self.selected)
        if alt is None or alt.status in ("waiting", "writing"):
            return None
        view = self._views.get(alt.lane)
        if view is None:
            lines = document_lines(self.base)[0]
            view = self._views[alt.lane] = LiveDiff(lines)
            view.reset(lines, hunks_of(self.base, alt.text) if alt.applies else [])
        return view

    def _target(self, lane: int) -> Alternative | None:
        """Lane `lane`, or the earlier lane it is identical to."""
        alts = self.alternatives.alternatives
        alt = next((a for a in alts if a.lane == lane), None)
        if alt is not None and alt.same_as is not None:
            alt = next((a for a in alts if a.lane == alt.same_as), alt)
        return alt

    def _review(self, lane: int) -> None:
        """Make lane `lane`'s proposal the session's, under review (none: the file as it is)."""
        app, s = self._app, self.session
        alt = self._target(lane)
        if s.state == State.GENERATING:
            return
        if alt is None or not alt.applies:
            if s.has_proposal:
                s.discard_proposal()
            if s.state != State.IDLE:
                s.set_state(State.IDLE)
        else:
            s.live.reset(document_lines(s.document.text)[0], hunks_of(s.document.text, alt.text))
            s.proposal_changed()
            if s.state != State.REVIEW:
                # IDLE -> REVIEW is no transition of the session's table (a proposal comes from a
                # turn): the lane's proposal arrives as a turn's answer would.
                s.set_state(State.GENERATING)
                s.set_state(State.REVIEW)
        if s is app.session:
            app.current_hunk = None  # review starts at the lane's first hunk
            app.flush_now()
            app.applier.after_state_change()

    def review_changed(self) -> None:
        """The session shown changed state or proposal: a lane accepted (whole or a hunk), rejected,
        or another turn started drops the lanes."""
        s = self.session
        if self.running or self.alternatives is None or s is not self._app.session:
            return
        alt = self._target(self.selected)
        if (s.state == State.GENERATING or s.document.text != self.base
                or (alt is not None and alt.applies and not s.has_proposal)):
            self.drop()

    def drop(self) -> None:
        """No more lanes (the proposal under review, if any, stays the session's)."""
        if self.alternatives is None:
            return
        if self.running:
            self.alternatives.stop("dropped")
        self.alternatives = None
        self.running = False
        self._views = {}
        self._changed()

    def _changed(self) -> None:
        self._app.post_message(LanesChanged())
