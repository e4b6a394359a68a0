"""Region rewrites through the real gateway: region choice, minimal hunks, aligned live rows, Esc."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from steer_tui.edits.judge import departure_point
from steer_tui.events import Notice
from steer_tui.state import GENERATING, IDLE, INTERRUPTED, REVIEW
from steer_tui.transport.backends import gateway_info

from .conftest import DATA, EXAMPLE, open_session, recorded, session_on, until

MEAN = (11, 16)  # 0-based end-exclusive lines of `mean` in calc.py
OLD_TOTAL = "    total = 0"
NEW_TOTAL = "    total = 0.0"
OLD_RETURN = "    return total / len(values)"
NEW_RETURN = "    return total / max(len(values), 1)"


def original() -> str:
    return (DATA / "calc.py").read_text()


async def test_no_region_rewrites_the_function_the_instruction_names(replay, calc):
    url, engine = await replay(["rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("make `mean` safe for an empty list", None, retries=0)
        assert result.status == "proposal"
        assert session._answer.region == MEAN
        # The prompt's region block is mean's lines only, not the whole file.
        last = engine.requests[0].messages[-1]["content"]
        assert "def mean(values):" in last and "def clamp" not in last


async def test_two_separated_changes_are_two_hunks_reviewed_one_by_one(replay, calc):
    url, _ = await replay(["rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        await session.edit("fix `mean`", MEAN, retries=0)
        assert session.state == REVIEW
        hunks = session.proposal
        assert [(h.start, h.end, h.new) for h in hunks] == [(12, 13, (NEW_TOTAL,)), (15, 16, (NEW_RETURN,))]
        diff = session.proposal_diff()
        assert "-    for v in values:" not in diff and f"+{NEW_TOTAL}" in diff and f"+{NEW_RETURN}" in diff
        assert session.reject_hunk(1)
        assert session.accept_hunk(0)
        assert calc.read_text() == original().replace(OLD_TOTAL + "\n", NEW_TOTAL + "\n")
        assert session.undo() and calc.read_text() == original()
        assert session.redo() and calc.read_text() == original().replace(OLD_TOTAL + "\n", NEW_TOTAL + "\n")


async def test_accept_all_of_a_rewrite_writes_the_rewrite(replay, calc):
    url, _ = await replay(["rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        await session.edit("fix `mean`", MEAN, retries=0)
        assert session.accept_all()
        want = original().replace(OLD_TOTAL + "\n", NEW_TOTAL + "\n").replace(OLD_RETURN, NEW_RETURN)
        assert calc.read_text() == want


async def test_a_rewrite_that_changes_nothing_is_a_failed_attempt(replay, calc):
    url, _ = await replay(["rewrite_same.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("tidy `mean`", None, retries=0)
        assert result.status == "refused" and result.no_change and result.reason == "the model made no change"
        assert not session.has_proposal and calc.read_text() == original()


async def test_a_no_change_rewrite_is_retried_once_with_feedback_that_says_so(replay, calc):
    url, engine = await replay(["rewrite_same.txt", "rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("make `mean` safe for an empty list")
        assert result.status == "proposal" and result.attempts == 2
        retry = engine.requests[1].messages[-1]["content"]
        assert "changes nothing" in retry and "make `mean` safe for an empty list" in retry
        assert session.accept_all() and NEW_RETURN in calc.read_text()


async def test_a_no_change_rewrite_departs_from_that_answer_where_the_engine_can(replay, calc):
    """An engine with "avoid" (the embedded one) is asked the same again, departing from the
    answer after its opening fence: no feedback, the same messages."""
    url, engine = await replay(["rewrite_same.txt", "rewrite_mean.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        events = []
        session.on_event = events.append
        result = await session.edit("make `mean` safe for an empty list")
        assert result.status == "proposal" and result.attempts == 2
        first, retry = engine.requests
        assert first.avoid is None and retry.messages == first.messages
        same = recorded("rewrite_same.txt")
        assert retry.avoid == (same, len(same.split("\n", 1)[0].encode()) + 1, False)
        assert any("next most likely change" in getattr(e, "text", "") for e in events)
        assert session.accept_all() and NEW_RETURN in calc.read_text()


async def test_a_deletion_that_changes_nothing_may_depart_by_leaving_lines_out(replay, calc):
    url, engine = await replay(["rewrite_same.txt", "rewrite_same.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        await session.edit("delete the comment in mean", (11, 16))
        retry = engine.requests[1]
        assert retry.avoid is not None and retry.avoid[2] is True


async def test_the_departing_retry_is_made_where_no_retries_are_allowed(replay, calc):
    """The app sends with retries=0: a no-change answer still gets the departing retry (and only
    it), then the turn reports no change."""
    url, engine = await replay(["rewrite_same.txt", "rewrite_same.txt", "rewrite_same.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        await session.send("make `mean` safe for an empty list")
        result = await session.wait()
        assert result.no_change and result.attempts == 2 and len(engine.requests) == 2
        assert engine.requests[0].avoid is None
        assert all(r.avoid is not None and r.messages == engine.requests[0].messages for r in engine.requests[1:])
        assert calc.read_text() == original()


async def test_an_answer_that_only_adds_a_comment_to_a_fix_is_departed_from(replay, calc):
    """A comment is not the fix asked for: the answer is judged as no change and departed from."""
    url, engine = await replay(["rewrite_mean_comment.txt", "rewrite_mean.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        events = []
        session.on_event = events.append
        result = await session.edit("make `mean` safe for an empty list")
        assert result.status == "proposal" and result.attempts == 2
        assert engine.requests[1].avoid == (recorded("rewrite_mean_comment.txt"), len("```python\n"), False)
        assert any("changed only whitespace, comments or docstrings; asking for its next most likely change"
                   in getattr(e, "text", "") for e in events)
        assert session.accept_all() and NEW_RETURN in calc.read_text() and "# the average" not in calc.read_text()


async def test_a_comment_asked_for_is_a_proposal_and_one_not_asked_for_ends_as_no_change(replay, calc):
    url, engine = await replay(["rewrite_mean_comment.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a comment to `mean`", MEAN, retries=0)
        assert result.status == "proposal"
        session.reject_all()
        events = []
        session.on_event = events.append
        result = await session.edit("make `mean` faster", MEAN, retries=1)
        assert result.status == "refused" and result.no_change and result.attempts == 2
        assert result.reason == "the model made no change to the code (changed only whitespace, comments or docstrings)"
        assert f"{result.reason}; the file is untouched" in [getattr(e, "text", "") for e in events]
        assert "changes only whitespace, comments or docstrings" in engine.requests[-1].messages[-1]["content"]
        assert not session.has_proposal and calc.read_text() == original()


async def test_without_avoid_or_when_sampling_the_no_change_retry_gives_feedback(replay, calc):
    url, engine = await replay(["rewrite_same.txt", "rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        assert "avoid" not in session.server_features
        await session.edit("make `mean` safe for an empty list")
        assert engine.requests[1].avoid is None and "changes nothing" in engine.requests[1].messages[-1]["content"]
    engine.features = frozenset({"avoid"})
    engine.requests.clear()
    shutil.copy(DATA / "calc.py", calc)
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        session.settings.temperature = 0.7
        assert "avoid" in session.server_features
        await session.edit("make `mean` safe for an empty list")
        assert engine.requests[1].avoid is None and "changes nothing" in engine.requests[1].messages[-1]["content"]


@pytest.mark.parametrize("fmt, answer, after", [
    ("rewrite", "```python\ndef f():\n    return 1\n```\n", len("```python\n")),
    ("rewrite", "def f():\n    return 1\n", None),  # no fence: nothing to depart after
    ("rewrite", "```python\n", None),  # nothing after the fence
    ("search_replace", "f.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 1\n>>>>>>> REPLACE\n```\n",
     len("f.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n")),
    ("udiff", "```diff\n--- a/f.py\n+++ b/f.py\n```\n", None),
])
def test_where_a_retry_may_depart_from_an_unchanged_answer(fmt, answer, after):
    assert departure_point(fmt, answer) == after


async def test_an_instruction_that_allows_no_change_ends_in_nothing_to_change(replay, calc):
    url, engine = await replay(["rewrite_same.txt", "rewrite_mean.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("fix `mean` if needed")
        assert result.status == "nothing" and not result.no_change and result.attempts == 1
        assert len(engine.requests) == 1 and calc.read_text() == original()


async def test_streaming_rows_keep_unchanged_lines_as_context(replay, calc):
    url, _ = await replay(["rewrite_mean.txt"], rate=300)
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        unchanged = {"def mean(values):", "    for v in values:", "        total += v"}
        seen_split = seen_partial = False
        await session.send("fix `mean`", MEAN)
        await until(lambda: session.state == GENERATING)
        while session.state == GENERATING:
            live = session.live
            rows = live.rows(0, live.row_count)
            for r in rows:
                if r.text in unchanged:
                    assert r.kind == "context", r  # never drawn removed while the rewrite streams
                seen_partial = seen_partial or (r.kind == "added" and r.partial)
            kinds = [(r.kind, r.text) for r in rows]
            if ("removed", OLD_TOTAL) in kinds and ("added", NEW_TOTAL) in kinds:
                # The first change is closed while the rest streams: the loop line is context
                # and the not-yet-reached return line is still context too.
                i = kinds.index(("added", NEW_TOTAL))
                assert kinds[i + 1] == ("context", "    for v in values:")
                seen_split = True
            await asyncio.sleep(0.001)
        result = await session.wait()
        assert result.status == "proposal"
        assert seen_split and seen_partial


def closed_first_change_only(session) -> bool:
    """The `total` change is closed (the loop line matched after it) while the rewrite is still open."""
    return (any((h.start, h.end, h.new) == (12, 13, (NEW_TOTAL,)) for h in session.live.hunks())
            and any(b.status == "located" for b in session.blocks.values()))


async def stopped_after_first_change(replay, calc, events=None):
    """A rewrite of `mean`, stopped (Esc) once its first change closed while the rest was open."""
    url, _ = await replay(["rewrite_mean.txt"], rate=200)
    session, _ = await open_session(url, calc, events, edit_format="rewrite", prewarm=False)
    try:
        await session.send("fix `mean`", MEAN)
        await until(lambda: closed_first_change_only(session))
        await session.stop()
    except BaseException:
        await session.close()
        raise
    return session


async def test_esc_mid_rewrite_keeps_the_closed_changes(replay, calc):
    events = []
    session = await stopped_after_first_change(replay, calc, events)
    try:
        # The closed change stays; the open piece (the return line, still being written) goes.
        assert session.state == INTERRUPTED
        assert [(h.start, h.end, h.new, h.streaming) for h in session.proposal] == [(12, 13, (NEW_TOTAL,), False)]
        live = session.live
        rows = [(r.kind, r.text) for r in live.rows(0, live.row_count)]
        assert ("removed", OLD_TOTAL) in rows and ("added", NEW_TOTAL) in rows
        assert ("context", OLD_RETURN) in rows and not any(r.partial for r in live.rows(0, live.row_count))
        version, n_events = live.version, len(events)
        result = await session.wait()
        assert result.status == "stopped" and session.state == INTERRUPTED and result.hunks == 1
        assert live.version == version  # nothing more arrived after Esc
        assert not [e for e in events[n_events:] if type(e).__name__ == "ProposalUpdated"]
        assert calc.read_text() == original()
        # Accepting writes the old text plus exactly the closed change.
        assert session.accept_all() and session.state == IDLE
        one = original().replace(OLD_TOTAL + "\n", NEW_TOTAL + "\n")
        assert calc.read_text() == one
        assert session.undo() and calc.read_text() == original()
        assert session.redo() and calc.read_text() == one
    finally:
        await session.close()


async def test_esc_mid_rewrite_then_per_hunk_review(replay, calc):
    session = await stopped_after_first_change(replay, calc)
    try:
        await session.wait()
        assert session.accept_hunk(0) and session.state == IDLE and not session.has_proposal
        assert calc.read_text() == original().replace(OLD_TOTAL + "\n", NEW_TOTAL + "\n")
        assert session.undo() and calc.read_text() == original()
    finally:
        await session.close()


async def test_reject_of_what_esc_kept_is_idle(replay, calc):
    session = await stopped_after_first_change(replay, calc)
    try:
        await session.wait()
        assert session.state == INTERRUPTED
        assert session.reject_all() and session.state == IDLE and not session.has_proposal
        assert calc.read_text() == original()
    finally:
        await session.close()


async def test_esc_before_any_closed_change_leaves_nothing_and_is_idle(replay, calc):
    url, _ = await replay(["rewrite_mean.txt"], rate=200, hold_after="total = 0")
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        await session.send("fix `mean`", MEAN)
        # The changed `total` line is being written (the replay holds there): nothing has closed yet.
        await until(lambda: "total = 0" in session.raw_text)
        assert "for v" not in session.raw_text
        await session.stop()
        assert session.state == IDLE
        assert not session.has_proposal and session.live.hunk_count == 0
        live = session.live
        assert all(r.kind == "context" for r in live.rows(0, live.row_count))
        result = await session.wait()
        assert result.status == "stopped" and session.state == IDLE and not session.has_proposal
        assert calc.read_text() == original()



async def test_one_method_of_a_class_with_four_is_its_region_and_the_others_stay(replay, tmp_path):
    # "add a docstring to cheapest" in the app once rewrote the whole class with only `cheapest`.
    source = (DATA.parents[2] / "examples" / "inventory.py").read_text()
    target = tmp_path / "inventory.py"
    target.write_text(source)
    url, engine = await replay(["cheapest_doc.txt"])
    async with session_on(url, target, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a docstring to cheapest", None, retries=0)
        assert result.status == "proposal"
        assert "def add(" not in engine.requests[0].messages[-1]["content"]  # the region is the method
        assert session.accept_all()
        doc = '        """The item with the lowest price."""\n'
        assert target.read_text() == source.replace("    def cheapest(self):\n", "    def cheapest(self):\n" + doc)


# ------------------------------------------------------------------ a rewrite that restates part of its region

CLASS = (12, 36)  # 0-based end-exclusive: `@dataclass class Inventory` with its four methods
DOCSTRING = '        """The item with the lowest price; ValueError if there are no items."""'
OTHER_METHODS = ("    def add(self, name, price, quantity=1):", "    def remove(self, name, quantity=1):",
                 "    def total_value(self):")


def with_docstring() -> str:
    text = EXAMPLE.read_text()
    head = "    def cheapest(self):\n"
    return text.replace(head, head + DOCSTRING + "\n")


@pytest.mark.parametrize("answer", ["rewrite_cheapest_only.txt", "rewrite_class_cheapest_only.txt"])
async def test_a_rewrite_of_one_method_keeps_the_others(replay, inventory, answer):
    """The region is the whole class; the answer is only `cheapest` (alone, or in its class
    with the other methods gone): anchored to what it restates, the rest kept."""
    url, _ = await replay([answer])
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a docstring to cheapest", CLASS, retries=0)
        assert result.status == "proposal", result.reason
        assert [(h.start, h.end, h.new) for h in session.proposal] == [(35, 35, (DOCSTRING,))]
        assert session.accept_all()
        assert inventory.read_text() == with_docstring()
        assert all(m in inventory.read_text() for m in OTHER_METHODS)


async def test_the_live_diff_of_a_partial_rewrite_never_shows_the_left_out_code_removed(replay, inventory):
    url, _ = await replay(["rewrite_cheapest_only.txt"], rate=300)
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, _):
        seen_doc = False
        await session.send("add a docstring to cheapest", CLASS)
        await until(lambda: session.state == GENERATING)
        while session.state == GENERATING:
            live = session.live
            rows = [(r.kind, r.text) for r in live.rows(0, live.row_count)]
            assert not [r for r in rows if r[0] == "removed"], rows
            added = [t for k, t in rows if k == "added"]
            if DOCSTRING in added:
                # Drawn where accept will put it: right under `def cheapest`.
                i = rows.index(("added", DOCSTRING))
                assert rows[i - 1] == ("context", "    def cheapest(self):")
                seen_doc = True
            await asyncio.sleep(0.001)
        assert (await session.wait()).status == "proposal"
        assert seen_doc


async def test_an_instruction_to_delete_lets_the_rewrite_delete(replay, inventory):
    url, _ = await replay(["rewrite_class_cheapest_only.txt"])
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("remove add, remove and total_value; give cheapest a docstring", CLASS, retries=0)
        assert result.status == "proposal"
        assert session.accept_all()
        text = inventory.read_text()
        assert DOCSTRING in text and not any(m in text for m in OTHER_METHODS)


async def test_a_rewrite_that_cannot_be_anchored_is_refused_not_applied(replay, inventory):
    url, _ = await replay(["rewrite_class_drops_methods.txt"])
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a docstring to cheapest", CLASS, retries=0)
        assert result.status == "refused" and "leaves out" in result.reason
        assert not session.has_proposal
        assert inventory.read_text() == EXAMPLE.read_text()
        assert "every line of it" in session._feedback_instruction()


async def test_steer_edit_anchors_a_partial_rewrite(replay, inventory):
    from .test_edit_command import steer_edit

    url, _ = await replay(["rewrite_cheapest_only.txt"])
    code, out, err = await steer_edit(str(inventory), "-m", "add a docstring to cheapest", "--format", "rewrite",
                                      "--region", "13:36", "--backend", url)
    assert code == 0, err
    assert inventory.read_text() == with_docstring()
    assert f"+{DOCSTRING}" in out and not [x for x in out.splitlines() if x.startswith("-") and not x.startswith("---")]


async def test_steer_edit_refuses_a_rewrite_that_drops_methods(replay, inventory):
    from .test_edit_command import steer_edit

    url, _ = await replay(["rewrite_class_drops_methods.txt"])
    code, out, err = await steer_edit(str(inventory), "-m", "add a docstring to cheapest", "--format", "rewrite",
                                      "--region", "13:36", "--backend", url)
    assert code == 1, (out, err)
    assert inventory.read_text() == EXAMPLE.read_text()
    assert "leaves out" in err


async def test_a_rewrite_too_long_for_the_engines_context_is_refused_before_it_is_sent(replay, calc):
    """A region rewrite whose prompt and answer cannot fit the context the gateway reports is
    refused at once, with what to do instead: not evaluated for minutes and then cut off."""
    url, engine = await replay(["rewrite_mean.txt", "rewrite_mean.txt"])
    engine.context_tokens = 500  # calc.py shown whole (the file, the region and the answer) needs more
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        assert session.server_context == 500
        result = await session.edit("make every function handle an empty list", (0, 28))
        assert result.status == "refused" and not engine.requests
        assert result.reason.startswith("the region (28 lines) is too long to rewrite within the model's context of 500 tokens")
        assert "name a function or class" in result.reason
        # One function fits: asked as usual.
        result = await session.edit("make `mean` safe for an empty list", (11, 16))
        assert result.status == "proposal" and len(engine.requests) == 1


async def test_where_the_engine_departs_the_unused_parameter_retry_departs_from_that_answer(replay, calc):
    url, engine = await replay(["mean_param_unused.txt", "mean_param_used.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        result = await session.edit("add a parameter default to mean, returned for an empty list", (11, 16))
        assert result.status == "proposal" and result.attempts == 2
        first, retry = engine.requests
        assert first.avoid is None and retry.messages == first.messages  # no feedback: the same, departing
        assert retry.avoid is not None and retry.avoid[0] == recorded("mean_param_unused.txt")
        assert "return default" in session.review.proposed_text()


async def test_deleting_the_function_at_the_cursor_is_asked_of_it_and_the_next_one(replay, calc):
    url, engine = await replay(["rewrite_same.txt"])
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        await session.edit("delete this function", MEAN, retries=0)
        # Shown only `mean`, the small model cannot answer with nothing: it is asked of mean and
        # clamp, told which one "this" is, and only mean may go.
        assert session.region == (11, 24)
        last = engine.requests[0].messages[-1]["content"]
        assert "def mean(values):" in last and "def clamp(x, lo, hi):" in last
        assert last.rstrip().endswith("delete this function (`mean`)")


# A proposal that parses but would go wrong when run: a new parameter the body never reads, a name
# nothing defines (`EMPTY_RESULT`: NameError), `print("x:", v)` turned into `logging.warning("x:", v)`
# (the record fails when emitted). Each: (replies in order, words, what the feedback of `edit()`
# says, what its second answer's proposal holds, the app's notice code and text, what the app's
# proposal holds).
ANSWERS_THAT_WOULD_GO_WRONG = {
    "unused parameter": (
        ["mean_param_unused.txt", "mean_param_used.txt"], "add a parameter default to mean, returned for an empty list",
        "the new parameter `default` of `mean` is never used", ["if not values:\n        return default"],
        "unused", "`default` of `mean` is never used", "def mean(values, default=0.0):"),
    "name nothing defines": (
        ["mean_undefined_name.txt", "mean_if_empty.txt"], "make mean return a default for an empty list",
        "Your edit was not applied: it uses `EMPTY_RESULT`, which neither this file nor its imports define",
        ["if not values:\n        return 0.0"],
        "undefined", "`EMPTY_RESULT` is defined nowhere", "return EMPTY_RESULT"),
    "log call without placeholders": (
        ["mean_log_unformatted.txt", "mean_log_formatted.txt"], "log a warning when mean gets no values",
        '`logging.warning("mean of no values:", values)` gives the log message arguments',
        ['logging.warning("mean of no values: %s", values)', "\nimport logging\n"],
        "logging_args", "has no %s for", 'logging.warning("mean of no values:", values)'),
}


@pytest.mark.parametrize("case", list(ANSWERS_THAT_WOULD_GO_WRONG))
async def test_an_answer_that_would_go_wrong_when_run_is_a_failed_attempt_in_edit(replay, calc, case):
    replies, words, feedback_says, proposal_holds, *_ = ANSWERS_THAT_WOULD_GO_WRONG[case]
    url, engine = await replay(replies)
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit(words, (11, 16))
        assert result.status == "proposal" and result.attempts == 2
        assert feedback_says in engine.requests[1].messages[-1]["content"]
        proposed = session.review.proposed_text()
        assert all(part in proposed for part in proposal_holds)


@pytest.mark.parametrize("case", list(ANSWERS_THAT_WOULD_GO_WRONG))
async def test_in_the_app_an_answer_that_would_go_wrong_when_run_is_flagged_not_refused(replay, calc, case):
    replies, words, _, _, code, notice_says, app_proposal_holds = ANSWERS_THAT_WOULD_GO_WRONG[case]
    url, engine = await replay(replies[:1])
    events = []
    async with session_on(url, calc, events, edit_format="rewrite", prewarm=False) as (session, _):
        await session.send(words, (11, 16))
        result = await session.wait()
        assert result.status == "proposal" and len(engine.requests) == 1
        assert app_proposal_holds in session.review.proposed_text()
        assert any(isinstance(e, Notice) and e.code == code and notice_says in e.text for e in events)


async def test_an_answer_caught_in_a_loop_is_asked_again_departing_where_it_went_round_again(replay, calc):
    """Greedy decoding goes round a loop again when asked again: the retry departs at the first
    line of the loop's second round (the engine writes its runner-up there)."""
    url, engine = await replay(["mean_loop.txt", "rewrite_mean.txt"])
    engine.features = frozenset({"avoid"})
    async with session_on(url, calc, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        result = await session.edit("make mean safe for an empty list", MEAN)
        assert result.status == "proposal" and result.attempts == 2
        first, retry = engine.requests
        assert first.avoid is None and retry.messages == first.messages  # no feedback: the same, departing
        text, after, _ = retry.avoid
        assert text.endswith("        return 0\n    if values == [1]:\n")
        assert text[after:] == "    if values == [1]:\n"
        assert "max(len(values), 1)" in session.review.proposed_text()
