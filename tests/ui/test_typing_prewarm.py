"""Prewarm as you type, in the app: typing an instruction that names a function prewarms that
function's block with the words typed so far; Enter with such a prewarm in flight still gets
its turn answered (waiting for a prewarm the turn starts with, cancelling one it does not)."""

from __future__ import annotations

import asyncio

from steer_tui import prompts
from steer_tui.session import REDIRECT_LANE
import pytest

from steer_tui import typing_prewarm
from steer_tui.typing_prewarm import PAUSE_S

from .conftest import replay_app, wait_paused, wait_until

# A recorded region rewrite of Inventory.total_value (examples/inventory.py lines 29-33).
REWRITE_TOTAL = '''```python
    def total_value(self):
        total = 0
        for item in self.items.values():
            if item.quantity == 0:
                continue
            total = total + item.price * item.quantity
        return total
```
'''
INSTRUCTION = "make total_value skip items with zero quantity"


def keys(text: str) -> list[str]:
    return ["space" if c == " " else "underscore" if c == "_" else c for c in text]


class Recorder:
    """Records the replay engine's requests; `hold` keeps typed prewarms (a region block plus
    words) running until released or cancelled, as a slow CPU would. A test harness, not a model."""

    def __init__(self, engine):
        self.prewarms: list[str] = []
        self.turns: list[str] = []
        self.stopped: list[str] = []
        self.hold = False
        self.release = asyncio.Event()
        original = engine.stream

        async def stream(request, cancel):
            last = str(request.messages[-1].get("content") or "")
            if not request.generate:
                self.prewarms.append(last)
                if self.hold and "Region (lines" in last and not last.endswith("\n\n"):
                    try:
                        while not cancel.is_set() and not self.release.is_set():
                            await asyncio.sleep(0.005)
                    finally:
                        if not self.release.is_set():
                            self.stopped.append(last)
                    if cancel.is_set():
                        request.finish_reason = "cancelled"
                        return
            else:
                self.turns.append(last)
            async for delta in original(request, cancel):
                yield delta

        engine.stream = stream


@pytest.fixture(autouse=True)
def pauses_only_where_meant(monkeypatch):
    """A pause is PAUSE_S without a key; on this shared VM a stall between two of Pilot's keys can
    be that long, and an unmeant pause sends a whole message these tests do not expect. The app's
    typing prewarmer waits a minute here, and the real pause only after the key a test means to
    pause after (`type_then_pause`)."""
    monkeypatch.setattr(typing_prewarm, "PAUSE_S", 60.0)


async def type_then_pause(pilot, app, text: str) -> None:
    """Type `text`, the pause timer running (PAUSE_S) only from its last key on."""
    await pilot.press(*keys(text[:-1]))
    app.typing_prewarmer.pause_s = PAUSE_S
    await pilot.press(*keys(text[-1]))


async def ready_app(pilot, app, rec):
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
    await wait_until(pilot, lambda: len(rec.prewarms) == 1 and not app.session.warming, what="the file prewarm")


async def test_typing_a_named_function_prewarms_its_block_with_the_words(sample, backends):
    b = await backends(REWRITE_TOTAL)
    rec = Recorder(b.engine)
    app = replay_app(sample, b, edit_format="rewrite")
    text = sample.read_text()
    region = prompts.rewrite_region(text, INSTRUCTION)
    opening = prompts.message_opening(prompts.REWRITE, text, region)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready_app(pilot, app, rec)
        await pilot.press(*keys("make to"))
        await pilot.pause(0.1)
        assert len(rec.prewarms) == 1  # no name yet: nothing to prewarm beyond the file
        await pilot.press(*keys("tal_value skip it"))
        await wait_until(pilot, lambda: any("skip" in p for p in rec.prewarms), what="the typed words' prewarm")
        typed = rec.prewarms[1:]  # after the file's: the block's, then the words'
        assert typed and all(p.startswith(opening) for p in typed)
        assert typed[-1] == opening + "make total_value skip"
        await type_then_pause(pilot, app, "ems with zero quantity")
        # The pause: the whole message, as the turn will send it.
        final = prompts.instruction_message(prompts.REWRITE, INSTRUCTION, text, region)["content"]
        await wait_until(pilot, lambda: rec.prewarms[-1] == final, what="the complete prewarm")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="the proposal")
        assert rec.turns == [final]
        count = len(rec.prewarms)
        await pilot.pause(0.5)
        assert len(rec.prewarms) == count  # nothing is prewarmed from the emptied prompt
        # Under review, the next instruction is prewarmed too: asked first, on its own, as it goes on
        # from the proposal (Session._follow_up).
        await pilot.press(*keys("make total_value return "))
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("\n\nMake total_value return"),
                         what="a prewarm under review")


