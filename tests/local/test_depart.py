"""Departing from a rejected answer, on plain arrays: where it starts, which row is least sure, and
how the drafter follows the tokens kept before the departure."""

from __future__ import annotations

import numpy as np

from steer_tui.server.engines.depart import least_confident, no_departure, start_index
from steer_tui.server.engines.speculative import Drafter

EOG = 0
NL = 10


def rows_for(tokens: list[int], first: int, leads: list[float], runner_ups: list[int], vocab: int = 50) -> np.ndarray:
    """Logits where row r's winner is tokens[first + r], ahead of runner_ups[r] by leads[r]."""
    rows = np.zeros((len(leads), vocab), dtype=np.float32)
    for r, (lead, second) in enumerate(zip(leads, runner_ups)):
        rows[r, second] = 5.0
        rows[r, tokens[first + r]] = 5.0 + lead
    return rows


def test_the_start_is_the_first_token_at_or_after_the_byte():
    pieces = [b"```", b"python", b"\n", b"def", b" f"]
    assert start_index(pieces, len(b"```python\n")) == 3
    assert start_index(pieces, 4) == 2  # inside "python": the next token that starts after it
    assert start_index(pieces, 0) == 1  # never the first token: its row is the prompt's
    assert start_index(pieces, 100) == 5  # past the end: nothing to depart from


def test_the_least_confident_row_wins_and_its_runner_up_is_written():
    tokens = [1, 2, 3, 4, 5]
    rows = rows_for(tokens, 1, [2.0, 0.4, 1.0, 3.0], [20, 21, 22, 23])
    d = least_confident(rows, tokens, 1, lambda t: t == EOG)
    assert (d.at, d.token) == (2, 21) and abs(d.margin - 0.4) < 1e-6


def test_rows_the_model_would_not_have_written_and_endings_are_skipped():
    tokens = [1, 2, 3, 4, 5]
    rows = rows_for(tokens, 1, [2.0, 0.1, 0.2, 3.0], [20, EOG, 22, 23])
    rows[2, 30] = 9.0  # row 2 prefers 30 over the answer's own 3: not the model's answer there
    d = least_confident(rows, tokens, 1, lambda t: t == EOG)
    assert (d.at, d.token) == (1, 20)  # 0.1 ends the answer, 0.2's row is not the model's: the next
    assert least_confident(rows[:0], tokens, 1, lambda t: t == EOG) is None


def test_a_runner_up_that_spells_the_same_text_is_no_departure():
    # tokens 1..5 spell "    return x"; the runner-up 40 at index 2 is "  " (two of the four
    # spaces that token 2 holds): the same text split differently. 41 is " if" instead.
    spelled = {1: b"\n", 2: b"    ", 3: b"return", 4: b" x", 5: b"\n", 40: b"  ", 41: b" if"}
    tokens = [1, 2, 3, 4, 5]
    same = no_departure([spelled[t] for t in tokens], spelled.__getitem__)
    assert same(1, 40) and not same(1, 41) and same(2, 3) and not same(3, 40)
    rows = rows_for(tokens, 1, [0.1, 0.5, 3.0, 3.0], [40, 41, 22, 23])
    d = least_confident(rows, tokens, 1, lambda t: t == EOG, same)
    assert (d.at, d.token) == (2, 41)


def test_a_runner_up_that_skips_to_a_later_line_is_no_departure():
    # "from x import y\n\ndef f():\n    return 1\n": at the start of the first line, "def" would
    # skip the import (a rewrite keeps lines it leaves out: unchanged again); "class" departs.
    spelled = {1: b"from", 2: b" x import y\n", 3: b"\n", 4: b"def", 5: b" f():\n", 6: b"    ", 7: b"return 1\n",
               40: b"def", 41: b"class", 42: b"        "}
    tokens = [1, 2, 3, 4, 5, 6, 7]
    none = no_departure([spelled[t] for t in tokens], spelled.__getitem__)
    assert none(0, 40) and not none(0, 41)
    assert not none(5, 42)  # an indentation of its own: a change (a return moved out of a loop)
    assert not none(1, 40)  # not at a line start: "fromdef" skips nothing
    # Where the request deletes code, leaving the lines between out is the change asked for.
    assert not no_departure([spelled[t] for t in tokens], spelled.__getitem__, skips=True)(0, 40)


def test_replayed_tokens_leave_the_drafter_copying_where_they_stop():
    # prompt: a header, then the region 100..119 after a fence line; the answer opens its fence,
    # copies 100..104 and departs with 777: after it the drafter re-syncs near 105.
    prompt = [1, 2, 3, NL, *range(100, 120), 4, 5]
    d = Drafter(prompt, anchor=4, ends_line=lambda t: t == NL)
    d.replay([7, NL, 100, 101, 102, 103, 104])
    assert d.draft(4) == [105, 106, 107, 108]  # still copying: the kept tokens were the region's
    d.decline()
    d.replay([777, 106, 107, 108])  # a departure, then the region again
    assert d.draft(4) == [109, 110, 111, 112]


def test_kept_rows_find_what_the_logits_find():
    from steer_tui.server.engines.depart import RowRecord, least_confident_of, top2

    tokens = [1, 2, 3, 4, 5]
    rows = rows_for(tokens, 1, [2.0, 0.1, 0.2, 3.0], [20, EOG, 22, 23])
    rows[2, 30] = 9.0
    record = RowRecord([7, 8])
    record.add(tokens[0], tokens[0], 0, 9.0)
    for token, best, second, lead in zip(tokens[1:], *top2(rows)):
        record.add(token, int(best), int(second), float(lead))
    kept = least_confident_of(record.best[1:], record.second[1:], record.margin[1:], record.tokens, 1, lambda t: t == EOG)
    assert kept == least_confident(rows, tokens, 1, lambda t: t == EOG)
    assert record.serves([7, 8], tokens[:3]) and record.serves([7, 8], tokens)
    assert not record.serves([7, 9], tokens[:3]) and not record.serves([7, 8], [1, 2, 9])
    assert not record.serves([7, 8], [*tokens, 6])  # longer than the answer the rows are of
