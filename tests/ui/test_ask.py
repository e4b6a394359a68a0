"""Pilot tests: a question streams a prose answer into the panel; the file and view never change; Esc,
redirect, Ctrl+K, and "do it" (Ctrl+D) turning the answer into an edit. Replay engine, real gateway."""

from __future__ import annotations

import hashlib
import threading

from steer_tui.server.engines.replay import ReplayEngine, split_tokens

from .conftest import TWO_BLOCKS, Backend, PausingReplay, replay_app, wait_paused, wait_until

# A recorded prose answer about examples/inventory.py, with an edit block in it: it must stay text.
ANSWER = '''`total_value` multiplies each item's price by its quantity and adds them up.

It starts from `total = 0`, so the result is an int until a float price comes in. To make it a float:

<<<<<<< SEARCH
        total = 0
=======
        total = 0.0
>>>>>>> REPLACE

Nothing else needs to change.
'''
PAUSE_IN_ANSWER = ANSWER.index("so the result")


class Sequence(ReplayEngine):
    """Plays one recorded text per generating request, in order (the last repeats). Not a model."""

    def __init__(self, texts: list[str]):
        super().__init__(texts[0])
        self.texts = texts
        self.requests = []

    async def stream(self, request, cancel: threading.Event):
        if request.generate:
            self.requests.append(request)
            self.tokens = split_tokens(self.texts[min(len(self.requests), len(self.texts)) - 1])
        async for token in super().stream(request, cancel):
            yield token


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def ready(pilot, app) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")


async def _ask_held(pilot, app, b) -> None:
    """Ask what total_value does, once the app is ready, and wait until the answer holds at its pause."""
    await ready(pilot, app)
    app.prompt.value = "?what does total_value do"
    await pilot.press("enter")
    await wait_until(pilot, lambda: b.engine.paused.is_set(), what="the pause")


async def test_question_answers_in_the_panel_and_changes_nothing(sample, backends):
    before = digest(sample)
    b = await backends(ANSWER)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot, app)
        lines = list(app.code.lines)
        app.prompt.value = "? what does total_value do"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
        await pilot.pause(0.05)
        assert app.answer.visible and app.answer.question == "what does total_value do"
        assert app.answer.text == ANSWER.strip()
        assert app.asking.answer.status == "answered"
        # no edit parser: the SEARCH/REPLACE in the answer is prose, not a proposal
        assert app.session.live.hunk_count == 0 and not app.session.has_proposal
        assert app.session.state == "idle" and app.status.state == "idle"
        assert list(app.code.lines) == lines
        assert digest(sample) == before
        assert app.check_action("do_it", ()) and not app.check_action("accept_all", ())
        # Esc closes the finished answer
        await pilot.press("escape")
        assert not app.answer.visible


async def test_question_is_about_the_block_at_the_cursor(sample, backends):
    engine = Sequence([ANSWER])
    b = await Backend(engine).start()
    app = replay_app(sample, b)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await ready(pilot, app)
            row = next(i for i, line in enumerate(app.code.lines) if "def total_value" in line)
            app.code.focus()
            for _ in range(row + 1):
                await pilot.press("down")
            app.prompt.focus()
            region = app.region_for_send()
            assert region is not None and region[0] <= row < region[1]
            app.prompt.value = "what does this do"
            await pilot.press("ctrl+k")  # the key asks the prompt's words, no ? needed
            await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
            question = engine.requests[0].messages[-1]["content"]
            assert f"Region (lines {region[0] + 1}-{region[1]})" in question
            assert "Question: what does this do" in question
            assert app.asking.answer.region == region
    finally:
        await b.close()


async def test_escape_stops_the_answer_and_typing_redirects_it(sample, backends):
    before = digest(sample)
    b = await backends(ANSWER, pause_at=PAUSE_IN_ANSWER)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await _ask_held(pilot, app, b)
        await wait_until(pilot, lambda: app.answer.text.startswith("`total_value` multiplies"), what="the first words")
        assert app.status.state == "answering" and app.check_action("stop", ())
        # typing while it answers redirects it: the words go to the model, the answer goes on
        app.prompt.value = "answer in one sentence"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.asking.answer.done, what="the redirected answer")
        assert b.engine.calls == 2
        assert "> answer in one sentence" in app.answer.text
        assert app.prompt.value == "" and app.prompt.history[-1] == "answer in one sentence"
    # a second run: Esc stops it, the panel keeps what came
    b2 = await backends(ANSWER, pause_at=PAUSE_IN_ANSWER)
    app = replay_app(sample, b2)
    async with app.run_test(size=(100, 40)) as pilot:
        await _ask_held(pilot, app, b2)
        await wait_until(pilot, lambda: app.answer.text.startswith("`total_value`"), what="the first words")
        await pilot.press("escape")
        assert app.asking.answer.status == "stopped"
        kept = app.answer.text
        await pilot.pause(0.2)
        assert app.answer.text == kept and ANSWER.startswith(kept)
        assert app.status.state == "idle" and app.answer.visible
        assert digest(sample) == before


async def test_do_it_turns_the_answer_into_an_edit(sample, backends):
    engine = Sequence([ANSWER, TWO_BLOCKS])
    b = await Backend(engine).start()
    app = replay_app(sample, b)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await ready(pilot, app)
            app.prompt.value = "?should total_value return a float"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
            await pilot.pause(0.05)
            await pilot.press("ctrl+d")
            await wait_until(pilot, lambda: app.status.state == "review", what="the edit")
            assert not app.answer.visible
            edit = engine.requests[1].messages[-1]["content"]
            assert "should total_value return a float" in edit
            assert "multiplies each item's price by its quantity" in edit  # the answer is the plan
            assert app.session.live.hunk_count == 2
    finally:
        await b.close()


async def test_question_in_a_project_carries_the_places_its_words_name(sample, backends):
    (sample.parent / "settings.py").write_text('"""Shop settings."""\nLOW_STOCK_LIMIT = 3\n')
    engine = Sequence([ANSWER])
    b = await Backend(engine).start()
    app = replay_app(sample, b)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await ready(pilot, app)
            app.prompt.value = "? where is the low stock limit set"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
            message = engine.requests[-1].messages[-1]["content"]
            assert "settings.py:2: LOW_STOCK_LIMIT = 3" in message
            assert message.index("settings.py:2") < message.index("Question: where is the low stock limit set")
    finally:
        await b.close()


async def test_an_answer_that_loops_is_cut_to_its_first_round_and_says_so(sample, backends):
    block = "- `total_value` adds price times count\n- `restock` adds to count\n"
    b = await backends("It does two things:\n" + block * 8)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot, app)
        app.prompt.value = "? what does the module do"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.asking is not None and app.asking.answer.done, what="the answer")
        await pilot.pause(0.05)
        assert app.asking.answer.status == "cut_off" and "repeat itself" in app.asking.answer.reason
        assert app.answer.text == "It does two things:\n" + block.rstrip("\n")
        assert app.answer.status == "cut_off"


async def test_opening_another_file_while_a_question_is_answered_asks_first_and_says_the_answer_closes(sample, backends):
    (sample.parent / "other.py").write_text("X = 1\n")
    b = await backends(ANSWER, pause_at=PAUSE_IN_ANSWER)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await _ask_held(pilot, app, b)
        await app.open_file(sample.parent / "other.py")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        question = str(app.screen.question)
        assert question.startswith("A question is being answered") and "proposal" not in question
        await pilot.press("y")
        await wait_until(pilot, lambda: app.path.name == "other.py", what="the switch")
        assert not app.answer.visible and app.asking.answer.status == "stopped"
