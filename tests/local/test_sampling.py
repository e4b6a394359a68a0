"""Sampled decoding over drafts (engines/sampling.py): the sampler chain and speculative sampling's rule, no model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from steer_tui.server.engines.sampling import DraftSampler, SamplerChain


def _logits(probs: dict[int, float], n_vocab: int = 64) -> np.ndarray:
    """Logits whose softmax gives `probs` (the rest of the vocabulary far below)."""
    row = np.full(n_vocab, -50.0, dtype=np.float32)
    for token, p in probs.items():
        row[token] = math.log(p)
    return row


def test_the_chain_cuts_by_top_k_top_p_and_min_p_before_the_temperature():
    row = _logits({3: 0.5, 7: 0.3, 9: 0.15, 11: 0.04, 12: 0.01})
    ids, probs = SamplerChain(temp=1.0, top_k=40, top_p=0.95, min_p=0.05).distribution(row)
    # top-p keeps the head reaching 0.95 (3, 7, 9); min-p then drops nothing under 5% of 0.5 among them.
    assert ids.tolist() == [3, 7, 9]
    assert probs == pytest.approx([0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95], rel=1e-4)
    ids, _ = SamplerChain(temp=1.0, top_k=2, top_p=1.0, min_p=0.0).distribution(row)
    assert ids.tolist() == [3, 7]
    ids, _ = SamplerChain(temp=1.0, top_k=40, top_p=1.0, min_p=0.1).distribution(row)
    assert ids.tolist() == [3, 7, 9]  # 0.04 < 0.1 * 0.5
    # The temperature sharpens what is left, after the cuts.
    ids, probs = SamplerChain(temp=0.5, top_k=40, top_p=0.95, min_p=0.05).distribution(row)
    assert probs[0] == pytest.approx(0.25 / (0.25 + 0.09 + 0.0225), rel=1e-4)


def test_a_sure_draft_is_always_kept_and_the_next_token_is_sampled_after_it():
    sampler = DraftSampler(SamplerChain(temp=0.8), rng=np.random.default_rng(1))
    sure = _logits({5: 1.0})
    rows = np.stack([sure, sure, _logits({8: 1.0})])
    assert sampler.choose(rows, [5, 5]) == (2, 8)


def test_a_draft_outside_what_the_chain_keeps_is_rejected_at_once():
    sampler = DraftSampler(SamplerChain(temp=0.8), rng=np.random.default_rng(2))
    rows = np.stack([_logits({4: 0.9, 6: 0.1}), _logits({5: 1.0})])
    m, token = sampler.choose(rows, [30])
    assert m == 0 and token in (4, 6)


def test_accept_or_resample_keeps_the_samplers_distribution():
    # Speculative sampling's point: whatever the draft, the token at a row is distributed as the
    # plain sampler would draw it. A fixed seed makes the counts the same on every run.
    chain = SamplerChain(temp=1.0, top_k=40, top_p=1.0, min_p=0.0)
    row = _logits({2: 0.6, 3: 0.3, 4: 0.1})
    rows = np.stack([row, _logits({9: 1.0})])
    sampler = DraftSampler(chain, rng=np.random.default_rng(3))
    n = 20000
    for draft in (2, 3, 4):
        counts = {2: 0, 3: 0, 4: 0}
        for _ in range(n):
            m, token = sampler.choose(rows, [draft])
            counts[draft if m == 1 else token] += 1
        assert counts[2] / n == pytest.approx(0.6, abs=0.015)
        assert counts[3] / n == pytest.approx(0.3, abs=0.015)
        assert counts[4] / n == pytest.approx(0.1, abs=0.01)


def test_a_rejected_row_never_gives_the_draft_token_back():
    sampler = DraftSampler(SamplerChain(temp=1.0, top_p=1.0, min_p=0.0), rng=np.random.default_rng(4))
    rows = np.stack([_logits({2: 0.5, 3: 0.5}), _logits({9: 1.0})])
    for _ in range(200):
        m, token = sampler.choose(rows, [2])
        assert (m, token) == (1, 9) or (m == 0 and token == 3)
