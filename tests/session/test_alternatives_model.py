"""`avoid.rank` on the real model: alternatives of one answer depart from it at different tokens, the
rank-th least confident, each then greedy; a rank past the candidates is the greedy answer again."""

from __future__ import annotations

import threading
import uuid

import pytest

from steer_tui.server.engines.base import EngineRequest
from tests.local.conftest import engine, real_model_path  # noqa: F401  (the one loaded model)
from tests.local.test_speculation import _kv_consistent, _rewrite

pytestmark = pytest.mark.local_model


async def _answer(engine, messages, session, *, avoid=None, rank=0):
    req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=300,
                        temperature=0.0, avoid=avoid, avoid_rank=rank)
    parts = [d async for d in engine.stream(req, threading.Event())]
    return "".join(parts), req


def _split_at(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


async def test_each_rank_departs_at_its_own_token(engine):  # noqa: F811
    msgs = _rewrite("alternatives", "Fix the bug in `summarize`.")
    first, _ = await _answer(engine, msgs, "alternatives")
    after = len(first.split("\n", 1)[0].encode()) + 1
    avoid = (first, after, False)
    lanes = [(await _answer(engine, msgs, "alternatives", avoid=avoid, rank=k))[0] for k in range(3)]
    assert len({first, *lanes}) == 4  # four different answers
    where = [_split_at(first, lane) for lane in lanes]
    assert len(set(where)) == 3 and all(w >= after for w in where)  # each departs at a token of its own
    assert _kv_consistent(engine)
    # Past the answer's last candidate: the greedy answer itself.
    again, _ = await _answer(engine, msgs, "alternatives", avoid=(first, len(first.encode()) - 2, False), rank=15)
    assert again == first
