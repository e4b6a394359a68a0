"""Snapshot tests for asking, queueing and new files: fixed size, timings masked, paused replays."""

from __future__ import annotations

from steer_tui.ui.app import make_app

from .conftest import Backend, PausingReplay, settings, wait_paused, wait_until
from .test_ask import ANSWER, PAUSE_IN_ANSWER
from .test_new_file import NEW_FILE_ANSWER
from .test_snapshots import SIZE, app_for, sample  # noqa: F401  (the fixture)


def attach(text: str, pause_at: int | None = None):
    async def run(pilot):
        app = pilot.app
        b = await Backend(PausingReplay(text, pause_at)).start()
        app.add_cleanup(b.close)
        app.connect_client(b.client)
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
        return b

    return run


async def settle(pilot) -> None:
    await pilot.pause(0.05)
    pilot.app.clear_notifications()
    await pilot.pause()


def ask(pause_at: int | None = None):
    async def run(pilot):
        app = pilot.app
        b = await attach(ANSWER, pause_at)(pilot)
        app.prompt.value = "? what does total_value do"
        await pilot.press("enter")
        if pause_at is not None:
            await wait_until(pilot, lambda: b.engine.paused.is_set(), what="the pause")
            await wait_until(pilot, lambda: len(app.asking.answer.text) >= b.engine.paused_after - 1, what="the text")
            app.flush_now()
        else:
            await wait_until(pilot, lambda: app.asking.answer.done, what="the answer")
        await settle(pilot)

    return run


def test_answer_streaming(snap_compare, sample):
    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=ask(PAUSE_IN_ANSWER))


def test_answer_done(snap_compare, sample):
    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=ask())


def test_queued_before_ready(snap_compare, sample):
    async def queue(pilot):
        pilot.app.prompt.value = "validate quantity"
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(app_for(sample), terminal_size=SIZE, run_before=queue)


def test_new_file_review(snap_compare, tmp_path):
    async def write(pilot):
        app = pilot.app
        await attach(NEW_FILE_ANSWER)(pilot)
        app.prompt.value = "a dice roller"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        await settle(pilot)

    app = make_app(tmp_path / "dice.py", settings(), watch=False, mask_timings=True, connect=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=write)
