"""Snapshot tests (pytest-textual-snapshot): fixed size, clock-dependent numbers masked, paused replays."""

from __future__ import annotations

import shutil

import pytest

from steer_tui.ui.app import make_app

from .conftest import EXAMPLE, PAUSE_MID_SECOND_BLOCK, TWO_BLOCKS, Backend, PausingReplay, settings, wait_paused, wait_until

SIZE = (100, 34)


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "inventory.py"
    shutil.copyfile(EXAMPLE, path)
    return path


def app_for(sample, **kw):
    return make_app(sample, settings(**kw), watch=False, mask_timings=True, connect=False)


def attach(pause_at=None):
    """run_before step: start the replay gateway and client in the app's own loop, then connect."""

    async def run(pilot):
        app = pilot.app
        b = await Backend(PausingReplay(TWO_BLOCKS, pause_at)).start()
        app.add_cleanup(b.close)
        app.connect_client(b.client)
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
        return b

    return run


def send_and(pause_at=None, until=lambda app: app.status.state == "review", then=None):
    async def run(pilot):
        app = pilot.app
        b = await attach(pause_at)(pilot)
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        if pause_at is not None:
            await wait_paused(pilot, app, b)
        await wait_until(pilot, lambda: until(app), what="the state")
        if then is not None:
            await then(pilot)
        await pilot.pause(0.05)
        app.clear_notifications()
        await pilot.pause()

    return run


def test_idle(snap_compare, sample):
    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=attach())


def test_streaming_mid_block(snap_compare, sample):
    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=send_and(
        PAUSE_MID_SECOND_BLOCK, until=lambda app: app.session.live.hunk_count == 2))


def test_interrupted(snap_compare, sample):
    async def esc(pilot):
        await pilot.press("escape")

    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=send_and(
        PAUSE_MID_SECOND_BLOCK, until=lambda app: app.session.live.hunk_count == 2, then=esc))


def test_review_two_hunks(snap_compare, sample):
    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=send_and())


def test_after_accept(snap_compare, sample):
    async def accept(pilot):
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: pilot.app.status.state == "idle", what="idle")

    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=send_and(then=accept))


def test_conflict(snap_compare, sample):
    async def conflict(pilot):
        text = sample.read_text().replace("        total = 0\n", "        total = sum([])\n")
        sample.write_text(text)
        pilot.app.action_reload()  # what the watcher does on a change (no watcher timing in a snapshot)
        await wait_until(pilot, lambda: pilot.app.session.conflict is not None, what="the conflict")

    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=send_and(then=conflict))


def test_light_theme_review(snap_compare, sample):
    assert snap_compare(app_for(sample, theme="light"), terminal_size=SIZE, run_before=send_and())
