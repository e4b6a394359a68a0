"""`avoid` on the real model: the new answer keeps the rejected one up to its least confident token
past the given point, writes the runner-up there, and goes on greedily; the cache stays the answer."""

from __future__ import annotations

import threading
import uuid

import pytest

from steer_tui import prompts
from steer_tui.server.engines.base import EngineRequest

from tests.local.test_speculation import _kv_consistent, _rewrite

pytestmark = pytest.mark.local_model


async def _answer(engine, messages, session, *, avoid=None, speculation=True, cancel=None, max_tokens=200):
    engine.speculation = speculation
    req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=max_tokens,
                        temperature=0.0, avoid=avoid)
    parts = []
    try:
        async for delta in engine.stream(req, cancel or threading.Event()):
            parts.append(delta)
    finally:
        engine.speculation = True
    return "".join(parts), req


def _after_fence(answer: str) -> int:
    return len(answer.split("\n", 1)[0].encode()) + 1


async def test_an_avoided_answer_is_departed_from_at_its_least_confident_token(engine):
    msgs = _rewrite("depart", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "depart")
    after = _after_fence(first)
    departures = engine.counters.departures
    assert "avoid" in engine.features  # what the gateway's /health tells clients
    second, req = await _answer(engine, msgs, "depart", avoid=(first, after, False))
    assert engine.counters.departures == departures + 1
    assert second != first
    kept = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
    assert kept >= after  # the opening fence line is never where it departs
    assert req.finish_reason == "stop" and second.count("```") == 2
    assert _kv_consistent(engine)
    assert engine._llm.n_tokens == req.usage.input_tokens + req.usage.output_tokens  # the new answer is cached
    # The same departure decoded the plain way: speculation changes the speed, not the answer.
    plain, _ = await _answer(engine, msgs, "depart-plain", avoid=(first, after, False), speculation=False)
    assert plain == second


async def test_nothing_to_depart_from_is_the_plain_greedy_answer(engine):
    msgs = _rewrite("depart-none", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "depart-none")
    departures = engine.counters.departures
    again, req = await _answer(engine, msgs, "depart-none", avoid=(first, len(first.encode()), False))
    assert again == first and engine.counters.departures == departures
    assert _kv_consistent(engine)


async def test_a_stop_before_the_departure_sends_nothing(engine):
    msgs = _rewrite("depart-stop", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "depart-stop")
    cancel = threading.Event()
    cancel.set()
    text, req = await _answer(engine, msgs, "depart-stop", avoid=(first, _after_fence(first), False), cancel=cancel)
    assert text == "" and req.finish_reason == "cancelled"


async def test_a_length_limit_inside_the_kept_answer_ends_it_there(engine):
    msgs = _rewrite("depart-length", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "depart-length")
    text, req = await _answer(engine, msgs, "depart-length", avoid=(first, _after_fence(first), False), max_tokens=6)
    assert req.finish_reason == "length" and req.usage.output_tokens == 6
    assert first.startswith(text) and _kv_consistent(engine)


async def test_a_departure_reads_the_rows_its_answer_kept_not_the_answer_again(engine):
    # The answer's own decoding kept each row's winner, runner-up and lead, and its cache stays:
    # the departure reads neither the prompt nor the answer again. (Where it departs may differ
    # from a reading of the answer in one batch: a batch's size moves a row's lead by a few tenths
    # of a logit, and two rows that close are the model's near-tie either way.)
    from steer_tui.server.engines.depart import least_confident_of, no_departure, start_index

    msgs = _rewrite("depart-rows", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "depart-rows")
    rows = engine._rows
    after = _after_fence(first)
    from_rows = engine.counters.departures_from_rows
    second, req = await _answer(engine, msgs, "depart-rows", avoid=(first, after, False))
    assert engine.counters.departures_from_rows == from_rows + 1
    assert req.usage.evaluated_tokens == 0
    assert req.finish_reason == "stop" and _kv_consistent(engine)
    assert engine._llm.n_tokens == req.usage.input_tokens + req.usage.output_tokens
    # It departs where the kept rows say the answer was least sure.
    piece = lambda t: engine._llm._model.detokenize([t], special=False)
    pieces = [piece(t) for t in rows.tokens]
    at = start_index(pieces, after)
    found = least_confident_of(rows.best[at:], rows.second[at:], rows.margin[at:], rows.tokens, at,
                               lambda t: engine._llama_cpp.llama_vocab_is_eog(engine._vocab, t),
                               no_departure(pieces, piece))
    assert found is not None
    head = b"".join(pieces[: found.at]).decode()
    assert second.startswith(head) and second.encode().startswith(head.encode() + piece(found.token))
    engine.keep_rows = False
    try:
        reread, _ = await _answer(engine, msgs, "depart-rows-reread", avoid=(first, after, False))
    finally:
        engine.keep_rows = True
    assert engine.counters.departures_from_rows == from_rows + 1 and reread != first
