"""Session state machine through the real gateway and client, with recorded answers."""

from __future__ import annotations

import asyncio

from steer_tui.events import Applied, Notice, ProposalUpdated, StateChanged, Stats, TurnEnded
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW

from .conftest import DATA, open_session, session_on, until


def fixed_mean_text():
    text = (DATA / "calc.py").read_text()
    return text.replace("def mean(values):\n", "def mean(values):\n    if not values:\n        return 0.0\n")


async def test_turn_streams_into_a_proposal_and_accept_writes(replay, calc):
    url, engine = await replay(["fix_mean.txt"])
    events = []
    async with session_on(url, calc, events) as (session, client):
        await session.send("handle an empty list in mean")
        assert session.state == GENERATING
        result = await session.wait()
        assert result.status == "proposal" and result.attempts == 1
        assert session.state == REVIEW
        assert calc.read_text() == (DATA / "calc.py").read_text()  # nothing before accept
        rows = [session.live.row(i) for i in range(session.live.row_count)]
        added = [r.text for r in rows if r.kind == "added"]
        assert added == ["    if not values:", "        return 0.0"]
        assert not [r for r in rows if r.kind == "removed"]
        assert "+    if not values:" in session.proposal_diff()
        assert any(isinstance(e, ProposalUpdated) for e in events)
        assert any(isinstance(e, Stats) and e.final and e.tokens > 0 for e in events)
        assert any(isinstance(e, TurnEnded) for e in events)
        # the request carried the system prompt, the file and the instruction
        msgs = engine.requests[0].messages
        assert msgs[0]["role"] == "system" and "SEARCH" in msgs[0]["content"]
        assert "def clamp" in msgs[1]["content"] and "empty list" in msgs[-1]["content"]
        assert session.accept_all()
        assert calc.read_text() == fixed_mean_text()
        assert session.state == IDLE and not session.has_proposal
        assert [e for e in events if isinstance(e, Applied)][-1].action == "accept"
        assert not session.file_changed()  # our own write is not an external change


async def test_stop_mid_block_keeps_complete_blocks_only(replay, calc):
    url, _ = await replay(["long_answer.txt"], rate=400)
    events = []
    async with session_on(url, calc, events) as (session, client):
        await session.send("fix mean and describe")
        # first block complete, the second one streaming
        await until(lambda: any(b.status == "complete" for b in session.blocks.values())
                    and any(b.status == "located" for b in session.blocks.values())
                    and session.live.hunk_count >= 2)
        await session.stop()
        assert session.state == INTERRUPTED
        n_events = len(events)
        version = session.live.version
        hunks = session.proposal
        assert len(hunks) == 1 and hunks[0].new == ("    if not values:", "        return 0.0")
        await asyncio.sleep(0.2)
        assert session.live.version == version  # the view is still after stop
        assert not [e for e in events[n_events:] if isinstance(e, ProposalUpdated)]
        result = await session.wait()
        assert result.status == "stopped"
        assert session.state == INTERRUPTED and session.has_proposal
        assert session.accept_all()
        assert calc.read_text() == fixed_mean_text()


async def test_redirect_replaces_the_proposal_with_the_successor(replay, calc):
    url, engine = await replay(["long_answer.txt", "rename_sub.txt"], rate=400)
    async with session_on(url, calc) as (session, client):
        session.redirect_strategy = "continue"  # steering; the default starts over (test_redirect_restart.py)
        await session.send("fix mean and describe")
        await until(lambda: any(b.status == "complete" for b in session.blocks.values()))
        await session.redirect("no: just rename sub to subtract")
        result = await session.wait()
        assert result.status == "proposal"
        assert [h.new for h in session.proposal] == [("def subtract(a, b):",)]
        # the successor request carried the partial answer and the new words
        last = engine.requests[-1].messages
        assert any(m["role"] == "assistant" and "if not values" in m["content"] for m in last)
        assert "rename sub to subtract" in last[-1]["content"]


async def test_hunk_accept_and_reject(replay, calc):
    url, _ = await replay(["two_hunks.txt"])
    async with session_on(url, calc) as (session, client):
        original = calc.read_text()
        await session.send("document add, check clamp bounds")
        assert (await session.wait()).status == "proposal"
        assert session.live.hunk_count == 2
        first, stop = session.live.hunk_rows(1)
        assert session.live.row(first).kind == "added" and "lo > hi" in session.live.row(first).text
        assert session.accept_hunk(1)  # clamp only
        text = calc.read_text()
        assert 'raise ValueError("lo > hi")' in text and '"""Return the sum' not in text
        assert session.state == REVIEW and session.live.hunk_count == 1
        assert session.reject_hunk(0)
        assert session.state == IDLE and not session.has_proposal
        assert calc.read_text() == text
        # undo / redo of the accepted hunk
        assert session.undo() and calc.read_text() == original
        assert session.redo() and calc.read_text() == text
        assert session.undo() and not session.undo()


