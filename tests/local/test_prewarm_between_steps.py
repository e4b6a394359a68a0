"""A redirect prewarmed while the answer is written, on the real model: the client's own prewarm is
evaluated between two steps of its answer, the answer comes out exactly as it would have, and
the turn that follows starts from the prewarmed cache. Another client's prewarm waits its turn."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from steer_tui import prompts
from steer_tui.server.engines.base import EngineRequest

pytestmark = pytest.mark.local_model

STACK = '''"""A bounded stack."""


class Stack:
    def __init__(self, limit):
        self.limit = limit
        self.items = []

    def push(self, item):
        if len(self.items) >= self.limit:
            raise OverflowError("stack is full")
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty stack")
        return self.items.pop()
'''
FIRST = "add type hints to every method of Stack"
WORDS = "no, only add a docstring to pop, nothing else"


def _request(key: str, messages: list[dict], *, generate: bool = True, client: str | None = "c1") -> EngineRequest:
    system = {"role": "system", "content": prompts.system_prompt(prompts.REWRITE)}
    return EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", [system, *messages], key, max_output_tokens=60,
                         temperature=0.0, generate=generate, client=client)


async def _run(engine, req: EngineRequest, on_delta=None) -> str:
    parts: list[str] = []
    async for delta in engine.stream(req, threading.Event()):
        parts.append(delta)
        if on_delta:
            on_delta(len(parts))
    return "".join(parts)


def _turns(tag: str):
    text = f"# {tag}\n" + STACK
    region = prompts.rewrite_region(text, FIRST)
    first = prompts.build_input(prompts.REWRITE, "stack.py", text, FIRST, region)
    narrowed = prompts.redirect_region(text, region, [WORDS])
    instruction = prompts.redirect_instruction(FIRST, [WORDS])
    redirect = prompts.build_input(prompts.REWRITE, "stack.py", text, instruction, narrowed)
    warm = prompts.prewarm_input(prompts.REWRITE, "stack.py", text, narrowed, instruction, complete=True)
    return first, redirect, warm


@pytest.mark.parametrize("speculation", [True, False])
async def test_the_clients_prewarm_runs_between_steps_and_the_answer_is_unchanged(engine, speculation):
    first, redirect, warm = _turns(f"between-{speculation}")
    key = f"c1:between-{speculation}"
    engine.speculation = speculation
    try:
        await _run(engine, _request(key, first))
        # Again, so that this answer and the next start from the same cache (all but the last
        # prompt token reused): a batch's logits differ from a one-row decode's in the last bits.
        alone = await _run(engine, _request(key, first))
        order: list[str] = []
        side: list[asyncio.Task] = []

        async def prewarm() -> None:
            await _run(engine, _request(key + "~redirect", warm, generate=False))
            order.append("prewarm")

        def at(n: int) -> None:
            if n == 3:
                side.append(asyncio.ensure_future(prewarm()))

        restores = engine.counters.state_restores
        answer = await _run(engine, _request(key, first), at)
        order.append("answer")
        await asyncio.gather(*side)
    finally:
        engine.speculation = True
    assert answer == alone  # set aside and put back: not a token of the answer changes
    assert order == ["prewarm", "answer"]  # in between the answer's steps, not after it
    assert engine.counters.state_restores > restores
    # The redirect's turn finds the prewarmed cache: only its last token is evaluated again.
    req = _request(key, redirect)
    await _run(engine, req)
    assert req.usage.cached_tokens >= req.usage.input_tokens - 2
    assert req.usage.evaluated_tokens <= 2


async def test_another_clients_prewarm_waits_for_the_answer(engine):
    first, _, warm = _turns("other-client")
    key = "c1:other-client"
    order: list[str] = []
    side: list[asyncio.Task] = []

    async def prewarm() -> None:
        await _run(engine, _request("c2:other", warm, generate=False, client="c2"))
        order.append("prewarm")

    def at(n: int) -> None:
        if n == 3:
            side.append(asyncio.ensure_future(prewarm()))

    await _run(engine, _request(key, first), at)
    order.append("answer")
    await asyncio.gather(*side)
    assert order == ["answer", "prewarm"]
