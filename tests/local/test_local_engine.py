"""The embedded engine on the real model: streaming, cancel within a token, prefix reuse, steering."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from steer_tui import prompts
from steer_tui.server.engines.base import EngineError, EngineRequest

pytestmark = pytest.mark.local_model

FMT = prompts.SEARCH_REPLACE


def _request(messages, session, *, generate=True, max_tokens=32):
    return EngineRequest(
        response_id=f"resp_{uuid.uuid4().hex[:8]}",
        messages=messages,
        session_key=session,
        max_output_tokens=max_tokens,
        generate=generate,
    )


async def _run(engine, request, cancel=None, on_delta=None):
    cancel = cancel or threading.Event()
    deltas = []
    async for delta in engine.stream(request, cancel):
        deltas.append(delta)
        if on_delta:
            on_delta(deltas, cancel)
    return deltas


SMALL = '''def add(stock, name, qty=1):
    stock[name] = stock.get(name, 0) + qty
    return stock


def cheapest(prices):
    return min(prices.values())
'''


def _file(tag: str) -> str:
    # A distinct (small: CPU time is shared) file per test, so no test gets a cache hit from another's.
    return f"# {tag}\n" + SMALL


async def test_edit_request_streams_text(engine):
    text = _file("stream")
    messages = prompts.build_messages(FMT, "inventory.py", text, "Rename the function `cheapest` to `cheapest_price`.")
    req = _request(messages, "t-stream", max_tokens=40)
    deltas = await _run(engine, req)
    assert len(deltas) > 3
    assert "".join(deltas).strip()
    assert req.finish_reason in ("stop", "length")
    assert req.usage.output_tokens >= len([d for d in deltas if d])
    assert req.usage.input_tokens == req.usage.cached_tokens + req.usage.evaluated_tokens


async def test_cancel_stops_within_one_token(engine):
    text = _file("cancel")
    messages = prompts.build_messages(FMT, "inventory.py", text, "Add a docstring to every function.")
    req = _request(messages, "t-cancel", max_tokens=200)
    before = engine.counters.tokens_after_cancel
    at_cancel = {}

    def stop_after_three(deltas, cancel):
        if len(deltas) == 3 and not cancel.is_set():
            at_cancel["tokens"] = req.usage.output_tokens
            at_cancel["deltas"] = len(deltas)
            cancel.set()

    deltas = await _run(engine, req, on_delta=stop_after_three)
    assert req.finish_reason == "cancelled"
    assert len(deltas) - at_cancel["deltas"] <= 1
    assert req.usage.output_tokens - at_cancel["tokens"] <= 1
    assert engine.counters.tokens_after_cancel - before <= 1


async def test_prewarmed_request_evaluates_only_the_new_tokens(engine):
    text = _file("prewarm")
    system = {"role": "system", "content": prompts.system_prompt(FMT)}
    warm = _request([system, *prompts.prewarm_input(FMT, "inventory.py", text)], "t-prewarm", generate=False)
    assert await _run(engine, warm) == []
    assert warm.usage.evaluated_tokens > 30  # the file was new to the cache
    evaluated_before = engine.counters.prompt_tokens_evaluated

    messages = prompts.build_messages(FMT, "inventory.py", text, "Make `cheapest` return None for an empty dict.")
    req = _request(messages, "t-prewarm", max_tokens=8)
    await _run(engine, req)
    new_tokens = req.usage.input_tokens - warm.usage.input_tokens
    assert req.usage.cached_tokens == warm.usage.input_tokens
    assert req.usage.evaluated_tokens == new_tokens
    assert engine.counters.prompt_tokens_evaluated - evaluated_before == new_tokens
    assert new_tokens < 80


async def test_steer_successor_reuses_prompt_and_partial_answer(engine):
    text = _file("steer")
    messages = prompts.build_messages(FMT, "inventory.py", text, "Add type hints to `add`.")
    first = _request(messages, "t-steer", max_tokens=100)

    def stop_after_ten(deltas, cancel):
        if len(deltas) == 10:
            cancel.set()

    partial = "".join(await _run(engine, first, on_delta=stop_after_ten))
    assert first.finish_reason == "cancelled"
    successor_messages = messages + [
        {"role": "assistant", "content": partial},
        {"role": "user", "content": "Also add a return type."},
    ]
    successor = _request(successor_messages, "t-steer", max_tokens=4)
    await _run(engine, successor)
    assert successor.usage.cached_tokens >= first.usage.input_tokens  # the whole first prompt, and more
    assert successor.usage.evaluated_tokens < 40


async def _warm_two(engine, key: str, tag: str):
    """Prewarm two sessions' files, `t-KEY-a` then `t-KEY-b`: a's file and its prewarm request."""
    system = {"role": "system", "content": prompts.system_prompt(FMT)}
    a, b = _file(f"{tag}-a"), _file(f"{tag}-b")
    warm_a = _request([system, *prompts.prewarm_input(FMT, "a.py", a)], f"t-{key}-a", generate=False)
    warm_b = _request([system, *prompts.prewarm_input(FMT, "b.py", b)], f"t-{key}-b", generate=False)
    await _run(engine, warm_a)
    await _run(engine, warm_b)
    return a, warm_a


async def test_alternating_sessions_keep_their_prefixes(engine):
    a, warm_a = await _warm_two(engine, "alt", "session")
    restores = engine.counters.state_restores
    req = _request(prompts.build_messages(FMT, "a.py", a, "Rename `add` to `add_item`."), "t-alt-a", max_tokens=4)
    await _run(engine, req)
    assert engine.counters.state_restores == restores + 1
    assert req.usage.cached_tokens == warm_a.usage.input_tokens


async def test_the_cache_chosen_to_restore_is_not_dropped_to_make_room_for_the_live_one(engine):
    # A new session whose prompt shares most with an older session's saved cache: setting the live
    # one aside to switch must not evict that cache (it raised KeyError: "local engine failed: 'c110:-'").
    a, warm_a = await _warm_two(engine, "evict", "evict")
    budget = engine.state_budget_bytes
    engine.state_budget_bytes = engine._saved["t-evict-a"].size * 3 // 2  # room for one saved cache, not two
    try:
        req = _request(prompts.build_messages(FMT, "a.py", a, "Rename `add` to `add_item`."), "t-evict-c", max_tokens=4)
        deltas = await _run(engine, req)
    finally:
        engine.state_budget_bytes = budget
    assert deltas and req.usage.cached_tokens == warm_a.usage.input_tokens
    assert "t-evict-a" in engine._saved and "t-evict-b" not in engine._saved


async def test_prompt_larger_than_the_context_is_a_clear_error(engine):
    huge = "x = 1  # padding line for a file that cannot fit\n" * 1500
    req = _request(prompts.build_messages(FMT, "big.py", huge, "Remove the padding."), "t-huge")
    with pytest.raises(EngineError) as info:
        await _run(engine, req)
    assert info.value.code == "context_length_exceeded"
    assert "context window" in info.value.message


async def test_queued_request_cancelled_before_start_produces_nothing(engine):
    cancel = threading.Event()
    cancel.set()
    req = _request(prompts.build_messages(FMT, "x.py", "a = 1\n", "Set a to 2."), "t-precancel")
    assert await _run(engine, req, cancel) == []
    assert req.finish_reason == "cancelled"
    assert req.usage.output_tokens == 0


def test_model_path_loads_any_gguf_with_its_own_chat_template(real_model_path, tmp_path):
    from steer_tui.server.engines.local import LocalEngine

    link = tmp_path / "other-model.gguf"
    link.symlink_to(real_model_path)
    eng = LocalEngine(model_path=link, n_ctx=512, progress=False)
    eng.load()
    try:
        text = eng.render([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])
        assert "<|im_start|>user\nU<|im_end|>" in text  # the template came from the GGUF metadata
        assert text.endswith("<|im_start|>assistant\n")
        assert eng.model_path == link
        assert eng.context_tokens == 512  # what /health reports, for the client's context guard
    finally:
        asyncio.run(eng.close())


def test_embedded_model_is_verified_in_the_cache(real_model_path):
    from steer_tui.server import model_store

    assert real_model_path.stat().st_size == model_store.MODEL_SIZE
    marker = model_store._read_marker(real_model_path)
    assert marker["sha256"] == model_store.MODEL_SHA256


def test_the_client_knows_the_engines_default_cap():
    # steer_tui.turn.output_cap never asks the embedded engine for less than it gives by default.
    from steer_tui.server.engines.local import DEFAULT_MAX_OUTPUT
    from steer_tui.turn import ENGINE_DEFAULT_CAP

    assert ENGINE_DEFAULT_CAP == DEFAULT_MAX_OUTPUT
