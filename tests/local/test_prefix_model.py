"""`prefix` and `stop` on the real model: the answer goes on from the prefix (not sent back) and
ends before the stop string (not sent), greedy alike with and without speculation, the cache
holding exactly what the answer holds."""

from __future__ import annotations

import threading
import uuid

import pytest

from steer_tui import prompts
from steer_tui.edits.class_doc import DOC_CLOSE, docstring_place, docstring_prefix
from steer_tui.server.engines.base import EngineRequest
from bench.redirect import STACK

from tests.local.test_speculation import _kv_consistent

pytestmark = pytest.mark.local_model


async def _answer(engine, messages, session, *, prefix=None, stop=(), speculation=True):
    engine.speculation = speculation
    req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=120,
                        temperature=0.0, prefix=prefix, stop=stop)
    parts = []
    try:
        async for delta in engine.stream(req, threading.Event()):
            parts.append(delta)
    finally:
        engine.speculation = True
    return "".join(parts), req


async def test_a_class_docstring_goes_on_from_the_prefix_and_ends_at_its_closing_quotes(engine):
    place = docstring_place(STACK, "Stack")
    prefix = docstring_prefix(STACK, place)
    msgs = prompts.build_messages(prompts.REWRITE, "stack.py", STACK, "Add a docstring to the Stack class",
                                  region=(place[0], place[2]))
    assert {"prefix", "stop"} <= engine.features  # what the gateway's /health tells clients
    text, req = await _answer(engine, msgs, "prefix-doc", prefix=prefix, stop=(DOC_CLOSE,))
    assert req.finish_reason == "stop"
    assert text.strip() and DOC_CLOSE not in text and "class Stack" not in text and "```" not in text
    assert _kv_consistent(engine)
    # The cache holds the prompt, the prefix and the tokens written up to the stop string: what was
    # evaluated of a token the stop string cut (its closing quotes) is counted as written.
    assert engine._llm.n_tokens <= req.usage.input_tokens + req.usage.output_tokens
    plain, preq = await _answer(engine, msgs, "prefix-doc-plain", prefix=prefix, stop=(DOC_CLOSE,), speculation=False)
    assert plain == text and preq.finish_reason == "stop"
    # Without the prefix the same request is answered from the start (the fence), the prefix not assumed.
    whole, _ = await _answer(engine, msgs, "prefix-none")
    assert whole.startswith("```")