async def test_reject_all_leaves_the_file(replay, calc):
    url, _ = await replay(["two_hunks.txt"])
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await session.wait()
        assert session.reject_all() and session.state == IDLE
        assert calc.read_text() == (DATA / "calc.py").read_text()
        assert not session.accept_all()


async def test_external_change_relocates_the_proposal(replay, calc):
    url, _ = await replay(["two_hunks.txt"])
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await session.wait()
        calc.write_text("import math\n\n" + calc.read_text())  # someone else edits the top
        assert session.file_changed()
        assert session.conflict is None and session.live.hunk_count == 2
        assert session.live.lines[0] == "import math"
        assert session.accept_all()
        text = calc.read_text()
        assert text.startswith("import math\n") and '"""Return the sum' in text and "lo > hi" in text


async def test_external_change_under_the_proposal_is_a_conflict(replay, calc):
    url, _ = await replay(["two_hunks.txt"])
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await session.wait()
        changed = calc.read_text().replace("    if x < lo:\n        return lo\n", "    x = max(x, lo)\n")
        calc.write_text(changed)
        assert session.file_changed()
        assert session.conflict
        assert not session.accept_all()
        assert calc.read_text() == changed  # an external change is never overwritten
        assert session.reject_all() and session.conflict is None


async def test_refused_then_fixed_on_retry(replay, calc):
    url, engine = await replay(["bad_mean.txt", "fix_mean.txt"])
    async with session_on(url, calc) as (session, client):
        result = await session.edit("handle an empty list in mean")
        assert result.status == "proposal" and result.attempts == 2
        # the retry carried the refusal's feedback, with the real lines of the file
        feedback = engine.requests[1].messages[-1]["content"]
        assert "not applied" in feedback and "def mean(values):" in feedback
        assert session.accept_all() and calc.read_text() == fixed_mean_text()


async def test_refused_three_times_gives_up(replay, calc):
    url, engine = await replay(["bad_mean.txt"])
    events = []
    async with session_on(url, calc, events) as (session, client):
        result = await session.edit("handle an empty list in mean")
        assert result.status == "refused" and result.attempts == 3 and len(engine.requests) == 3
        assert [e for e in events if isinstance(e, Notice) and e.level == "error" and "refused" in e.text]
        assert "SEARCH" in result.reason or "match" in result.reason
        assert not session.has_proposal
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_already_applied_changes_nothing(replay, calc):
    calc.write_text(fixed_mean_text())
    url, _ = await replay(["fix_mean.txt"])
    async with session_on(url, calc) as (session, client):
        result = await session.edit("handle an empty list in mean")
        assert result.status == "nothing" and result.already_applied and result.attempts == 1
        assert session.state == IDLE


async def test_state_changes_are_reported(replay, calc):
    url, _ = await replay(["fix_mean.txt"])
    events = []
    async with session_on(url, calc, events) as (session, client):
        await session.edit("x")
        states = [e.state for e in events if isinstance(e, StateChanged)]
        assert states == [GENERATING, REVIEW]


async def test_stop_before_any_block_then_send_again(replay, calc):
    url, _ = await replay(["long_answer.txt", "rename_sub.txt"], rate=200)
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await until(lambda: bool(session.raw_text))
        await session.stop()
        result = await session.wait()
        assert result.status == "stopped"
        # interrupted over what was complete, idle when nothing was
        assert session.state == (INTERRUPTED if session.has_proposal else IDLE)
        assert not session.has_proposal or all(h.new for h in session.proposal)
        await session.send("rename sub")
        result = await session.wait()
        assert result.status == "proposal" and session.state == REVIEW
        assert [h.new for h in session.proposal] == [("def subtract(a, b):",)]


async def test_external_change_while_generating_is_handled_at_the_end(replay, calc):
    url, _ = await replay(["long_answer.txt"], rate=2000)
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await until(lambda: session.live.hunk_count >= 1)
        calc.write_text("# header\n" + calc.read_text())
        assert session.file_changed() and session.state == GENERATING
        assert session.live.lines[0] != "# header"  # the base stays put while blocks stream in
        result = await session.wait()
        assert result.status == "proposal"
        assert session.live.lines[0] == "# header" and session.conflict is None
        assert session.accept_all()
        text = calc.read_text()
        assert text.startswith("# header\n") and "if not values" in text and "# step 299" in text


async def test_undo_refuses_after_an_external_change(replay, calc):
    url, _ = await replay(["rename_sub.txt"])
    async with session_on(url, calc) as (session, client):
        await session.edit("rename sub")
        assert session.accept_all()
        calc.write_text(calc.read_text() + "\n# edited elsewhere\n")
        assert session.file_changed()
        assert not session.undo()  # never overwrite someone else's change
        assert calc.read_text().endswith("# edited elsewhere\n")


