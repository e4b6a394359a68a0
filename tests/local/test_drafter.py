"""The speculative drafter on plain token lists: copying, departing, re-synchronising, growing drafts."""

from __future__ import annotations

from app.server.engines.speculative import DRAFT_MAX, DRAFT_START, Drafter, region_anchor

NL = 10  # a stand-in "newline" token in these lists


def _drafter(corpus, anchor=None):
    return Drafter(corpus, anchor, ends_line=lambda t: t == NL)


def test_no_match_no_draft():
    d = _drafter([1, 2, 3, 4, 5])
    d.accept([99, 98])
    assert d.draft(8) == []


def test_ngram_match_drafts_what_followed_it_in_the_prompt():
    prompt = [7, 7, 1, 2, 3, 4, 5, 6, 7, 8]
    d = _drafter(prompt)
    d.accept([1, 2])
    assert d.draft(4) == [3, 4, 5, 6]


def test_draft_stops_at_the_end_of_the_prompt():
    d = _drafter([1, 2, 3, 4])
    d.accept([2, 3])
    assert d.draft(8) == [4]


def test_pointer_follows_accepted_tokens_and_drafts_grow_while_all_are_accepted():
    prompt = list(range(100, 200))
    d = _drafter(prompt)
    d.accept([100, 101])
    first = d.draft(64)
    assert first == list(range(102, 102 + DRAFT_START))
    d.feedback(len(first), len(first))
    d.accept(first)
    second = d.draft(64)
    assert second == list(range(102 + DRAFT_START, 102 + 3 * DRAFT_START))
    for _ in range(5):
        d.feedback(len(second), len(second))
    assert d.k == DRAFT_MAX


def test_departure_resyncs_to_the_nearest_match_after_the_departure():
    # The same line appears twice in the prompt; after an edit in the first copy the model
    # resumes it, so the match just after the departure wins over the later one.
    line = [50, 51, 52, NL]
    prompt = [1, 2, 3, *line, 60, 61, 62, 63, 4, 5, 6, *line, 70, 71, 72, 73]
    d = _drafter(prompt)
    d.accept([2, 3])
    draft = d.draft(6)
    assert draft == [*line, 60, 61]
    d.feedback(6, 4)
    d.accept([50, 51, 52, NL, 99])  # the model wrote 99 where the prompt had 60: departed
    assert d.ptr is None and d.k == DRAFT_START
    d.accept([NL])
    assert d.draft(8) == []  # [NL, 99, NL] never occurs
    d.accept([61, 62])  # back on the text: [NL, 61, 62]? no; [61, 62] matches just after the departure
    assert d.draft(1) == [63]


def test_without_locality_the_latest_match_wins():
    prompt = [5, 6, 1, 2, 3, 4, 9, 5, 6, 7, 8]
    d = _drafter(prompt)
    d.accept([5, 6])
    assert d.draft(2) == [7, 8]


def test_answer_tokens_are_searchable_too():
    # REPLACE repeats what SEARCH just copied: the answer's own text is a draft source.
    d = _drafter([1, 2, 3])
    d.accept([40, 41, 42, 43, 44, NL, 40, 41])
    assert d.draft(3) == [42, 43, 44]


def test_anchor_is_drafted_once_after_the_first_line_of_the_answer():
    prompt = [1, 2, 3, 20, 21, 22, 23, 24, 4]
    d = _drafter(prompt, anchor=3)
    d.accept([77])
    assert d.draft(4) == []  # the opening fence's line is not finished
    d.accept([NL])
    assert d.draft(4) == [20, 21, 22, 23]
    d.feedback(4, 0)
    d.accept([88])  # rejected: the anchor is not tried again
    d.accept([NL])
    assert d.draft(4) == []


def test_limit_bounds_the_draft():
    d = _drafter(list(range(100)))
    d.accept([3, 4])
    assert d.draft(0) == []
    assert d.draft(3) == [5, 6, 7]


