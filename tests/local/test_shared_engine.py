"""The shared engine on the real model: a second command on the same file evaluates only its new words,
and a command that goes away mid-answer frees the engine for the next one."""

from __future__ import annotations

import asyncio

import pytest

from steer_tui import prompts
from steer_tui.transport import daemon
from steer_tui.transport.backends import gateway_info
from steer_tui.transport.client import ResponsesClient
from steer_tui.transport.events import Completed, Incomplete, TextDelta
from tests.local_model import missing_reason
from tests.wire.conftest import within

pytestmark = pytest.mark.local_model

FMT = prompts.SEARCH_REPLACE
FILE = "".join(f"def f{i}(stock, name, qty={i}):\n    stock[name] = stock.get(name, 0) + qty\n    return stock\n\n\n"
               for i in range(12))


@pytest.fixture
async def engine_addr(tmp_path, monkeypatch):
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    folder = tmp_path / "run"
    monkeypatch.setenv(daemon.RUNTIME_ENV, str(folder))
    addr, _ = await within(daemon.connect(["--engine", "local"]), 600)
    yield addr
    await daemon.stop_all(folder)


async def _ask(addr, instruction: str, max_tokens: int = 4) -> dict:
    """One command's request on a connection of its own; the usage it reports."""
    client = ResponsesClient(addr.url, api_key=addr.token)
    try:
        messages = prompts.build_messages(FMT, "stock.py", FILE, instruction)
        stream = await client.create(instructions=messages[0]["content"], input=messages[1:],
                                     max_output_tokens=max_tokens)
        final = await within(stream.wait(), 300)
        # A few tokens are enough: the prompt's evaluation is what is measured.
        assert isinstance(final, Completed) or (isinstance(final, Incomplete) and final.reason == "max_output_tokens"), final
        return final.usage
    finally:
        await client.close()


async def test_a_second_command_on_the_same_file_evaluates_only_its_new_words(engine_addr):
    first = await _ask(engine_addr, "Make f3 refuse a negative qty.")
    assert first["evaluated_tokens"] > 300  # the file was new to the engine
    second = await _ask(engine_addr, "Rename f7 to add_seven.")
    # All but the instruction's words and the turn's end (about 20 tokens of 600) come from the cache.
    assert second["input_tokens_details"]["cached_tokens"] >= first["input_tokens"] - 40
    assert second["evaluated_tokens"] == second["input_tokens"] - second["input_tokens_details"]["cached_tokens"]
    assert second["evaluated_tokens"] < 40


async def test_a_command_that_goes_away_mid_answer_frees_the_engine(engine_addr):
    gone = ResponsesClient(engine_addr.url, api_key=engine_addr.token)
    messages = prompts.build_messages(FMT, "stock.py", FILE, "Add a docstring of ten lines to every function.")
    stream = await gone.create(instructions=messages[0]["content"], input=messages[1:], max_output_tokens=1024)
    async for event in stream:
        if isinstance(event, TextDelta):
            break
    await gone.close()  # as a killed `steer edit` would: the connection drops mid-answer

    async def cancelled():
        while True:
            info = await gateway_info(engine_addr.url, engine_addr.token)
            if info and info["counters"]["cancelled"] >= 1 and info["in_flight"] == 0:
                return info
            await asyncio.sleep(0.1)
    await within(cancelled(), 120)
    usage = await _ask(engine_addr, "Make f3 refuse a negative qty.")
    assert usage["output_tokens"] >= 1
