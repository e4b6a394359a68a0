"""Prewarm as you type, in the model's own tokens: what typing_prewarm sends is a token prefix of
the turn Enter sends (the engine keeps the common prefix), so only the rest is evaluated after Enter."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer_tui import prompts
from steer_tui.server.engines.local import _common_prefix
from steer_tui.typing_prewarm import plan

pytestmark = pytest.mark.local_model

INVENTORY = (Path(__file__).resolve().parents[2] / "examples" / "inventory.py").read_text(encoding="utf-8")
FMT = prompts.REWRITE
SYSTEM = {"role": "system", "content": prompts.system_prompt(FMT)}


@pytest.mark.parametrize("instruction", ["make total_value skip items with zero quantity",
                                         "add a docstring to parse_line",
                                         "make cheapest return None when there are no items, please."])
def test_typed_prewarms_are_token_prefixes_of_the_turn(engine, instruction):
    region = prompts.rewrite_region(INVENTORY, instruction)
    turn = engine.tokenize_messages(prompts.build_messages(FMT, "inventory.py", INVENTORY, instruction, region=region))
    file_only = engine._prewarm_tokens([SYSTEM, *prompts.prewarm_input(FMT, "inventory.py", INVENTORY)])
    # The user header that opens the turn's message: "<|im_start|>user\n" in ChatML.
    opening = _common_prefix(file_only, len(file_only), turn)
    last, left = None, []
    for i in range(1, len(instruction) + 1):
        got = plan(INVENTORY, instruction[:i], None, last, paused=i == len(instruction))
        if got is None:
            continue
        last = got
        warm = engine._prewarm_tokens([SYSTEM, *prompts.prewarm_input(FMT, "inventory.py", INVENTORY, got.region,
                                                                      got.typed, got.complete)])
        common = _common_prefix(warm, len(warm), turn)
        # Everything up to and including the typed words is reused.
        words = engine._tokenize(f"{prompts._region_block(INVENTORY, got.region)}\n\n{got.typed}")
        assert common >= opening + len(words) - 1  # the last word may merge with what follows it
        left.append(len(turn) - common)
    assert left == sorted(left, reverse=True)  # each word leaves less to evaluate after Enter
    assert left[-1] <= 2  # after the pause: the assistant's header ("assistant\n")
    assert len(left) >= 2 and left[-2] < 30  # no pause: the last word, the reminder and the header