def test_region_anchor_finds_the_body_of_the_last_turns_fenced_block():
    text = "<|im_start|>user\nFile: a.py\n```python\nx = 1\n```<|im_end|>\n<|im_start|>user\nRegion (lines 1-1):\n```\nx = 1\n```\n\ndo it<|im_end|>\n"
    tokens = list(text)  # a one-character-per-token "tokenizer"
    assert region_anchor(text, list, tokens) == text.index("```\nx = 1\n```\n\ndo") + 4


def test_region_anchor_none_without_a_fenced_block_in_the_last_turn():
    text = "<|im_start|>user\nFile: a.py\n```python\nx = 1\n```<|im_end|>\n<|im_start|>user\njust words<|im_end|>\n"
    assert region_anchor(text, list, list(text)) is None


def test_region_anchor_none_when_the_cut_falls_inside_a_token():
    text = "<|im_start|>user\nRegion:\n```\nbody\n```\n\nx<|im_end|>\n"
    offset = text.index("body")
    tokens = list(text)
    tokens[offset - 1 : offset + 1] = ["\nb"]  # the "token" spans the cut

    def tokenize(s):
        return list(s)

    assert region_anchor(text, tokenize, tokens) is None


def test_a_callable_anchor_is_asked_only_when_a_draft_is_needed():
    calls = []

    def anchor():
        calls.append(1)
        return 3

    d = Drafter([1, 2, 3, 20, 21, 22, 23, 24, 4], anchor, ends_line=lambda t: t == NL)
    d.accept([77])
    assert calls == []
    d.accept([NL])
    assert d.draft(2) == [20, 21] and calls == [1]


def test_drafts_that_do_not_pay_back_off():
    line = [50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60]
    d = _drafter([1, *line, 2, *line, 3])
    d.accept([50, 51])
    assert d.draft(8)
    d.feedback(8, 1)  # one token accepted: not worth a 9-row batch
    d.accept([52, 99])
    d.accept([50, 51])  # matches again, but the miss just cost a batch: wait two steps
    assert [d.draft(8) for _ in range(2)] == [[], []]
    assert d.draft(8)
    d.feedback(8, 0)
    d.accept([98, 50, 51])
    assert [d.draft(8) for _ in range(4)] == [[], [], [], []]  # twice as long
    assert d.draft(8)
    d.feedback(8, 3)  # a draft that pays resets the back-off
    d.accept([97, 50, 51])
    assert d.draft(8)


def test_a_pointer_that_keeps_copying_is_not_held_back():
    d = _drafter(list(range(100, 200)))
    d.accept([100, 101])
    first = d.draft(8)
    d.feedback(len(first), len(first))
    d.accept(first)
    assert d.draft(8) == list(range(110, 118))


def test_resync_drafts_are_declined_when_their_rows_cost_more_than_they_save():
    from types import SimpleNamespace

    from app.server.engines.speculative import SpeculativeDecoder

    llm = SimpleNamespace(n_batch=512, n_vocab=lambda: 10)
    d = _drafter([1, 2, 3, 4, 5, 6, 7, 8, 9])
    dec = SpeculativeDecoder(llm, None, d, is_eog=lambda t: False, stopped=lambda: False)
    d.accept([2, 3])
    assert d.draft(4) and d.fresh
    assert dec._worth(d)  # no costs measured yet: verify
    dec._time(1, 0.050)
    dec._time(9, 0.250)  # 25 ms a further row, a one-row step 50 ms
    d.resync_rate = 0.6
    assert dec._worth(d)  # 0.6 * 50 ms saved per row > 25 ms
    d.resync_rate = 0.3
    assert not dec._worth(d)
    d.declined = 16
    assert dec._worth(d)  # every 16th is verified anyway, to keep measuring the rate
    d.declined = 0
    d.ptr = None
    d.accept([4])  # a copy in progress is never declined
    d.feedback(4, 4)
    d.accept([5, 6, 7])
    d.ptr = 7
    d.draft(2)
    assert not d.fresh and dec._worth(d)