async def test_livediff_rows_follow_the_stream(replay, calc):
    url, _ = await replay(["fix_mean.txt"], rate=300)
    events = []
    async with session_on(url, calc, events) as (session, client):
        await session.send("x")
        seen_partial = False
        while session.state == GENERATING:
            live = session.live
            for i in range(live.row_count):
                r = live.row(i)
                if r.kind == "added" and r.partial:
                    seen_partial = True
            await asyncio.sleep(0.002)
        await session.wait()
        assert seen_partial  # a line being written shows before its newline arrives
        cursor = [e.cursor_row for e in events if isinstance(e, ProposalUpdated) and e.cursor_row is not None]
        assert cursor and all(0 <= c < 40 for c in cursor)


async def test_deleted_file_blocks_accept(replay, calc):
    url, _ = await replay(["rename_sub.txt"])
    async with session_on(url, calc) as (session, client):
        doc = session.document
        await session.edit("rename sub")
        calc.unlink()
        assert session.file_changed() and session.conflict
        assert not session.accept_all() and not calc.exists()
        calc.write_text((DATA / "calc.py").read_text().replace("return a + b", "return b + a"))
        assert session.file_changed() and session.conflict is None  # re-located on the new file
        assert session.document is doc  # the UI's Document is updated in place
        assert session.accept_all()
        assert "def subtract(a, b):" in calc.read_text() and "return b + a" in calc.read_text()


async def test_indent_shifted_block_is_reindented(replay, calc):
    url, _ = await replay(["dedented.txt"], rate=500)
    async with session_on(url, calc) as (session, client):
        await session.send("x")
        await until(lambda: any(r.kind == "added" for r in session.live.rows(0, session.live.row_count)))
        # while streaming, the new line is already shown at the file's indentation
        assert [r.text for r in session.live.rows(0, session.live.row_count) if r.kind == "added"][0].startswith("    if")
        assert (await session.wait()).status == "proposal"
        assert [h.new for h in session.proposal] == [("    if x <= lo:",)]
        assert session.accept_all()
        assert "    if x <= lo:\n        return lo\n" in calc.read_text()


async def test_identical_search_and_replace_not_in_the_file_is_refused(replay, calc):
    # a small model's mistake: the new code written as both SEARCH and REPLACE
    url, engine = await replay(["echo_new.txt", "fix_mean.txt"])
    async with session_on(url, calc) as (session, client):
        result = await session.edit("handle an empty list in mean")
        assert result.status == "proposal" and result.attempts == 2
        assert "identical" in engine.requests[1].messages[-1]["content"]


async def test_identical_search_and_replace_in_the_file_is_retried_then_no_change(replay, calc):
    url, engine = await replay(["echo_same.txt"])
    async with session_on(url, calc) as (session, client):
        result = await session.edit("make add return a + b")
        assert result.status == "refused" and result.no_change and result.attempts == 2
        assert "changes nothing" in engine.requests[1].messages[-1]["content"]


async def test_a_loop_of_no_op_blocks_is_stopped_and_retried(replay, calc):
    url, engine = await replay(["noop_loop.txt", "fix_mean.txt"], rate=2000)
    async with session_on(url, calc) as (session, client):
        result = await session.edit("handle an empty list in mean")
        assert result.status == "proposal" and result.attempts == 2
        assert engine.players[0].produced < len(engine.players[0].tokens)  # the loop was cut short
        assert "identical" in engine.requests[1].messages[-1]["content"]


async def test_esc_is_handled_mid_burst_at_an_unlimited_rate(replay, calc):
    from .conftest import recorded

    full = recorded("long_answer.txt")  # ~4000 deltas
    url, _ = await replay(["long_answer.txt"], rate=0)
    session, client = await open_session(url, calc)
    create = client.create

    async def create_buffered(**kwargs):
        # The whole answer is already in the client's queue when the session starts reading
        # (a busy UI at an unlimited rate): one burst that never waits on the network.
        stream = await create(**kwargs)
        await stream.wait()
        return stream

    client.create = create_buffered
    try:
        await session.send("fix mean and describe")
        while not session.raw_text:  # runs whenever the session task lets the loop run
            await asyncio.sleep(0)
        await session.stop()
        result = await session.wait()
        assert result.status == "stopped"
        # Esc was handled mid-burst, not after the session had worked through the whole answer.
        assert len(session.raw_text) < len(full) // 2
        assert full.startswith(session.raw_text)
        assert calc.read_text() == (DATA / "calc.py").read_text()
    finally:
        await session.close()
