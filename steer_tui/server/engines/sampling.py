"""Sampled decoding over verified drafts: the sampler chain as numpy (top-k, top-p, min-p, temperature)
and speculative sampling's rule for a draft that is one token sure.

A sampled answer (an alternative's lane at temperature 0.8) copies most of its region as a greedy
one does, so it can verify copied drafts in one batch instead of paying a one-row step a token.
The rule keeps the answer's distribution exact: at row j the draft token d is accepted with the
probability p_j(d) the sampler gives it; a rejected row samples from p_j without d, renormalised
(Leviathan et al., "Fast Inference from Transformers via Speculative Decoding", with a draft that
puts all its mass on d). The chain matches the one llama-cpp-python builds for the plain loop
(`Llama._init_sampler`): top-k, then top-p and min-p on the untempered probabilities, then the
temperature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class SamplerChain:
    """The plain loop's sampler settings (steer_tui.server.engines.local._generate)."""

    temp: float
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05

    def distribution(self, logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(token ids, their probabilities) that one row of logits samples from, most likely first."""
        k = min(self.top_k, logits.shape[0]) if self.top_k > 0 else logits.shape[0]
        ids = np.argpartition(-logits, k - 1)[:k] if k < logits.shape[0] else np.arange(logits.shape[0])
        ids = ids[np.argsort(-logits[ids], kind="stable")]
        top = logits[ids].astype(np.float64)
        shifted = top - top[0]
        probs = np.exp(shifted)
        probs /= probs.sum()
        if self.top_p < 1.0:
            # The smallest head whose mass reaches top_p (at least one token).
            keep = int(np.searchsorted(np.cumsum(probs), self.top_p) + 1)
            shifted, ids = shifted[:keep], ids[:keep]
        if self.min_p > 0.0:
            keep = int(np.count_nonzero(shifted >= math.log(self.min_p)))
            shifted, ids = shifted[: max(1, keep)], ids[: max(1, keep)]
        weights = np.exp(shifted / self.temp)
        return ids, weights / weights.sum()


@dataclass
class DraftSampler:
    """Chooses a sampled answer's tokens from a verify's rows: how many draft tokens stand, and the next."""

    chain: SamplerChain
    rng: np.random.Generator = field(default_factory=np.random.default_rng)

    def sample(self, logits: np.ndarray) -> int:
        """A token drawn from one row."""
        ids, probs = self.chain.distribution(logits)
        return int(ids[self.rng.choice(len(ids), p=probs)])

    def choose(self, rows: np.ndarray, draft: list[int]) -> tuple[int, int]:
        """(draft tokens accepted, the token after them) for `rows` = the logits after the last
        token and after each draft token (len(draft) + 1 rows)."""
        for j, token in enumerate(draft):
            ids, probs = self.chain.distribution(rows[j])
            at = np.flatnonzero(ids == token)
            p = float(probs[at[0]]) if at.size else 0.0
            if self.rng.random() < p:
                continue
            if at.size:
                probs = probs.copy()
                probs[at[0]] = 0.0
                probs /= probs.sum()
            return j, int(ids[self.rng.choice(len(ids), p=probs)])
        return len(draft), self.sample(rows[len(draft)])
