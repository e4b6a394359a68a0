"""The app on a file too big to show whole: words that give no region are refused before anything
is sent, and the screen says why and what to do (a notice, and the status line until the next turn)."""

from __future__ import annotations

from tests.ui.conftest import Backend, PausingReplay, replay_app, wait_until

from .test_bigfile import ANSWER, BUDGET, big_module


async def test_the_app_says_why_a_big_file_edit_was_not_sent(tmp_path):
    path = tmp_path / "stock.py"
    path.write_text(big_module(), encoding="utf-8")
    before = path.read_bytes()
    backend = await Backend(PausingReplay(ANSWER, None)).start()
    try:
        app = replay_app(path, backend, edit_format="rewrite", file_tokens=BUDGET)
        async with app.run_test(size=(200, 30)) as pilot:
            await wait_until(pilot, lambda: app.session is not None and app.session.connection == "ready",
                             what="the session")
            app.prompt.value = "make the code faster"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.session.last_result is not None, what="the turn's end")
            app.flush_now()
            await pilot.pause()
            assert app.session.last_result.status == "refused"
            said = [n.message for n in app._notifications]
            assert any("stock.py has" in m and "Name a function or class" in m for m in said), said
            assert "NOT SENT" in app.status.extra
            assert backend.engine.calls == 0  # nothing was asked of the model
            # The next turn, on a definition it names, is sent and clears the mark.
            app.prompt.value = "make change_me triple the value"
            await pilot.press("enter")
            await wait_until(pilot, lambda: backend.engine.calls == 1 and app.session.last_result is not None,
                             what="the second turn")
            app.flush_now()
            await pilot.pause()
            assert "NOT SENT" not in app.status.extra
    finally:
        await backend.close()
    assert path.read_bytes() == before
