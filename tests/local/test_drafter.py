"""The speculative drafter on plain token lists: copying, departing, re-synchronising, growing drafts."""

from __future__ import annotations

from steer_tui.server.engines.speculative import DRAFT_MAX, DRAFT_START, PAYING, Drafter, region_anchor, system_end

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


def test_without_locality_matches_that_disagree_draft_nothing():
    # [5, 6] is followed by 1 once and by 7 once: which one comes is a guess, not a copy.
    prompt = [5, 6, 1, 2, 3, 4, 9, 5, 6, 7, 8]
    d = _drafter(prompt)
    d.accept([5, 6])
    assert d.draft(2) == []


def test_matches_that_share_too_few_tokens_to_pay_for_a_batch_draft_nothing():
    # "limit * 1:" and "limit * 2:" share " *", " " and then part: not worth a verify.
    prompt = [40, 41, 42, 43, 1, 0, 40, 41, 42, 43, 2, 0]
    d = _drafter(prompt)
    d.accept([40, 41])
    assert PAYING > 2 and d.draft(8) == []


def test_without_locality_the_latest_match_wins_when_the_matches_agree():
    line = [42, 43, 44, 45, NL]
    prompt = [40, 41, *line, 7, 40, 41, *line, 8]
    d = _drafter(prompt)
    d.accept([40, 41])
    assert d.draft(8) == line  # capped where the two copies part (7 vs 8)
    d.feedback(5, 5)
    d.accept(line)
    assert d.draft(8) == [8]  # the pointer followed the latest copy


def test_system_prompt_is_never_a_draft_source():
    # An example in the system prompt ([1, 2] then 3 4 5) must not be copied into the answer.
    prompt = [1, 2, 3, 4, 5, 6, 90, 91, 92, 93]
    d = Drafter(prompt, ends_line=lambda t: t == NL, floor=6)
    d.accept([1, 2])
    assert d.draft(8) == []
    d.accept([90, 91])
    assert d.draft(8) == [92, 93]


PIECES = {1: b"<<<<<<< SEARCH", 2: b"\n", 3: b"    total", 4: b" +=", 5: b" x", 6: b"=======",
          7: b">>>>>>> REPLACE", 8: b"\n    ", 9: b"total", 10: b" y"}


def _sr_drafter(corpus=(50, 51, 52)):
    return Drafter(list(corpus), ends_line=lambda t: PIECES.get(t, b"").endswith(b"\n"),
                   piece=lambda t: PIECES.get(t, b"?"))


def test_replace_side_copies_its_search_side():
    d = _sr_drafter()
    d.accept([1, 2, 3, 4, 5, 2, 6])
    assert d.draft(8) == []  # the divider line has not ended yet
    d.accept([2])  # "=======\n": the REPLACE side starts
    assert d.draft(8) == [3, 4, 5, 2, 6, 2]


def test_replace_copy_needs_the_newline_token_to_match():
    # After SEARCH the newline came with the indentation in one token; after the divider alone:
    # a copy from the token after SEARCH's newline would skip the indentation.
    d = _sr_drafter()
    d.accept([1, 8, 9, 4, 5, 2, 6, 2])
    assert d.pending is None
    d = _sr_drafter()
    d.accept([1, 8, 9, 4, 5, 2, 6, 8])
    assert d.draft(8) == [9, 4, 5, 2, 6, 8]


# Marker lines as the model's tokenizer splits them: "<<<<<<<", " SEARCH", "\n" and ">>>>>>>", " REPLACE".
PIECES.update({11: b"<<<<<<<", 12: b" SEARCH", 13: b">>>>>>>", 14: b" REPLACE", 15: b"4", 16: b"5", 17: b"=======\n"})
MARKERS = ([11, 12, 2], [13, 14])


def _marked_drafter(corpus=(50, 51, 52)):
    return Drafter(list(corpus), ends_line=lambda t: PIECES.get(t, b"").endswith(b"\n"),
                   piece=lambda t: PIECES.get(t, b"?"), markers=MARKERS)


def test_a_line_begun_as_a_marker_is_drafted_to_its_end():
    d = _marked_drafter()
    d.accept([11])
    assert d.draft(8) == [12, 2]  # even with no n-gram to copy: the format's own line
    d.accept([12, 2])
    assert d.draft(8) == []  # the line is done
    d.accept([3, 4, 2, 13])
    assert d.draft(8) == [14]
    d.accept([14])
    assert d.draft(8) == []


