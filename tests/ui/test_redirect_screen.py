"""What the screen says on a redirect (the superseded partial leaves the diff, both instructions stay in
the history, the turn goes on) and in review of a proposal that breaks the Python syntax (its hunk is
the one shown first, the status line names it). Replay engine, real gateway."""

from __future__ import annotations

from .conftest import PAUSE_MID_SECOND_BLOCK, TWO_BLOCKS, replay_app, wait_paused, wait_until

BREAKS_SECOND = TWO_BLOCKS.replace('        """The value of everything in stock."""\n',
                                   "        The value of everything in stock\n")


async def send(pilot, app, text: str) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
    app.prompt.value = text
    await pilot.press("enter")


async def test_redirect_replaces_the_partial_and_the_turn_goes_on(sample, backends):
    b = await backends(pause_at=PAUSE_MID_SECOND_BLOCK, once=False)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app, "validate quantity")
        await wait_paused(pilot, app, b)
        assert app.session.live.hunk_count == 2  # the first block and the half-written second
        b.engine.paused.clear()
        seen = []
        app.session.on_event = (lambda listener: lambda ev: (seen.append(ev), listener(ev))[-1])(app.session.on_event)
        app.prompt.value = "use a float for the total, not an int"
        await pilot.press("enter")
        await wait_until(pilot, lambda: b.engine.calls == 2, what="the new request")
        # The superseded answer's hunk left the diff before the new answer drew anything.
        first_update = next(ev for ev in seen if type(ev).__name__ == "ProposalUpdated")
        assert first_update.hunks == 0
        states = [ev.state for ev in seen if type(ev).__name__ == "StateChanged"]
        assert "interrupted" not in states and "idle" not in states
        assert app.status.state == "generating"
        b.engine.release.set()
        await wait_until(pilot, lambda: app.status.state == "review", what="review after the redirect")
        assert app.prompt.history[-2:] == ["validate quantity", "use a float for the total, not an int"]


async def test_words_over_a_proposal_under_review_go_on_from_its_request(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app, "validate quantity")
        await wait_until(pilot, lambda: app.status.state == "review", what="review of the first answer")
        seen = []
        app.session.on_event = (lambda listener: lambda ev: (seen.append(ev), listener(ev))[-1])(app.session.on_event)
        app.prompt.value = "use a float for the total, not an int"
        await pilot.press("enter")
        await wait_until(pilot, lambda: b.engine.calls == 2 and app.status.state == "review", what="the new answer")
        # One request of both: the words go on from the request whose answer was under review.
        text = b.engine.requests[-1].messages[-1]["content"]
        assert "use a float for the total, not an int" in text and "validate quantity" in text
        assert any(type(ev).__name__ == "Notice" and ev.text.startswith("redirected: use a float for the total, not an int")
                   for ev in seen)
        assert app.session.has_proposal
        # Rejected, the proposal is gone and the next words are a request of their own.
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after reject")
        app.prompt.value = "add a docstring to cheapest"
        await pilot.press("enter")
        await wait_until(pilot, lambda: b.engine.calls == 3, what="the third request")
        assert "validate quantity" not in b.engine.requests[-1].messages[-1]["content"]


async def test_review_starts_at_the_hunk_that_breaks_the_syntax(sample, backends):
    b = await backends(BREAKS_SECOND)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app, "validate quantity, document total_value")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        assert app.session.syntax_problem is not None and app.session.syntax_problem.hunk == 1
        assert app.current_hunk == 1
        assert "SYNTAX: hunk 2 breaks line" in app.status.extra
        await pilot.press("alt+n")  # reject the breaking hunk: the rest parses
        await pilot.pause()
        assert app.session.syntax_problem is None and "SYNTAX" not in app.status.extra