async def test_enter_while_a_typed_prewarm_runs(sample, backends):
    """The prewarm in flight opens the turn: the turn waits for it (its tokens are the turn's).
    Then one that holds other words: Enter cancels it and the turn is answered at once."""
    b = await backends(REWRITE_TOTAL)
    rec = Recorder(b.engine)
    rec.hold = True
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready_app(pilot, app, rec)
        await pilot.press(*keys("make total_value skip "))
        # The name completed: its block with "make" is held; the words after it wait for it (one
        # prewarm in flight, never cancelled by keys).
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("```\n\nmake"), what="a held prewarm")
        await pilot.press(*keys("items with zero quantity"), "enter")
        await pilot.pause(0.2)
        assert rec.turns == [] and rec.stopped == []  # the turn queues behind the prewarm it starts with
        rec.release.set()
        await wait_until(pilot, lambda: app.status.state == "review", what="the proposal")
        assert rec.turns[0].split("\n\n")[-1] == INSTRUCTION
        app.action_reject_all()
        await pilot.pause()

        await pilot.press(*keys("make total_value return "))
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("make total_value return"), what="the prewarms")
        rec.release.clear()
        await pilot.press(*keys("zero "))
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("return zero"), what="another held prewarm")
        for _ in range(len("return zero ")):
            await pilot.press("backspace")
        await pilot.press(*keys("count only stocked items"), "enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="the second proposal")
        assert rec.stopped == [rec.prewarms[-1]]  # cancelled by Enter: words the turn does not start with
        assert rec.turns[-1].split("\n\n")[-1] == "make total_value count only stocked items"


async def test_a_pause_queues_the_whole_message_behind_the_words_prewarm_in_flight(sample, backends):
    """On a slow CPU the named block is still being evaluated when the user pauses: the whole
    message goes out at once behind it (not cancelling it), so Enter finds it queued."""
    b = await backends(REWRITE_TOTAL)
    rec = Recorder(b.engine)
    rec.hold = True
    app = replay_app(sample, b, edit_format="rewrite")
    text = sample.read_text()
    region = prompts.rewrite_region(text, INSTRUCTION)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready_app(pilot, app, rec)
        await pilot.press(*keys("make total_value skip "))
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("```\n\nmake"),
                         what="a held prewarm")
        held = app.session.prewarms.task
        await type_then_pause(pilot, app, "items with zero quantity")
        await wait_until(pilot, lambda: app.session.prewarms.typed == INSTRUCTION, what="the whole message, after the pause")
        assert held in app.session.prewarms.behind and not held.done() and rec.stopped == []
        rec.release.set()
        final = prompts.instruction_message(prompts.REWRITE, INSTRUCTION, text, region)["content"]
        await wait_until(pilot, lambda: rec.prewarms[-1] == final, what="the whole message's prewarm")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="the proposal")
        assert rec.turns == [final] and rec.stopped == []


# A recorded rewrite of Inventory with a type hint, held after its first line (the model writing).
REWRITE_CLASS = '''```python
@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)
```
'''
REDIRECT = "no, only add a docstring to remove"


async def answer_paused(pilot, app, b, rec) -> None:
    """Ask for type hints on the whole class; return while its answer is held half-way (generating)."""
    await ready_app(pilot, app, rec)
    await pilot.press(*keys("add type hints to every method of Inventory"), "enter")
    await wait_paused(pilot, app, b)
    assert app.status.state == "generating"


