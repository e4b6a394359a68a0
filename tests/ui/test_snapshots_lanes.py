"""Snapshot test (pytest-textual-snapshot) of the lane bar: three alternatives asked, two alike, the second shown."""

from __future__ import annotations

from steer_tui.transport.backends import gateway_info
from steer_tui.ui.app import make_app

from .conftest import TWO_BLOCKS, Backend, settings, wait_until
from .test_lanes import ONE_BLOCK, Recordings

SIZE = (100, 34)


def test_lanes_second_of_three_under_review(snap_compare, sample):
    app = make_app(sample, settings(), watch=False, mask_timings=True, connect=False)

    async def run_before(pilot):
        b = await Backend(Recordings([TWO_BLOCKS, ONE_BLOCK, TWO_BLOCKS])).start()
        b.client.server_info = await gateway_info(b.url)
        app.add_cleanup(b.close)
        app.connect_client(b.client)
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
        app.prompt.value = "validate quantity"
        await pilot.pause()
        await pilot.press("alt+a")
        await wait_until(pilot, lambda: app.lanes.alternatives is not None and not app.lanes.running, what="lanes")
        await pilot.press("alt+right")
        await wait_until(pilot, lambda: app.lanes.selected == 2 and app.session.live.hunk_count == 1, what="lane 2")
        await pilot.pause(0.05)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