def test_a_marker_token_inside_a_line_is_not_a_marker_line():
    d = _marked_drafter()
    d.accept([3, 13])
    assert d.draft(8) == []


def test_replace_copy_ends_with_the_closing_line_and_goes_on_after_one_changed_token():
    d = _marked_drafter()
    d.accept([11, 12, 2, 3, 4, 15, 2, 17])  # SEARCH "    total += 4\n", then the divider
    assert d.draft(8) == [3, 4, 15, 2, 13, 14]  # the SEARCH side, then the closing line for the divider
    d.feedback(6, 2)
    d.accept([3, 4, 16])  # "5" where the SEARCH side had "4"
    draft = d.draft(8)
    assert draft == [2, 13, 14] and d.fresh and d.copying_search  # the rest of the copy, judged like one
    d.feedback(3, 3)
    d.accept(draft)
    assert d.span is None or d.departed is None
    assert d.draft(8) == []  # the closing line written where the divider was copied is no departure


def test_after_two_changed_tokens_the_copy_does_not_skip_ahead():
    d = _marked_drafter()
    d.accept([11, 12, 2, 3, 4, 15, 2, 17])
    d.draft(8)
    d.feedback(6, 2)
    d.accept([3, 4, 16])
    d.decline()  # the one-token guess was not verified
    d.accept([16])
    assert d.draft(8) == []


def test_without_marker_tokens_a_replace_copy_runs_into_the_divider():
    d = _sr_drafter()
    d.accept([11, 12, 2, 3, 4, 15, 2, 17])
    assert d.span is None
    assert d.draft(8) == [3, 4, 15, 2, 17]


def test_divider_without_search_drafts_nothing_special():
    d = _sr_drafter()
    d.accept([3, 4, 2, 6, 2])
    assert d.pending is None


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


def test_resync_drafts_are_declined_when_their_batch_costs_more_than_it_saves():
    from types import SimpleNamespace

    from steer_tui.server.engines.speculative import SpeculativeDecoder

    llm = SimpleNamespace(n_batch=512, n_vocab=lambda: 10)
    d = _drafter([1, 2, 3, 4, 5, 6, 7, 8, 9])
    dec = SpeculativeDecoder(llm, None, d, is_eog=lambda t: False, stopped=lambda: False)
    d.accept([2, 3])
    assert d.draft(4) and d.fresh and d.guess  # nothing copied yet: the latest match is a guess
    assert dec._worth(d, 4)  # no costs measured yet: verify
    dec._time(1, 0.050)
    dec._time(5, 0.150)  # a 5-row verify: 3 one-row steps
    d.guess_rate = 0.6
    assert dec._worth(d, 4)  # 1 + 0.6 * 4 = 3.4 steps expected > 3
    d.guess_rate = 0.3
    assert not dec._worth(d, 4)  # 2.2 < 3
    d.declined = 16
    assert dec._worth(d, 4)  # every 16th is verified anyway, to keep measuring the rate
    d.declined = 0
    carried = SpeculativeDecoder(llm, None, _drafter([1, 2, 3, 4, 5]), is_eog=lambda t: False, stopped=lambda: False,
                                 costs=dec.costs)
    carried.drafter.accept([2, 3])
    carried.drafter.guess_rate = 0.3
    assert carried.drafter.draft(2) and not carried._worth(carried.drafter, 2)  # the engine's costs judge its first draft
    d.ptr = None
    d.accept([4])  # a copy in progress is never declined
    d.feedback(4, 4)
    d.accept([5, 6, 7])
    d.ptr = 7
    d.draft(2)
    assert not d.fresh and dec._worth(d, 2)


def test_decode_costs_interpolate_between_the_sizes_measured():
    from steer_tui.server.engines.speculative import DecodeCosts

    c = DecodeCosts()
    assert c.estimate(9) is None
    c.record(1, 0.05)
    c.record(9, 0.45)
    c.record(33, 0.95)
    assert c.estimate(1) == 0.05 and c.estimate(9) == 0.45
    assert abs(c.estimate(5) - 0.25) < 1e-9  # between the step and the 9-row verify
    assert abs(c.estimate(21) - 0.70) < 1e-9  # between 9 and 33 rows
    assert abs(c.estimate(57) - 1.45) < 1e-9  # beyond: the last two sizes' line


