"""Pilot tests: nothing typed is lost. An instruction sent before the backend is ready (or while the
model reads the file) is queued, shown in the status line, sent the moment it is ready; Esc takes it back."""

from __future__ import annotations

import asyncio
import threading

from steer_tui.ui.app import make_app

from .conftest import Backend, PausingReplay, TWO_BLOCKS, settings, wait_until


def not_connected(sample, **kw):
    """The app with no backend yet: what a user sees while the embedded model loads."""
    return make_app(sample, settings(**kw), watch=False, mask_timings=True, connect=False)


def status_text(app) -> str:
    return app.status.render().plain


async def test_instruction_typed_before_ready_is_queued_then_sent(sample, backends):
    b = await backends()
    app = not_connected(sample)
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        assert app.queued == ("edit", "validate quantity", None)
        assert "queued: validate quantity" in status_text(app)
        assert app.prompt.value == "" and app.check_action("take_back", ())
        await pilot.pause(0.1)
        assert b.engine.calls == 0 and app.session is None
        app.connect_client(b.client)  # the backend is ready now
        await wait_until(pilot, lambda: app.status.state == "review", what="the queued instruction's answer")
        assert b.engine.calls == 1 and app.queued is None
        assert "queued" not in status_text(app)
        assert app.session.instruction == "validate quantity" and app.session.live.hunk_count == 2


async def test_a_second_instruction_queued_redirects_the_first_once_sent(sample, backends):
    b = await backends()
    app = not_connected(sample)
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        app.prompt.value = "also make add check the price"
        await pilot.press("enter")
        assert app.queued == ("edit", "validate quantity\nalso make add check the price", None)
        app.connect_client(b.client)
        await wait_until(pilot, lambda: b.engine.calls == 2 and app.status.state != "generating", what="the answers")
        # Not one request of both (the small model did one of the two): the first as typed, then
        # the second as a redirect of it.
        first, *later = b.engine.requests
        assert first.messages[-1]["content"].startswith("validate quantity\n")
        assert later and "also make add check the price" in str(later[-1].messages)
        assert "validate quantity" in str(later[-1].messages)
        assert app.prompt.history[-2:] == ["validate quantity", "also make add check the price"]


async def test_a_queued_question_is_asked_when_ready(sample, backends):
    b = await backends("`add` puts an item in stock, or adds to its quantity.\n")
    app = not_connected(sample)
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.value = "?what does add do"
        await pilot.press("enter")
        assert app.queued == ("ask", "what does add do", None)
        assert "queued: ? what does add do" in status_text(app)
        app.connect_client(b.client)
        await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
        assert app.answer.text == "`add` puts an item in stock, or adds to its quantity."


async def test_escape_takes_the_queued_instruction_back(sample, backends):
    b = await backends()
    app = not_connected(sample)
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        app.prompt.value = "and more"  # a second Enter while it waits: one instruction
        await pilot.press("enter")
        assert app.queued == ("edit", "validate quantity\nand more", None)
        await pilot.press("escape")
        assert app.queued is None and "queued" not in status_text(app)
        assert app.prompt.value == "validate quantity\nand more"  # back where it was typed, unsent
        app.connect_client(b.client)
        await wait_until(pilot, lambda: app.status.connection == "ready", what="ready")
        await pilot.pause(0.2)
        assert b.engine.calls == 0 and app.status.state == "idle"


async def test_a_backend_that_fails_gives_the_queued_words_back(sample):
    app = not_connected(sample, backend="ws://127.0.0.1:9/v1/responses")
    async with app.run_test(size=(100, 40)) as pilot:
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        assert app.queued is not None
        app.connects = True
        app._start_session()  # what the app does after its first frame: this backend refuses
        await wait_until(pilot, lambda: app.status.connection == "error", what="the error")
        await wait_until(pilot, lambda: app.queued is None, what="the words back")
        assert app.prompt.value == "validate quantity"


class HeldPrewarm(PausingReplay):
    """The replay engine whose prewarm (the model reading the file) holds until released."""

    def __init__(self, text: str):
        super().__init__(text, None)
        self.reading = asyncio.Event()
        self.read = asyncio.Event()
        self.requests = []

    async def stream(self, request, cancel: threading.Event):
        if request.generate:
            self.requests.append(request)
        else:
            self.reading.set()
            while not self.read.is_set() and not cancel.is_set():
                await asyncio.sleep(0.005)
        async for token in super().stream(request, cancel):
            yield token


async def test_instruction_sent_while_the_prewarm_runs_waits_for_it(sample):
    engine = HeldPrewarm(TWO_BLOCKS)
    b = await Backend(engine).start()
    app = make_app(sample, settings(), client=b.client, watch=False, mask_timings=True)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_until(pilot, lambda: engine.reading.is_set() and app.status.connection == "ready", what="prewarm")
            assert app.session.warming
            app.prompt.value = "validate quantity"
            await pilot.press("enter")
            assert app.queued is not None and "queued: validate quantity" in status_text(app)
            await pilot.pause(0.1)
            assert engine.calls == 0  # held until the file is read
            engine.read.set()
            await wait_until(pilot, lambda: app.status.state == "review", what="the answer")
            assert engine.calls == 1 and app.queued is None
    finally:
        await b.close()


async def test_instruction_sent_while_a_reload_is_read_waits_for_it(sample):
    engine = HeldPrewarm(TWO_BLOCKS)
    engine.read.set()  # the first prewarm goes through
    b = await Backend(engine).start()
    app = make_app(sample, settings(), client=b.client, watch=False, mask_timings=True)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready"
                             and not app.session.warming, what="ready")
            engine.read.clear()
            engine.reading.clear()
            sample.write_text(sample.read_text() + "\n# changed on disk\n")
            app.action_reload()  # what the watcher does: reload, then the model reads the new file
            await wait_until(pilot, lambda: engine.reading.is_set(), what="the reload's prewarm")
            app.prompt.value = "validate quantity"
            await pilot.press("enter")
            assert app.queued is not None and "queued: validate quantity" in status_text(app)
            await pilot.pause(0.1)
            assert engine.calls == 0
            engine.read.set()
            await wait_until(pilot, lambda: app.status.state == "review", what="the answer")
            assert engine.calls == 1
            assert "# changed on disk" in str(engine.requests[0].messages)  # the turn saw the reloaded file
    finally:
        await b.close()
