"""`leave_warm` (steer_tui/prewarm_request.py): after `steer edit` writes, the file as written is left for the engine to
evaluate past the session's end (a detached prewarm), so the next command on it evaluates only its
own words; through the real gateway, recorded answers."""

from __future__ import annotations

from .conftest import session_on, until
from steer_tui.prewarm_request import leave_warm
from steer_tui.transport.health import gateway_info

ASK = "handle an empty list in mean"


async def test_the_file_as_written_is_prewarmed_past_the_session(replay, calc):
    url, engine = await replay(["fix_mean.txt"])
    async with session_on(url, calc, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        result = await session.edit(ASK)
        assert result.status == "proposal", result.reason
        assert session.accept_all()
        written = calc.read_text()
        assert "if not values:" in written
        await leave_warm(session)
    # The session and its connection are gone; the prewarm was the gateway's to finish.
    assert (await gateway_info(url))["detached_prewarms"] == 1
    await until(lambda: engine.prewarm_requests and written in engine.prewarm_requests[-1].messages[1]["content"])
    last = engine.prewarm_requests[-1]
    # The prefix every turn on the file starts with: the system prompt and the file, no region, no words.
    assert [m["role"] for m in last.messages] == ["system", "user"]
    assert ASK not in last.messages[1]["content"]
    # On a lane of its own: the request's cache stays beside it (the file as it was, asked again, finds it whole).
    request = engine.requests[-1]
    assert last.session_key != request.session_key and last.session_key.startswith(request.session_key)


async def test_a_gateway_without_detach_is_left_alone(replay, calc):
    url, engine = await replay(["fix_mean.txt"])
    async with session_on(url, calc, prewarm=False) as (session, client):
        info = await gateway_info(url)
        client.server_info = {**info, "features": [f for f in info["features"] if f != "detach"]}
        await leave_warm(session)
    assert engine.prewarm_requests == [] and (await gateway_info(url))["detached_prewarms"] == 0


async def _leave_a_big_file(replay, tmp_path, edit_format: str):
    """leave_warm after a session on a file over its budget (512 tokens) in `edit_format`: the replay's engine."""
    import dataclasses

    big = tmp_path / "big.py"
    big.write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(120)), encoding="utf-8")
    url, engine = await replay(["fix_mean.txt"])
    async with session_on(url, big, edit_format=edit_format, prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        session.settings = dataclasses.replace(session.settings, file_tokens=512)
        await leave_warm(session)
    return url, engine


async def test_a_file_shown_around_its_region_is_left_alone(replay, tmp_path):
    """Over its budget, in a format with no region block, the file is shown around the turn's region:
    no view of it now is the next turn's prefix, so nothing is left running."""
    url, engine = await _leave_a_big_file(replay, tmp_path, "search_replace")
    assert engine.prewarm_requests == [] and (await gateway_info(url))["detached_prewarms"] == 0


async def test_a_file_shown_in_part_to_a_rewrite_is_left_warm(replay, tmp_path):
    """A rewrite shows every region after the same view of a big file: that view is left warm."""
    url, engine = await _leave_a_big_file(replay, tmp_path, "rewrite")
    assert (await gateway_info(url))["detached_prewarms"] == 1
    await until(lambda: engine.prewarm_requests)
    shown = engine.prewarm_requests[-1].messages[1]["content"]
    assert "shown in part" in shown.splitlines()[0] and "def f0(x):" in shown


async def _edited_then_left_warm(replay, target, text: str, answer: str, words: str, *retries: int):
    """`steer edit`'s session (region_once) on `target` holding `text`, the recorded `answer` accepted and
    leave_warm run: the engine, and the user messages of the prewarm it left."""
    target.write_text(text, encoding="utf-8")
    url, engine = await replay([answer])
    async with session_on(url, target, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        session.region_once = True
        result = await session.edit(words, None, *retries)
        assert result.status == "proposal", result.reason
        assert session.accept_all()
        await leave_warm(session)
    await until(lambda: engine.prewarm_requests)
    return engine, [m["content"] for m in engine.prewarm_requests[-1].messages if m["role"] == "user"]


async def test_a_region_shown_alone_leaves_its_block_warm(replay, tmp_path):
    """Where the next command shows the region alone (all but a few lines of the file: prompts.build_input
    `once`), what is left warm is that region's block as written, not a file message it would not send."""
    from tests.session.test_edit_command import BELOW_ZERO

    engine, users = await _edited_then_left_warm(replay, tmp_path / "below_zero.py", BELOW_ZERO,
                                                 "rewrite_below_zero.txt", "fix bugs in below_zero")
    assert len(users) == 1 and "File:" not in users[0] and "Region (lines 4-14)" in users[0]
    assert "if balance < 0:" in users[0] and users[0].endswith("```\n\n")
    assert [m["content"] for m in engine.requests[0].messages if m["role"] == "user"][0].startswith(
        users[0].split("```\n", 1)[0])


async def test_after_a_new_definition_the_file_message_is_left_warm(replay, tmp_path):
    """The next command with the same words asks for an insertion point, whose request opens with the
    file's message (prompts.edit_region, as Session.scoped chooses): that is left warm, not the whole
    file as a region block. The words name nothing the file has, before or after the write."""
    from tests.session.test_insertion import MODULE

    _engine, users = await _edited_then_left_warm(replay, tmp_path / "helpers.py", MODULE, "insert_function.txt",
                                                  "add a function that adds twelve to x", 0)
    assert len(users) == 1 and users[0].startswith("File: ") and "Region (lines" not in users[0]
