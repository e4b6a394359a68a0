"""Prewarms: a new prewarm supersedes the one in flight unless it extends it; a turn cancels
those it does not start with and waits behind the ones it does."""

from __future__ import annotations

import asyncio

from steer_tui.prewarms import Prewarms


async def _held(gate: asyncio.Event) -> None:
    await gate.wait()


async def test_a_new_prewarm_cancels_the_one_in_flight():
    p, gate = Prewarms(), asyncio.Event()
    p.start(_held(gate), "text", (1, 4), "make")
    first = p.task
    p.start(_held(gate), "text", (1, 4), "make it")
    await asyncio.sleep(0)
    assert first.cancelled() and p.in_flight() == [p.task]
    assert p.covers == ("text", (1, 4)) and p.typed == "make it"
    gate.set()
    await p.wait()
    assert p.in_flight() == []


async def test_behind_keeps_one_of_the_same_region_running_and_waits_for_both():
    p, gate = Prewarms(), asyncio.Event()
    p.start(_held(gate), "text", (1, 4), "no, only")
    first = p.task
    p.start(_held(gate), "text", (1, 4), "no, only add a docstring", behind=True)
    await asyncio.sleep(0)
    assert not first.done() and first in p.behind and len(p.in_flight()) == 2
    p.start(_held(gate), "text", (5, 9), "x", behind=True)  # another region: no prefix to keep
    await asyncio.sleep(0)
    assert not first.done()  # the older one is not the newest: it runs on
    assert len(p.in_flight()) == 2
    gate.set()
    await p.wait()
    assert p.behind == set()


async def test_a_turn_cancels_prewarms_it_does_not_start_with():
    gate = asyncio.Event()
    p = Prewarms()
    p.start(_held(gate), "text", (1, 4), "make total")
    p.make_way((1, 4), "make total skip zero")  # the turn starts with this block and these words
    await asyncio.sleep(0)
    assert not p.task.done()
    p.make_way((1, 4), "add a docstring")  # other words
    await asyncio.sleep(0)
    assert p.task.cancelled()
    p.start(_held(gate), "text", None)  # the whole file: every turn starts with it
    assert p.warming_file
    p.make_way((5, 9), "anything")
    await asyncio.sleep(0)
    assert not p.task.done()
    p.start(_held(gate), "text", (1, 4), "", behind=False)
    p.make_way((5, 9), "anything")  # another block
    await asyncio.sleep(0)
    assert p.task.cancelled() and p.in_flight() == []


async def test_only_one_older_prewarm_goes_on_behind_the_newest():
    """Pauses while the block is still being evaluated: the block's prewarm goes on, and each
    pause's message replaces the last one queued behind it (its words are stale, it has not started)."""
    p, gate = Prewarms(), asyncio.Event()
    p.start(_held(gate), "text", (1, 4), "make total")
    block = p.task
    p.start(_held(gate), "text", (1, 4), "make total skip zer", behind=True)
    queued = p.task
    p.start(_held(gate), "text", (1, 4), "make total skip zero", behind=True)
    await asyncio.sleep(0)
    assert queued.cancelled() and not block.done() and p.behind == {block}
    assert p.in_flight() == [p.task, block]
    gate.set()
    await p.wait()
