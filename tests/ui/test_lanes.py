"""Pilot tests: alternatives in the app (lanes, steer_tui/ui/lanes.py), through the real gateway with
recorded answers, one per request, on an engine that departs (as the embedded one: lanes one after another)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from steer_tui.alternatives import SAMPLE_TEMPERATURE
from steer_tui.config import ConfigError, load_settings
from steer_tui.server.engines.base import Engine
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.transport.backends import gateway_info

from .conftest import TWO_BLOCKS, Backend, replay_app, wait_until

# Another answer to "validate quantity" for examples/inventory.py: one block.
ONE_BLOCK = '''<<<<<<< SEARCH
    def add(self, name, price, quantity=1):
        if name in self.items:
=======
    def add(self, name, price, quantity=1):
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        if name in self.items:
>>>>>>> REPLACE
'''
# An answer whose SEARCH is not in the file: refused.
NOT_THERE = '''<<<<<<< SEARCH
    def subtract(self, name):
=======
    def subtract(self, name, quantity=1):
>>>>>>> REPLACE
'''


class Recordings(Engine):
    """Plays recorded answers in order, one per generating request (the last repeats), each through
    the ReplayEngine; lists `avoid` as the embedded engine does, so the lanes depart one after another
    on the session itself. `hold`: {request number (1-based): characters} holds that answer there until
    it is cancelled. Not a model."""

    name = "replay"
    label = "replay (recorded text, not a model)"
    features = frozenset({"avoid", "stop"})

    def __init__(self, texts: list[str], hold: dict[int, int] | None = None, features: frozenset[str] | None = None):
        if features is not None:
            self.features = features
        self.players = [ReplayEngine(t) for t in texts]
        self.requests = []
        self.hold = hold or {}
        self.holding = asyncio.Event()
        self.cancelled = 0

    async def start(self) -> None:
        for p in self.players:
            await p.start()

    async def stream(self, request, cancel: threading.Event):
        if not request.generate:
            async for delta in self.players[0].stream(request, cancel):
                yield delta
            return
        self.requests.append(request)
        number = len(self.requests)
        player = self.players[min(number, len(self.players)) - 1]
        hold = self.hold.get(number)
        sent = 0
        async for delta in player.stream(request, cancel):
            if hold is not None and sent + len(delta) > hold:
                self.holding.set()
                try:
                    while not cancel.is_set():
                        await asyncio.sleep(0.005)
                finally:  # the gateway sets `cancel` and cancels the task reading this answer
                    self.cancelled += cancel.is_set()
                request.finish_reason = "cancelled"
                return
            sent += len(delta)
            yield delta


async def lanes_backend(backends, texts: list[str], hold: dict[int, int] | None = None,
                        features: frozenset[str] | None = None) -> Backend:
    b = await backends(engine=Recordings(texts, hold, features))
    b.client.server_info = await gateway_info(b.url)  # what open_backend asks on connect: the engine's features
    return b


async def ready(pilot, app) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")


async def ask_lanes(pilot, app, words: str = "validate quantity") -> None:
    """Alt+A with `words` in the prompt; returns once every lane is done."""
    await ready(pilot, app)
    app.prompt.value = words
    await pilot.pause()
    await pilot.press("alt+a")
    await wait_until(pilot, lambda: app.lanes.alternatives is not None and not app.lanes.running, what="the lanes")
    await pilot.pause()


def labels(app) -> list[str]:
    return [r.label for r in app.lanes.rows()]


def added(app) -> list[str]:
    live = app.session.live
    return [r.text for r in live.rows(0, live.row_count) if r.kind == "added"]


async def test_alt_a_asks_three_lanes_merges_identical_ones_and_reviews_the_first(sample, backends):
    before = sample.read_text()
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        assert not app.check_action("alternatives", ())  # nothing to ask alternatives of
        app.prompt.value = "validate quantity"
        await pilot.pause()
        assert app.check_action("alternatives", ())
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: not app.lanes.running, what="the lanes")
        await pilot.pause()
        first, second, third = b.engine.requests
        assert first.avoid is None and second.avoid is not None and third.avoid is None
        assert third.temperature == SAMPLE_TEMPERATURE  # the second departs, the third is sampled
        assert app.prompt.value == ""
        assert labels(app) == ["+4 -1", "+2 -0", "= 1"]
        assert app.lane_bar.display and "identical to lane 1" in app.lane_bar.tooltip
        # Lane 1 (the most likely) is the proposal under review, the file untouched.
        assert app.lanes.selected == 1 and app.session.state == "review" and app.session.live.hunk_count == 2
        assert app.current_hunk == 0 and app.status.extra.startswith("hunk 1/2")
        assert sample.read_text() == before
        assert app.check_action("lane", (1,)) and app.check_action("accept_all", ())
        assert not app.check_action("alternatives", ())  # while lanes are shown
        await pilot.press("alt+right")
        assert app.lanes.selected == 2 and app.session.live.hunk_count == 1
        assert '            raise ValueError("quantity must be at least 1")' in added(app)
        assert [r.selected for r in app.lanes.rows()] == [False, True, False]
        await pilot.press("alt+right")  # lane 3 is lane 1: merged, passed over
        assert app.lanes.selected == 1 and app.session.live.hunk_count == 2
        await pilot.press("alt+left")
        assert app.lanes.selected == 2
        assert sample.read_text() == before  # switching writes nothing


async def test_where_the_engine_cannot_depart_the_other_lanes_are_sampled_at_once(sample, backends):
    from steer_tui.alternatives import SAMPLE_TEMPERATURE

    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, ONE_BLOCK], features=frozenset({"stop"}))
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_lanes(pilot, app)
        first, *rest = b.engine.requests
        assert first.temperature is None and [r.temperature for r in rest] == [SAMPLE_TEMPERATURE] * 2
        assert len({r.session_key for r in b.engine.requests}) == 3  # each lane on a stream of its own
        assert labels(app) == ["+4 -1", "+2 -0", "= 2"]
        await pilot.press("alt+right")
        assert app.lanes.selected == 2 and app.session.live.hunk_count == 1


async def test_accepting_a_lane_writes_it_drops_the_others_and_undo_restores_the_file(sample, backends):
    before = sample.read_text()
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_lanes(pilot, app)
        await pilot.press("alt+right")
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.session.state == "idle", what="accepted")
        await pilot.pause()
        text = sample.read_text()
        assert 'raise ValueError("quantity must be at least 1")' in text and "total = 0.0" not in text
        assert app.lanes.alternatives is None and labels(app) == [] and not app.lane_bar.display
        assert not app.check_action("lane", (1,))
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert sample.read_text() == before


async def test_accepting_one_hunk_of_a_lane_drops_the_others_and_keeps_the_rest_of_it(sample, backends):
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_lanes(pilot, app)
        await pilot.press("alt+y")  # the first hunk of lane 1
        await pilot.pause()
        text = sample.read_text()
        assert 'raise ValueError("quantity must be positive")' in text and "total = 0.0" not in text
        assert app.lanes.alternatives is None and not app.lane_bar.display
        assert app.session.state == "review" and app.session.live.hunk_count == 1  # lane 1's other hunk
        assert '        total = 0.0' in added(app)


async def test_reject_all_drops_every_lane_and_writes_nothing(sample, backends):
    before = sample.read_text()
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_lanes(pilot, app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.lanes.alternatives is None and not app.lane_bar.display
        assert app.session.state == "idle" and not app.session.has_proposal
        assert sample.read_text() == before


async def test_a_lane_that_cannot_apply_says_why_and_leaves_nothing_to_review(sample, backends):
    b = await lanes_backend(backends, [TWO_BLOCKS, NOT_THERE])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_lanes(pilot, app)
        assert labels(app) == ["+4 -1", "refused", "refused"]
        assert app.lanes.rows()[1].reason  # on hover, and on the bar when selected
        await pilot.press("alt+right")
        assert app.lanes.selected == 2 and app.session.state == "idle" and not app.session.has_proposal
        assert app.lanes.alternatives is not None and app.check_action("reject_all", ())  # Ctrl+N drops them
        await pilot.press("alt+left")
        assert app.session.state == "review" and app.session.live.hunk_count == 2


async def test_when_no_lane_applies_the_app_says_why_and_nothing_is_left(sample, backends):
    before = sample.read_text()
    b = await lanes_backend(backends, [NOT_THERE])
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        app.prompt.value = "validate quantity"
        await pilot.pause()
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: len(b.engine.requests) == 3 and not app.lanes.running, what="the lanes")
        await pilot.pause()
        assert app.lanes.alternatives is None and not app.lane_bar.display
        assert app.session.state == "idle" and not app.session.has_proposal
        said = [n.message for n in app._notifications if "no alternative" in n.message]
        assert said and "1: refused" in said[0]
        assert sample.read_text() == before


async def test_esc_stops_every_lane_and_a_finished_lane_can_be_shown_while_another_is_written(sample, backends):
    before = sample.read_text()
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS], hold={2: ONE_BLOCK.index("        if quantity")})
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        app.prompt.value = "validate quantity"
        await pilot.pause()
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: b.engine.holding.is_set(), what="lane 2 to be written")
        await pilot.pause()
        assert labels(app) == ["+4 -1", "writing", "waiting"] and app.lanes.selected == 2
        assert app.check_action("stop", ()) and not app.check_action("accept_all", ())
        # Lane 1 is done: shown while lane 2 is written, the session's own diff left to lane 2.
        await pilot.press("alt+left")
        assert app.lanes.selected == 1 and app.lanes.running
        assert app.code.source is not app.session.live and app.code.source.hunk_count == 2
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.lanes.running, what="the lanes to stop")
        await pilot.pause()
        await wait_until(pilot, lambda: b.engine.cancelled == 1, what="lane 2 cancelled on the gateway")
        assert len(b.engine.requests) == 2  # lane 3 never asked
        assert [a.status for a in app.lanes.alternatives.alternatives] == ["proposal", "stopped", "stopped"]
        assert labels(app) == ["+4 -1", "stopped", "stopped"]
        assert app.session.state == "review" and app.session.live.hunk_count == 2  # lane 1 under review
        assert app.code.source is app.session.live
        assert sample.read_text() == before


async def test_a_proposal_on_screen_is_lane_one_and_the_others_are_asked_beside_it(sample, backends):
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b, alternatives=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        assert len(b.engine.requests) == 1 and app.check_action("alternatives", ())
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: app.lanes.alternatives is not None and not app.lanes.running, what="lanes")
        await pilot.pause()
        assert len(b.engine.requests) == 2  # one more: the proposal on screen was not asked again
        assert b.engine.requests[1].avoid is not None  # it departs from the answer on screen
        assert labels(app) == ["+4 -1", "+2 -0"]
        assert app.session.live.hunk_count == 2 and app.lanes.selected == 1


async def test_words_sent_while_lanes_are_written_ask_them_all_again(sample, backends):
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, ONE_BLOCK, ONE_BLOCK, TWO_BLOCKS],
                            hold={2: ONE_BLOCK.index("        if quantity")})
    app = replay_app(sample, b)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot, app)
        app.prompt.value = "validate quantity"
        await pilot.pause()
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: b.engine.holding.is_set(), what="lane 2 to be written")
        app.prompt.value = "only in add"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.lanes.alternatives is not None and not app.lanes.running
                         and len(b.engine.requests) == 5, what="the lanes asked again")
        await pilot.pause()
        await wait_until(pilot, lambda: b.engine.cancelled == 1, what="the lane being written cancelled")
        again = b.engine.requests[2]
        assert again.avoid is None  # a new first lane, of the request and the words as one
        said = again.messages[-1]["content"]
        assert "validate quantity" in said and "only in add" in said
        assert "validate quantity" in app.lanes.instruction and "only in add" in app.lanes.instruction
        assert labels(app) == ["+2 -0", "= 1", "+4 -1"]
        assert app.session.state == "review" and app.session.live.hunk_count == 1


async def test_the_keys_are_in_help_and_the_palette_when_they_apply(sample, backends):
    b = await lanes_backend(backends, [TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])
    app = replay_app(sample, b)
    async with app.run_test(size=(160, 40)) as pilot:
        listed = dict(k for _, keys in app.help_sections() for k in keys)
        assert "alternatives" in listed["Alt+a"].lower()
        assert "Alt+right" in listed and "Alt+left" in listed
        app.prompt.value = "validate quantity"
        await ready(pilot, app)
        await pilot.pause()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "Ask alternatives" in titles and "Next alternative" not in titles
        assert "Alternatives" in app.query_one("KeyBar").render().plain  # the key bar shows it
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: app.lanes.alternatives is not None and not app.lanes.running, what="lanes")
        await pilot.pause()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Next alternative", "Previous alternative"} <= titles and "Ask alternatives" not in titles


def test_the_number_of_alternatives_is_a_setting_from_2_to_8(tmp_path):
    assert load_settings(tmp_path / "none.toml").alternatives == 3
    path = tmp_path / "config.toml"
    path.write_text("alternatives = 5\n")
    assert load_settings(path).alternatives == 5
    for bad in ("1", "9", '"3"', "true"):
        path.write_text(f"alternatives = {bad}\n")
        with pytest.raises(ConfigError, match="alternatives"):
            load_settings(path)
