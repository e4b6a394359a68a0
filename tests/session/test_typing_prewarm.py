"""Prewarm as you type (steer_tui/typing_prewarm.py): what is prewarmed for the words typed so far, and
that it is the opening of the turn Enter sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer_tui import prompts
from steer_tui.typing_prewarm import Warm, guess_name, leads, plan, whole_words

INVENTORY = (Path(__file__).resolve().parents[2] / "examples" / "inventory.py").read_text(encoding="utf-8")
TOTAL_VALUE = prompts.rewrite_region(INVENTORY, "make total_value skip items")
PARSE_LINE = prompts.rewrite_region(INVENTORY, "add a docstring to parse_line")


def test_whole_words_leave_out_the_word_being_typed():
    assert whole_words("make total_va") == "make"
    assert whole_words("make total_value ") == "make total_value"
    assert whole_words("  make  total_value  sk") == "make  total_value"
    assert whole_words("make") == ""
    assert whole_words("") == ""


def test_leads_is_word_for_word():
    assert leads("make total_value", "make total_value skip items")
    assert leads("make total_value skip", "  make total_value skip ")
    assert leads("", "anything")
    assert not leads("make total", "make total_value skip")  # a shorter word is another token
    assert not leads("make cheapest", "make total_value")


def test_a_named_definition_prewarms_its_region_with_the_words_so_far():
    got = plan(INVENTORY, "make total_value sk", None, None)
    assert got == Warm(INVENTORY, TOTAL_VALUE, "make total_value")
    assert TOTAL_VALUE != (0, len(INVENTORY.splitlines()))


def test_a_named_constant_prewarms_its_statement_before_its_name_ends():
    text = "PAGE_SIZE = 50\nMAX_RETRIES = 3\n\n\n" + "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(8))
    words = "set MAX_RETRIES to 5"
    assert prompts.rewrite_region(text, words, path="m.py") == (1, 2)
    assert guess_name(text, "set MAX_RET", "m.py") == "MAX_RETRIES"
    assert plan(text, "set MAX_RET", None, None, path="m.py") == Warm(text, (1, 2), "set")
    assert plan(text, "set MAX_RETRIES to ", None, None, path="m.py") == Warm(text, (1, 2), "set MAX_RETRIES to")


def test_words_that_name_nothing_prewarm_nothing_without_a_cursor_region():
    assert plan(INVENTORY, "make it faster ", None, None) is None
    # With the cursor's block as the region, the words are prewarmed whatever they say.
    assert plan(INVENTORY, "make it faster ", (37, 41), None) == Warm(INVENTORY, (37, 41), "make it faster")


def test_the_cursor_region_wins_over_a_name_as_it_does_on_enter():
    assert plan(INVENTORY, "add a docstring to parse_line ", (12, 36), None).region == (12, 36)


def test_a_name_typed_last_is_the_region_before_the_word_ends():
    assert guess_name(INVENTORY, "add a docstring to parse_line") == "parse_line"
    assert guess_name(INVENTORY, "add a docstring to pars") == "parse_line"  # the only name it starts
    assert guess_name(INVENTORY, "add a docstring to par") is None  # too short to tell
    assert guess_name(INVENTORY, "make total_value skip item") is None  # no name starts so (`Item` has a capital)
    assert guess_name(INVENTORY, "add a docstring to Inventory.chea") == "cheapest"
    assert guess_name(INVENTORY, "load") is None  # the first word is the verb
    assert guess_name(INVENTORY, "add a docstring to parse_line ") is None  # no word being typed
    assert plan(INVENTORY, "add a docstring to par", None, None) is None
    got = plan(INVENTORY, "add a docstring to pars", None, None)
    assert got == Warm(INVENTORY, PARSE_LINE, "add a docstring to")
    assert plan(INVENTORY, "add a docstring to parse_line", None, got) is None  # nothing new


def test_a_pause_prewarms_the_whole_message_as_if_it_were_final():
    got = plan(INVENTORY, "add a docstring to parse_line", None, None, paused=True)
    assert got == Warm(INVENTORY, PARSE_LINE, "add a docstring to parse_line", complete=True)
    warm = prompts.prewarm_input(prompts.REWRITE, "inventory.py", INVENTORY, got.region, got.typed, got.complete)
    turn = prompts.build_input(prompts.REWRITE, "inventory.py", INVENTORY, "add a docstring to parse_line", got.region)
    assert warm == turn  # the turn's own messages: Enter leaves only the assistant header


@pytest.mark.parametrize("instruction", ["make total_value skip items with zero quantity",
                                         "make cheapest return None when there are no items",
                                         "add a docstring to parse_line"])
@pytest.mark.parametrize("pause_at", [None, 3, 6, 15])
def test_every_plan_while_typing_is_text_the_turn_starts_with(instruction, pause_at):
    """Typed a key at a time (with one pause after key `pause_at`, and one at the end): each
    prewarm's last message is a prefix of the turn's last message (up to the format reminder for
    a complete one that other words follow), with the region the turn uses."""
    region = prompts.rewrite_region(INVENTORY, instruction)
    turn = prompts.build_input(prompts.REWRITE, "inventory.py", INVENTORY, instruction, region)
    last, sent = None, []
    for i in range(1, len(instruction) + 1):
        for paused in (False, True) if i in (pause_at, len(instruction)) else (False,):
            got = plan(INVENTORY, instruction[:i], None, last, paused=paused)
            if got is None:
                continue
            last = got
            sent.append(got)
            assert got.region == region
            warm = prompts.prewarm_input(prompts.REWRITE, "inventory.py", INVENTORY, got.region, got.typed, got.complete)
            assert warm[0] == turn[0]  # the file
            if got.complete and got.typed != instruction:
                cut = warm[1]["content"].rindex("\n\n")  # the reminder follows other words
                assert turn[1]["content"].startswith(warm[1]["content"][:cut])
            else:
                assert turn[1]["content"].startswith(warm[1]["content"])
    assert sent[-1] == Warm(INVENTORY, region, instruction, complete=True)
    named_at = min(i for i, w in enumerate(instruction.split()) if w in ("total_value", "cheapest", "parse_line"))
    # One per word from the name on (a word finished, or the name itself as it is completed).
    assert sum(not w.complete for w in sent) == len(instruction.split()) - named_at


def test_nothing_new_is_not_sent_again_and_a_backspace_needs_nothing():
    first = plan(INVENTORY, "make total_value skip it", None, None)
    assert first.typed == "make total_value skip"
    assert plan(INVENTORY, "make total_value skip ite", None, first) is None  # same whole words
    assert plan(INVENTORY, "make total_value ", None, first) is None  # backspace: already cached
    longer = plan(INVENTORY, "make total_value skip items ", None, first)
    assert longer.typed == "make total_value skip items"
    done = plan(INVENTORY, "make total_value skip items", None, longer, paused=True)
    assert done.complete  # the reminder after these words is new
    assert plan(INVENTORY, "make total_value skip items", None, done, paused=True) is None
    # Another file text (an accepted edit) is another prefix.
    assert plan(INVENTORY + "\n", "make total_value skip it", None, first) is not None


def test_questions_commands_and_empty_files_are_not_prewarmed():
    assert plan(INVENTORY, "?what does total_value do ", None, None) is None
    assert plan(INVENTORY, "/test ", None, None) is None
    assert plan(INVENTORY, "   ", (0, 3), None) is None
    assert plan("", "write a dice roller ", (0, 0), None) is None


def test_a_redirect_is_prewarmed_by_whole_words_and_all_of_it_after_a_pause():
    from steer_tui.typing_prewarm import redirect_plan

    assert redirect_plan(INVENTORY, "no, on", None) == ("no,", False, "no,")
    first = redirect_plan(INVENTORY, "no, only add a docstring to ", None)
    assert first == ("no, only add a docstring to", False, "no, only add a docstring to")
    # The name being typed counts for the region before the word ends, the words stay whole.
    named = redirect_plan(INVENTORY, "no, only add a docstring to parse_l", first)
    assert named == ("no, only add a docstring to", False, "no, only add a docstring to parse_line")
    assert redirect_plan(INVENTORY, "no, only add a docstring to parse_li", named) is None  # nothing new
    done = redirect_plan(INVENTORY, "no, only add a docstring to parse_line", named, paused=True)
    assert done == ("no, only add a docstring to parse_line", True, "no, only add a docstring to parse_line")
    assert redirect_plan(INVENTORY, "no, only add a docstring to parse_line", done, paused=True) is None
    assert redirect_plan(INVENTORY, "?why ", None) is None and redirect_plan(INVENTORY, "   ", None) is None


def test_a_verb_that_is_also_a_method_name_does_not_narrow_a_redirect():
    assert not prompts.names_a_definition(INVENTORY, "no, only add")
    assert not prompts.names_a_definition(INVENTORY, "add")
    assert prompts.names_a_definition(INVENTORY, "no, only add a docstring to remove")
    assert prompts.names_a_definition(INVENTORY, "only to Inventory.cheapest")