def test_system_end_is_the_token_after_the_system_turn():
    text = "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
    tokenize = lambda s: [ord(ch) for ch in s]  # one token per character
    tokens = tokenize(text)
    assert system_end(text, tokenize, tokens) == len("<|im_start|>system\nbe brief<|im_end|>")
    assert system_end("<|im_start|>user\nhi<|im_end|>", tokenize, tokenize("<|im_start|>user\nhi<|im_end|>")) == 0
    assert system_end(text, tokenize, [0] * len(tokens)) == 0  # the cut does not match the prompt's tokens


def test_no_ngram_draft_on_the_first_line_while_the_anchor_waits():
    # "```python" also opens the file's block earlier in the prompt: copying from there would
    # draft the file's first lines, not the region the rewrite restates.
    fence = [60, 61]
    prompt = [*fence, 70, 71, 72, NL, 9, *fence, NL, 20, 21, 22, 23]
    d = _drafter(prompt, anchor=len(prompt) - 4)
    d.accept(fence)
    assert d.draft(4) == []
    d.accept([NL])
    assert d.draft(4) == [20, 21, 22, 23]


def test_resuming_the_copy_near_where_it_stopped_starts_trusted_and_loses_it_after_misses():
    from types import SimpleNamespace

    from steer_tui.server.engines.speculative import SpeculativeDecoder

    line = [50, 51, 52, NL]
    prompt = [1, 2, 3, *line, 60, 61, 62, 63, 64, 65, 4, 5, 6, *line, 70, 71]
    d = _drafter(prompt)
    dec = SpeculativeDecoder(SimpleNamespace(n_batch=512, n_vocab=lambda: 10), None, d,
                             is_eog=lambda t: False, stopped=lambda: False)
    dec._time(1, 0.050)
    dec._time(5, 0.150)  # a 5-row verify: 3 one-row steps
    d.accept([2, 3])
    d.draft(4)
    d.feedback(4, 4)
    d.accept([*line, 99])  # departed after the line (the changed token)
    d.accept([61, 62])  # and back: [61, 62] occurs just after where copying stopped
    draft = d.draft(4)
    assert draft == [63, 64, 65, 4] and d.fresh and not d.guess and not d.copying_search
    assert dec._worth(d, len(draft))  # trusted at first: 1 + 0.9 * 4 steps expected > 3
    for _ in range(3):
        d.feedback(4, 0)  # near re-syncs the model departs from at once (a change every line)
    assert d.near_rate < 0.5
    assert not dec._worth(d, len(draft))  # 1 + 0.3 * 4 < 3: decode one row at a time
    d.feedback(4, 0)
    d.declined = 16
    assert dec._worth(d, len(draft))  # every 16th is verified anyway: the rate can recover


def test_the_prompt_after_its_last_code_block_is_never_a_draft_source():
    # The region block, then the reminder and the instruction ("use rate=3 by default"): after
    # the changed "3" the answer goes on with the region, never with the instruction's words.
    prompt = [30, 31, 2, 32, NL, 9, 40, 30, 31, 3, 41, 42, 43]
    d = Drafter(prompt, ends_line=lambda t: t == NL, ceiling=6)
    d.accept([30, 31, 3])
    assert d.draft(4) == []
    unbounded = Drafter(prompt, ends_line=lambda t: t == NL)
    unbounded.accept([30, 31, 3])
    assert unbounded.draft(4) == [41, 42, 43]


def test_last_block_end_is_where_the_closing_fence_starts():
    from steer_tui.server.engines.speculative import last_block_end

    text = "user\n```\nx = 1\n```\nReply.\nassistant\n"
    tokenize = lambda s: [ord(ch) for ch in s]
    assert last_block_end(text, tokenize, tokenize(text)) == len("user\n```\nx = 1\n")
    assert last_block_end("no code", tokenize, tokenize("no code")) is None


def test_probes_of_a_declined_kind_of_draft_grow_rarer_while_they_miss():
    from steer_tui.server.engines.speculative import PROBE_EVERY, PROBE_MAX

    d = _drafter([1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert d.probe_every == PROBE_EVERY
    d.fresh, d.probing = True, True
    d.feedback(8, 1)  # the probe missed: the next one waits twice as long
    assert d.probe_every == 2 * PROBE_EVERY and not d.probing
    for _ in range(10):
        d.probing = True
        d.feedback(8, 0)
    assert d.probe_every == PROBE_MAX
    d.feedback(8, 0)  # not a probe: the interval stays
    assert d.probe_every == PROBE_MAX
    d.probing = True
    d.feedback(8, 8)  # a probe that paid: back to probing often
    assert d.probe_every == PROBE_EVERY
