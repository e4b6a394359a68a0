"""Pilot tests: the places an answer cites (`path:line`, or a name it writes without the line) are listed first in the finder, and Enter opens the file at that line."""

from __future__ import annotations

from .conftest import Backend, replay_app, wait_until
from .test_ask import Sequence, ready

SETTINGS = '"""Shop settings."""\n\nLOW_STOCK_LIMIT = 3\n'


async def _asked(pilot, app) -> None:
    """Ask where the limit is set, once the app is ready, and wait for the whole answer."""
    await ready(pilot, app)
    app.prompt.value = "? where is the low stock limit set"
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")


async def test_ctrl_p_after_an_answer_lists_its_places_and_opens_one_at_its_line(sample):
    (sample.parent / "settings.py").write_text(SETTINGS)
    engine = Sequence(["The limit is `LOW_STOCK_LIMIT` in settings.py:3 (and nowhere.py:9 is no file)."])
    b = await Backend(engine).start()
    app = replay_app(sample, b)
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            await _asked(pilot, app)
            await pilot.pause(0.05)
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
            await pilot.pause()
            assert [m.path for m in app.screen.match_list.matches][:1] == ["settings.py:3"]
            assert "nowhere.py:9" not in [m.path for m in app.screen.match_list.matches]
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.path is not None and app.path.name == "settings.py", what="the file")
            await pilot.pause()
            assert app.code.cursor_line == 2
            assert app.code.lines[app.code.cursor_line] == "LOW_STOCK_LIMIT = 3"
    finally:
        await b.close()


async def test_a_name_the_answer_writes_without_its_line_is_shown_as_a_place_and_listed(sample):
    (sample.parent / "settings.py").write_text(SETTINGS)
    engine = Sequence(["The limit is `LOW_STOCK_LIMIT`, which the settings module sets."])
    b = await Backend(engine).start()
    app = replay_app(sample, b)
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            await _asked(pilot, app)
            await wait_until(pilot, lambda: "settings.py:3" in app.answer.text, what="the place under the answer")
            assert app.answer.text.startswith("The limit is `LOW_STOCK_LIMIT`")
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
            await pilot.pause()
            assert [m.path for m in app.screen.match_list.matches][:1] == ["settings.py:3"]
    finally:
        await b.close()
