"""Speculative edits on the real model: the plain greedy answer, fewer decode steps, a consistent cache, stops."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from steer_tui import prompts
from steer_tui.server.engines.base import EngineRequest

pytestmark = pytest.mark.local_model

FUNC = '''def summarize(orders, rate=2):
    """Combine orders for the report."""
    total = 0
    count = 0
    for order in orders:
        if order.qty > 0:
            total += order.price * order.qty * rate
            count += 1
    if count == 0:
        return 0
    return round(total / count, 2)
'''


def _file(tag: str) -> str:
    return f"# {tag}\nfrom dataclasses import dataclass\n\n\n" + FUNC + "\n\nLIMIT = 10\n"


def _request(messages, session, max_tokens=160):
    return EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=max_tokens, temperature=0.0)


async def _answer(engine, messages, session, *, speculation, cancel=None, on_delta=None, max_tokens=160):
    engine.speculation = speculation
    req = _request(messages, session, max_tokens)
    cancel = cancel or threading.Event()
    parts = []
    try:
        async for delta in engine.stream(req, cancel):
            parts.append(delta)
            if on_delta:
                on_delta(parts, cancel)
    finally:
        engine.speculation = True
    return "".join(parts), req


def _rewrite(tag: str, instruction="Make `summarize` use rate=3 by default."):
    text = _file(tag)
    return prompts.build_messages(prompts.REWRITE, "orders.py", text, instruction, region=prompts.rewrite_region(text, instruction))


def _kv_consistent(engine) -> bool:
    """The KV cache holds exactly positions 0..n_tokens-1 (no rejected draft row left behind)."""
    cpp, llm = engine._llama_cpp, engine._llm
    return cpp.llama_memory_seq_pos_max(cpp.llama_get_memory(llm._ctx.ctx), 0) == llm.n_tokens - 1


async def test_rewrite_is_the_plain_greedy_answer_in_fewer_steps(engine):
    msgs = _rewrite("spec-rewrite")
    plain, preq = await _answer(engine, msgs, "spec-plain", speculation=False)
    steps = engine.counters.spec_steps
    spec, sreq = await _answer(engine, msgs, "spec-spec", speculation=True)
    assert spec == plain
    assert sreq.usage.output_tokens == preq.usage.output_tokens
    assert sreq.finish_reason == preq.finish_reason == "stop"
    assert sreq.usage.draft_accepted > sreq.usage.output_tokens // 2  # most of a rewrite is a copy
    assert engine.counters.spec_steps - steps < sreq.usage.output_tokens // 2
    assert _kv_consistent(engine)
    llm = engine._llm
    assert llm.n_tokens == sreq.usage.input_tokens + sreq.usage.output_tokens  # the answer is cached


async def test_search_replace_is_the_plain_greedy_answer(engine, monkeypatch):
    from steer_tui.server.engines.speculative import SpeculativeDecoder

    # Whether a draft is worth its batch depends on this machine's measured costs; here every
    # draft is verified, so the REPLACE side's copy of its SEARCH side is always exercised.
    monkeypatch.setattr(SpeculativeDecoder, "_worth", lambda self, drafter, n: True)
    text = _file("spec-sr")
    msgs = prompts.build_messages(prompts.SEARCH_REPLACE, "orders.py", text, "Make `summarize` use rate=3 by default.")
    plain, _ = await _answer(engine, msgs, "spec-sr-plain", speculation=False, max_tokens=96)
    spec, sreq = await _answer(engine, msgs, "spec-sr-spec", speculation=True, max_tokens=96)
    assert spec == plain
    assert "=======\n    rate=3" in spec
    assert sreq.usage.draft_accepted >= 3  # "    rate=" copied from the SEARCH side
    assert _kv_consistent(engine)


async def test_length_limit_inside_an_accepted_draft_keeps_the_cache_to_the_answer(engine):
    msgs = _rewrite("spec-length")
    plain, preq = await _answer(engine, msgs, "spec-len-plain", speculation=False, max_tokens=37)
    spec, sreq = await _answer(engine, msgs, "spec-len-spec", speculation=True, max_tokens=37)
    assert spec == plain
    assert sreq.finish_reason == preq.finish_reason == "length"
    assert sreq.usage.output_tokens == 37
    assert _kv_consistent(engine)
    # As in the plain loop, the last token is sent but not evaluated.
    assert engine._llm.n_tokens <= sreq.usage.input_tokens + 37


async def test_follow_up_after_a_speculative_answer_reuses_it(engine):
    msgs = _rewrite("spec-follow")
    answer, first = await _answer(engine, msgs, "spec-follow", speculation=True)
    follow = msgs + [{"role": "assistant", "content": answer}, {"role": "user", "content": "Also rename it to `summary`."}]
    _, req = await _answer(engine, follow, "spec-follow", speculation=True, max_tokens=8)
    # Everything up to the answer's last token is reused (the template may re-tokenize its tail).
    assert req.usage.cached_tokens >= first.usage.input_tokens + first.usage.output_tokens - 2
    assert _kv_consistent(engine)


async def test_stop_mid_verify_aborts_the_batch(engine):
    msgs = _rewrite("spec-cancel")
    timer = {}

    def stop_soon(parts, cancel):
        # After a few deltas a verify is under way most of the time; stop 30 ms into it.
        if len(parts) == 12 and "t" not in timer:
            def fire():
                timer["t"] = time.perf_counter()
                cancel.set()
            threading.Timer(0.03, fire).start()

    before = engine.counters.tokens_after_cancel
    _, req = await _answer(engine, msgs, "spec-cancel", speculation=True, on_delta=stop_soon, max_tokens=400)
    ended = time.perf_counter()
    assert req.finish_reason == "cancelled"
    assert engine.counters.tokens_after_cancel - before <= 1
    assert _kv_consistent(engine)
    assert "t" in timer and ended >= timer["t"]


async def test_a_sampled_answer_verifies_drafts_too(engine):
    # An alternative's sampled lane copies its region as a greedy answer does: the copy is verified
    # in batches (speculative sampling, engines/sampling.py), not paid a one-row step a token.
    msgs = _rewrite("spec-sample")
    engine.speculation = True
    req = EngineRequest("resp_sample", msgs, "spec-sample", max_output_tokens=160, temperature=0.8)
    parts = [delta async for delta in engine.stream(req, threading.Event())]
    assert "def summarize" in "".join(parts)
    assert req.usage.draft_accepted > 0
    assert _kv_consistent(engine)
    assert engine._llm.n_tokens <= req.usage.input_tokens + req.usage.output_tokens


async def test_a_nearly_cold_sample_is_the_greedy_answer(engine):
    # At a temperature near 0 the sampler puts all but a vanishing share on the argmax: the sampled
    # path through drafts must then write the plain greedy answer, token for token.
    msgs = _rewrite("spec-cold")
    plain, preq = await _answer(engine, msgs, "spec-cold-plain", speculation=False)
    engine.speculation = True
    req = EngineRequest("resp_cold", msgs, "spec-cold", max_output_tokens=160, temperature=0.001)
    sampled = "".join([delta async for delta in engine.stream(req, threading.Event())])
    assert sampled == plain
    assert req.usage.draft_accepted > req.usage.output_tokens // 2
    assert _kv_consistent(engine)


async def test_prefix_cache_does_not_depend_on_the_wrappers_return_value(engine, monkeypatch):
    # llama-cpp-python 0.3.16's Llama._ctx.kv_cache_seq_rm returns None: the cache must still be kept.
    ctx = engine._llm._ctx
    wrapped = ctx.kv_cache_seq_rm
    monkeypatch.setattr(ctx, "kv_cache_seq_rm", lambda *a: (wrapped(*a), None)[1])
    text = _file("spec-prefix")
    msgs = prompts.build_messages(prompts.REWRITE, "orders.py", text, "Rename `summarize` to `summary`.")
    await _answer(engine, msgs, "spec-prefix", speculation=True, max_tokens=4)
    msgs2 = prompts.build_messages(prompts.REWRITE, "orders.py", text, "Make `summarize` use rate=3.")
    _, req = await _answer(engine, msgs2, "spec-prefix", speculation=True, max_tokens=4)
    assert req.usage.cached_tokens > len(text) // 8  # system prompt + file, not 0


async def test_stop_aborts_a_prefill_chunk_in_flight(engine):
    # A prewarm superseded by a turn must not hold the engine for the rest of a 256-token chunk
    # (seconds on a CPU): the stop reaches llama_decode through the abort callback.
    from steer_tui.server.engines.local import PREFILL_CHUNK

    text = "".join(f"def f{i}(x):\n    return x * {i} + {i * 7}\n\n\n" for i in range(120))
    msgs = [{"role": "system", "content": "prefill abort"}, prompts.file_message("big.py", text)]
    req = EngineRequest("resp_prefill", msgs, "spec-prefill", generate=False)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    async for _ in engine.stream(req, cancel):
        pass
    assert req.finish_reason == "cancelled"
    assert req.usage.input_tokens > 4 * PREFILL_CHUNK
    assert req.usage.evaluated_tokens < PREFILL_CHUNK  # the first chunk never finished
    assert _kv_consistent(engine)


def test_the_numpy_chain_draws_as_llama_cpps_sampler_does(engine):
    # Drafts or not, a sampled lane must be the same draw: the chain that judges drafts
    # (engines/sampling.py) is checked against llama.cpp's own sampler on a real row of logits
    # where the model is unsure (a new function's name).
    import numpy as np

    from steer_tui.server.engines import llama_internals as llama
    from steer_tui.server.engines.sampling import SamplerChain

    llm = engine._llm
    llm.reset()
    engine._seq_rm(0)
    llm.eval(llm.tokenize(b"import math\n\n\ndef", add_bos=False))
    row = np.ctypeslib.as_array(engine._llama_cpp.llama_get_logits_ith(llama.context_ptr(llm), -1),
                                shape=(llm.n_vocab(),)).copy()
    ids, probs = SamplerChain(temp=0.8).distribution(row)
    assert len(ids) > 3 and probs[0] < 0.9  # a row worth checking
    llm.set_seed(1234)  # the same draws on every run
    sampler = llama.init_sampler(llm, temp=0.8, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0)
    n = 4000
    try:
        drawn = [sampler.sample(llama.context(llm), -1) for _ in range(n)]
    finally:
        sampler.close()
        llm.reset()
        engine._seq_rm(0)
    assert set(drawn) <= set(ids.tolist())
    counts = {int(t): drawn.count(int(t)) / n for t in ids}
    for token, p in zip(ids.tolist(), probs.tolist()):
        assert abs(counts[token] - p) < 4 * (p * (1 - p) / n) ** 0.5 + 0.005, (token, p, counts[token])
