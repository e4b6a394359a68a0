"""Departing from an answer the client rejected (a request's `avoid`): the token of it the model was
least sure of, past a given point, and the token it ranked second there.

A 1.5B model often writes a bug-fix's region back unchanged; asked again, greedily, it writes the
same text, and asked again with feedback it did so in every run measured. Where it hesitated
between two tokens is often the bug (`return True` against `return False`): forcing the runner-up
there and decoding greedily after it is the model's own next most likely answer
(bench/results/levers/README.md, "runner-up")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

ROWS = 64  # answer tokens per decode with logits for every row (~40 MB of logits at 151k vocab)


@dataclass(frozen=True)
class Departure:
    at: int  # index into the answer's tokens where it departs
    token: int  # the runner-up written there instead
    margin: float  # how far the answer's own token led it (logits)


def start_index(pieces: list[bytes], after: int) -> int:
    """The first token that starts at byte `after` of the answer or later (never the first token:
    its row is the prompt's last)."""
    pos = 0
    for i, piece in enumerate(pieces):
        if pos >= after and i > 0:
            return i
        pos += len(piece)
    return len(pieces)


def no_departure(pieces: list[bytes], piece: Callable[[int], bytes],
                 skips: bool = False) -> Callable[[int, int], bool]:
    """The `skip` of least_confident: True where writing `token` at answer index j departs
    from nothing the edit keeps. Either it spells the answer's own text there (a different split
    of the same bytes), or, at the start of a line, it starts one of the answer's later lines: the
    answer would skip the lines between (an import, a helper before the function), and a rewrite
    that leaves lines out keeps them as they were (steer_tui.edits), so it comes back unchanged again;
    unless `skips` (the request deletes code: leaving lines out is the change asked for).
    A token of whitespace alone is an indentation: a change of its own."""
    text = b"".join(pieces)
    starts = [0]
    for p in pieces:
        starts.append(starts[-1] + len(p))

    def none(j: int, token: int) -> bool:
        alt, at = piece(token), starts[j]
        if not alt or text.startswith(alt, at):
            return True
        if not skips and (at == 0 or text[at - 1 : at] == b"\n") and alt.strip():
            return any(line.startswith(alt) for line in text[at:].split(b"\n")[1:])
        return False

    return none


def top2(rows):
    """(each row's winner, its runner-up, the winner's lead in logits) for rows of logits."""
    import numpy as np

    pair = np.argpartition(rows, -2, axis=1)[:, -2:]
    at = np.arange(len(rows))
    a, b = rows[at, pair[:, 0]], rows[at, pair[:, 1]]
    return np.where(a >= b, pair[:, 0], pair[:, 1]), np.where(a >= b, pair[:, 1], pair[:, 0]), np.abs(a - b)


def least_confident(rows, tokens: list[int], first: int, is_eog: Callable[[int], bool],
                    skip: Callable[[int, int], bool] = lambda _j, _t: False) -> Departure | None:
    """Of the rows `rows` (logits, one row per answer token from `first` on: row r predicts
    tokens[first + r]), the one where the answer's own token won by the least, and its runner-up.
    Rows where the model would not have written the answer's token are skipped (the answer is
    not the model's there), and so are runner-ups that end the answer or that `skip(j, token)`
    says depart from nothing (no_departure)."""
    if len(rows) == 0:
        return None
    return least_confident_of(*top2(rows), tokens, first, is_eog, skip)


def least_confident_of(best, second, margin, tokens: list[int], first: int, is_eog: Callable[[int], bool],
                       skip: Callable[[int, int], bool] = lambda _j, _t: False) -> Departure | None:
    """least_confident from each row's winner, runner-up and lead (top2), as the answer's own
    decoding kept them (RowRecord) or a reading of the answer found them."""
    import numpy as np

    for r in np.argsort(np.asarray(margin), kind="stable"):
        j = first + int(r)
        if int(best[r]) != tokens[j] or is_eog(int(second[r])) or skip(j, int(second[r])):
            continue
        return Departure(j, int(second[r]), float(margin[r]))
    return None


class RowRecord:
    """A greedy answer's rows as its decoding saw them: after `prompt`, for each answer token the
    row's winner, runner-up and lead. A departure from that answer (the same prompt, the answer's
    own tokens) reads them here instead of evaluating the answer again: ~17 ms a token on two cores."""

    def __init__(self, prompt: list[int]) -> None:
        self.prompt = prompt
        self.tokens: list[int] = []
        self.best: list[int] = []
        self.second: list[int] = []
        self.margin: list[float] = []

    def add(self, token: int, best: int, second: int, margin: float) -> None:
        self.tokens.append(token)
        self.best.append(best)
        self.second.append(second)
        self.margin.append(margin)

    def head(self, n: int) -> RowRecord:
        """The rows of the answer's first n tokens."""
        out = RowRecord(self.prompt)
        out.tokens, out.best, out.second, out.margin = self.tokens[:n], self.best[:n], self.second[:n], self.margin[:n]
        return out

    def serves(self, prompt: list[int], tokens: list[int]) -> bool:
        """Whether these rows are those of `tokens` after `prompt`."""
        return prompt == self.prompt and self.tokens[: len(tokens)] == tokens and len(tokens) <= len(self.tokens)
