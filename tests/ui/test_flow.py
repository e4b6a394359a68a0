"""Pilot tests: send, review, accept/reject (all and per hunk), undo/redo, with the replay engine."""

from __future__ import annotations

from .conftest import replay_app, wait_paused, wait_until


def rows_text(app) -> list[tuple[str, str]]:
    live = app.session.live
    return [(r.kind, r.text) for r in live.rows(0, live.row_count)]


async def send(pilot, app, text: str = "validate quantity") -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
    app.prompt.value = text
    await pilot.press("enter")


async def send_until_review(pilot, app, text: str = "validate quantity") -> None:
    """Send, and let the whole answer stream in: the app is in review."""
    await send(pilot, app, text)
    await wait_until(pilot, lambda: app.status.state == "review", what="review")


async def test_send_streams_into_review_with_two_hunks(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.status.state == "idle"
        await send_until_review(pilot, app)
        assert app.session.live.hunk_count == 2
        added = [t for k, t in rows_text(app) if k == "added"]
        assert '            raise ValueError("quantity must be positive")' in added
        assert '        total = 0.0' in added
        assert app.current_hunk == 0
        # review keys apply now, stop does not
        assert app.check_action("accept_all", ()) and app.check_action("next_hunk", ())
        assert not app.check_action("stop", ())
        assert sample.read_text() == (sample.parent / "inventory.py").read_text()


async def test_accept_all_then_undo_and_redo(sample, backends):
    original = sample.read_text()
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after accept")
        accepted = sample.read_text()
        assert 'raise ValueError("quantity must be positive")' in accepted
        assert "total = 0.0" in accepted
        assert app.session.live.hunk_count == 0
        # the view shows the new document
        assert '            raise ValueError("quantity must be positive")' in app.code.lines
        assert app.check_action("undo", ()) and not app.check_action("redo", ())
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert sample.read_text() == original
        assert "        total = 0" in app.code.lines and "        total = 0.0" not in app.code.lines
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert sample.read_text() == accepted


async def test_reject_all_leaves_the_file_alone(sample, backends):
    original = sample.read_text()
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.status.state == "idle"
        assert app.session.live.hunk_count == 0
        assert not any(k != "context" for k, _ in rows_text(app))
        assert sample.read_text() == original
        assert not app.check_action("accept_all", ())


async def test_hunk_navigation_accept_one_reject_other(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        assert app.current_hunk == 0
        await pilot.press("alt+down")
        assert app.current_hunk == 1
        assert "hunk 2/2" in app.status.extra
        await pilot.press("alt+down")  # wraps
        assert app.current_hunk == 0
        await pilot.press("alt+up")
        assert app.current_hunk == 1
        # accept the second hunk (total = 0.0) only
        await pilot.press("alt+y")
        await pilot.pause()
        text = sample.read_text()
        assert "total = 0.0" in text and "quantity must be positive" not in text
        assert app.session.live.hunk_count == 1
        assert app.current_hunk == 0
        # reject the remaining one: nothing pending, the file keeps the accepted hunk
        await pilot.press("alt+n")
        await pilot.pause()
        assert app.session.live.hunk_count == 0
        assert app.status.state == "idle"
        assert sample.read_text() == text


async def mid_second_block(sample, backends):
    """An app whose answer is paused half-way through its second block."""
    from .conftest import PAUSE_MID_SECOND_BLOCK

    b = await backends(pause_at=PAUSE_MID_SECOND_BLOCK)
    return b, replay_app(sample, b)


async def until_mid_second_block(pilot, app, b) -> None:
    await send(pilot, app)
    await wait_paused(pilot, app, b)
    await wait_until(pilot, lambda: app.session.live.hunk_count == 2, what="second block located")


async def test_escape_mid_stream_keeps_complete_block_and_drops_half_written(sample, backends):
    original = sample.read_text()
    b, app = await mid_second_block(sample, backends)
    async with app.run_test(size=(100, 40)) as pilot:
        await until_mid_second_block(pilot, app, b)
        assert app.status.state == "generating"
        assert app.check_action("stop", ()) and not app.check_action("accept_all", ())
        await pilot.press("escape")
        # The very next frame is final: state and rows as they will stay.
        assert app.status.state == "interrupted"
        rows = rows_text(app)
        version = app.session.live.version
        assert app.session.live.hunk_count == 1
        assert '            raise ValueError("quantity must be positive")' in [t for k, t in rows if k == "added"]
        assert not any("total" in t for k, t in rows if k != "context")
        await pilot.pause(0.2)
        assert app.session.live.version == version and rows_text(app) == rows
        assert sample.read_text() == original
        # accept works on what was complete
        assert app.check_action("accept_all", ())
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert "quantity must be positive" in sample.read_text() and "total = 0.0" not in sample.read_text()


async def test_escape_draws_the_final_picture_in_the_same_action(sample, backends):
    """Esc must not wait for the screen's next tick: the file view, status line and keys are
    drawn before the Esc action returns, and nothing in them is drawn again afterwards."""
    b, app = await mid_second_block(sample, backends)
    async with app.run_test(size=(100, 40)) as pilot:
        await until_mid_second_block(pilot, app, b)
        await pilot.pause(0.1)  # everything streamed so far is on screen
        keys = app.query_one("KeyBar")
        drawn: list[str] = []
        for name, widget, method in (("code", app.code, "render_line"), ("status", app.status, "render"),
                                     ("keys", keys, "render")):
            def spy(*args, _original=getattr(widget, method), _name=name):
                drawn.append(_name)
                return _original(*args)

            setattr(widget, method, spy)
        await app.action_stop()
        assert {"code", "status", "keys"} <= set(drawn)
        assert "accept" in " ".join(description for _k, _d, description, _e in keys._keys).lower()
        drawn.clear()
        await pilot.pause(0.3)
        assert drawn == [] and app.status.state == "interrupted"


async def test_enter_while_generating_redirects(sample, backends):
    from .conftest import PAUSE_MID_SECOND_BLOCK

    b = await backends(pause_at=PAUSE_MID_SECOND_BLOCK)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app, "validate quantity")
        await wait_paused(pilot, app, b)
        assert app.status.state == "generating"
        app.prompt.value = "and make the total a float"
        await pilot.press("enter")
        # The redirect continues in a successor response (the replay plays its recording again, in full).
        await wait_until(pilot, lambda: app.status.state == "review", what="review after redirect")
        assert b.engine.calls >= 2
        assert app.session.live.hunk_count == 2
        assert app.prompt.value == ""
        assert app.prompt.history[-2:] == ["validate quantity", "and make the total a float"]
        assert "and make the total a float" in app.session.instruction


async def test_a_warning_on_the_proposal_stays_in_the_status_line_while_it_is_reviewed(sample, backends):
    """A warning about the proposal (a name nothing defines) is a toast that fades; what to weigh
    before accepting stays in the status line until the next answer starts. On a narrow terminal
    the backend's name and then the numbers give way to it."""
    from steer_tui.events import Notice, NoticeCode

    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(80, 40)) as pilot:
        await send_until_review(pilot, app)
        warning = Notice("warning", "`gettext` is defined nowhere (NameError when run); review it before accepting",
                         NoticeCode.UNDEFINED)
        app.applier.apply([warning], 0.0)
        await pilot.pause()
        assert "hunk 1/2 · WARNING: `gettext` is defined nowhere (NameError when run)" in app.status.extra
        shown = app.status.render().plain
        assert "WARNING: `gettext`" in shown and "tok/s" not in shown
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after reject")
        assert "WARNING" not in app.status.extra  # no proposal: nothing to weigh
        await send_until_review(pilot, app)  # the next answer carries no warning
        assert app.status.extra.startswith("hunk 1/2") and "WARNING" not in app.status.extra