async def test_a_redirect_typed_while_the_model_writes_is_prewarmed_on_its_own_lane(sample, backends):
    """Typed while the answer streams, the redirect's turn is prewarmed as Enter will send it (the
    named method's block and the words), on a lane of its own (the answer's lane is busy); Enter
    starts the turn over with exactly that message."""
    b = await backends(REWRITE_CLASS, pause_at=len("```python\n@dataclass\n"))
    rec = Recorder(b.engine)
    lanes: list[str] = []
    recorded = b.engine.stream

    async def stream(request, cancel):
        if not request.generate:
            lanes.append(request.session_key)
        async for delta in recorded(request, cancel):
            yield delta

    b.engine.stream = stream
    app = replay_app(sample, b, edit_format="rewrite")
    text = sample.read_text()
    async with app.run_test(size=(100, 40)) as pilot:
        await answer_paused(pilot, app, b, rec)
        before = len(rec.prewarms)
        await pilot.press(*keys("no, only add "))
        # "add" after "no, only" is the verb, not the method `add`: the answer's own region still.
        await wait_until(pilot, lambda: len(rec.prewarms) > before and rec.prewarms[-1].endswith("no, only add"),
                         what="the first redirect prewarm")
        assert rec.prewarms[-1].startswith(prompts.message_opening(prompts.REWRITE, text, app.session.region))
        await type_then_pause(pilot, app, "a docstring to remove")
        region = prompts.redirect_region(text, app.session.region, [REDIRECT])
        assert region == prompts.rewrite_region(text, "add a docstring to remove")
        final = prompts.instruction_message(prompts.REWRITE, REDIRECT, text, region)["content"]
        await wait_until(pilot, lambda: rec.prewarms[-1] == final, what="the redirect's whole message, after the pause")
        session_key = next(k for k in lanes if not k.endswith(REDIRECT_LANE))
        assert lanes[-1] == session_key + REDIRECT_LANE  # not queued behind the answer
        assert app.status.state == "generating"  # prewarming never stopped the answer
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(rec.turns) == 2, what="the restarted turn")
        assert rec.turns[-1] == final


async def test_a_pause_in_a_redirect_queues_its_whole_message_behind_the_prewarm_in_flight(sample, backends):
    """The pause's whole message goes out at once, behind the region's prewarm still running on
    a slow CPU (it is that message's prefix): not cancelled, and not waited for before sending."""
    b = await backends(REWRITE_CLASS, pause_at=len("```python\n@dataclass\n"))
    rec = Recorder(b.engine)
    app = replay_app(sample, b, edit_format="rewrite")
    text = sample.read_text()
    async with app.run_test(size=(100, 40)) as pilot:
        await answer_paused(pilot, app, b, rec)
        session = app.session
        await pilot.press(*keys("no, only add a docstring to "))
        await wait_until(pilot, lambda: rec.prewarms[-1].endswith("docstring to"), what="the words' prewarm")
        region = prompts.redirect_region(text, session.region, [REDIRECT])
        block = prompts.message_opening(prompts.REWRITE, text, region)
        rec.hold = True
        await pilot.press(*keys("remov"))  # names the method (guess_name): its block is prewarmed, and held
        await wait_until(pilot, lambda: rec.prewarms[-1].startswith(block), what="the method's block")
        held = session.prewarms.task
        app.typing_prewarmer.pause_s = PAUSE_S
        await pilot.press("e")  # and the user pauses
        await wait_until(pilot, lambda: session.prewarms.typed == REDIRECT, what="the whole message, after the pause")
        assert held in session.prewarms.behind and not held.done()  # queued behind it, not cancelling it
        assert rec.stopped == []
        rec.release.set()
        final = prompts.instruction_message(prompts.REWRITE, REDIRECT, text, region)["content"]
        await wait_until(pilot, lambda: rec.prewarms[-1] == final, what="the whole message's prewarm")
        assert rec.stopped == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(rec.turns) == 2, what="the restarted turn")
        assert rec.turns[-1] == final
