"""LiveDiff's aligned streaming of region rewrites (greedy alignment, pieces, finish, drop)."""

from __future__ import annotations

from steer_tui.edits.livediff import ADDED, CONTEXT, REMOVED, LiveDiff

OLD = [
    "def f(x):",
    "    a = 1",
    "    b = 2",
    "    c = 3",
    "    d = 4",
    "    return a",
    "",
    "def g():",
    "    pass",
]
REGION = (0, 6)
NEW = "def f(x):\n    a = 1\n    b = 20\n    c = 3\n    return a\n"


def kinds(live: LiveDiff) -> list[tuple[str, str]]:
    return [(r.kind[0], r.text) for r in live.rows(0, live.row_count)]


def streamed(new: str = NEW, step: int = 1) -> LiveDiff:
    live = LiveDiff(OLD)
    live.add("k", *REGION, align=True)
    for i in range(0, len(new), step):
        live.append("k", new[i : i + step])
    return live


def test_aligned_rows_show_only_the_changed_lines():
    live = streamed()
    assert kinds(live) == [
        ("c", "def f(x):"), ("c", "    a = 1"),
        ("r", "    b = 2"), ("a", "    b = 20"),
        ("c", "    c = 3"),
        ("r", "    d = 4"),  # skipped by the look-ahead match of "return a"
        ("c", "    return a"), ("c", ""), ("c", "def g():"), ("c", "    pass"),
    ]
    # Line numbers stay right around the closed pieces.
    rows = live.rows(0, live.row_count)
    assert (rows[4].old_no, rows[4].new_no) == (4, 4)
    assert (rows[6].old_no, rows[6].new_no) == (6, 5)
    assert (rows[9].old_no, rows[9].new_no) == (9, 8)


def test_mid_stream_the_unreached_region_is_context_and_the_partial_line_is_added():
    live = LiveDiff(OLD)
    live.add("k", *REGION, align=True)
    live.append("k", "def f(x):\n    a = 1\n    b = 2")  # a prefix of the old line: still context
    assert all(r.kind == CONTEXT for r in live.rows(0, live.row_count))
    live.append("k", "0")  # now it differs: shown as added in progress
    rows = live.rows(0, live.row_count)
    assert [(r.kind, r.text, r.partial) for r in rows[:4]] == [
        (CONTEXT, "def f(x):", False), (CONTEXT, "    a = 1", False),
        (ADDED, "    b = 20", True), (CONTEXT, "    b = 2", False)]
    assert all(r.kind == CONTEXT for r in rows[4:])
    assert live.cursor_row == 2
    live.append("k", "\n    c = 3\n")
    assert [(r.kind, r.text) for r in live.rows(2, 5)] == [(REMOVED, "    b = 2"), (ADDED, "    b = 20"), (CONTEXT, "    c = 3")]


def test_finish_splits_into_minimal_hunks_whatever_the_delta_sizes():
    for step in (1, 3, 7, len(NEW)):
        live = streamed(step=step)
        assert live.finish("k") == [0, 1]
        assert [(h.start, h.end, h.new) for h in live.hunks()] == [(2, 3, ("    b = 20",)), (4, 5, ())]
        assert live.new_lines() == ["def f(x):", "    a = 1", "    b = 20", "    c = 3", "    return a", "",
                                    "def g():", "    pass"]


def test_finish_with_the_final_text_overrides_the_greedy_alignment():
    live = streamed()
    live.finish("k", "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    return a + 1\n")
    assert [(h.start, h.end, h.new) for h in live.hunks()] == [(5, 6, ("    return a + 1",))]


def test_a_rewrite_identical_to_the_region_makes_no_hunk():
    live = streamed("".join(x + "\n" for x in OLD[:6]))
    assert all(r.kind == CONTEXT for r in live.rows(0, live.row_count))
    assert live.finish("k") == [] and live.hunk_count == 0


def test_remove_drops_the_closed_pieces_too():
    live = LiveDiff(OLD)
    live.add("k", *REGION, align=True)
    live.append("k", "def f(x):\n    a = 1\n    b = 20\n    c = 3\n    ret")
    assert live.hunk_count == 2
    v = live.version
    live.remove("k")
    assert live.hunk_count == 0 and live.row_count == len(OLD)
    assert all(r.kind == CONTEXT for r in live.rows(0, live.row_count))
    changed = live.changed_since(v)
    assert changed is not None and changed[0] <= 2 and changed[1] == live.row_count  # the view redraws the piece


def test_lines_not_in_the_old_region_are_added_and_far_matches_are_not_taken():
    old = [f"line {i}" for i in range(20)]
    live = LiveDiff(old)
    live.add("k", 0, 20, align=True)
    live.append("k", "line 0\nnew\nline 15\n")  # 15 is beyond the look-ahead from line 1
    assert [(r.kind[0], r.text) for r in live.rows(0, 4)] == [("c", "line 0"), ("a", "new"), ("a", "line 15"),
                                                               ("c", "line 1")]


def test_a_blank_line_does_not_skip_ahead():
    old = ["a", "b", "", "c"]
    live = LiveDiff(old)
    live.add("k", 0, 4, align=True)
    live.append("k", "a\n\n")
    assert [(r.kind[0], r.text) for r in live.rows(0, live.row_count)] == [
        ("c", "a"), ("a", ""), ("c", "b"), ("c", ""), ("c", "c")]


def test_update_that_revises_the_text_starts_the_alignment_over():
    live = LiveDiff(OLD)
    live.add("k", *REGION, align=True)
    live.update("k", "def f(x):\n    a = 1\n    b = 20\n    c = 3\n")
    assert live.hunk_count == 2
    live.update("k", "def f(x):\n    a = 2\n")
    assert [(r.kind[0], r.text) for r in live.rows(0, 3)] == [("c", "def f(x):"), ("a", "    a = 2"), ("c", "    a = 1")]
    assert live.finish("k", "def f(x):\n    a = 2\n    b = 2\n    c = 3\n    d = 4\n    return a\n") == [0]


def test_another_block_cannot_land_inside_an_aligned_region():
    live = LiveDiff(OLD)
    live.add("k", *REGION, align=True)
    live.append("k", "def f(x):\n")
    try:
        live.add("other", 3, 4)
    except ValueError:
        pass
    else:
        raise AssertionError("a block inside the rewrite's region was accepted")
    live.add("other", 7, 8)  # after the region is fine


def test_settle_keeps_closed_pieces_and_drops_the_open_one():
    live = streamed("def f(x):\n    a = 1\n    b = 20\n    c = 3\n    return a + 1\n    ret")
    # b's change is closed by the matching c line; d's removal + the new return are open.
    assert live.settle("k") == [0]
    assert [(h.start, h.end, h.new, h.streaming, h.partial) for h in live.hunks()] == [
        (2, 3, ("    b = 20",), False, "")]
    assert live.new_lines() == OLD[:2] + ["    b = 20"] + OLD[3:]
    assert ("r", "    d = 4") not in kinds(live) and not any(r.partial for r in live.rows(0, live.row_count))
    live.remove_index(0)  # per-hunk reject of what was kept
    assert live.hunk_count == 0 and all(k == "c" for k, _ in kinds(live))


def test_settle_of_a_plain_streaming_hunk_drops_it_whole():
    live = LiveDiff(OLD)
    live.add("sr", 2, 3)
    live.append("sr", "    b = 20\n    b2 = 0\n")
    assert live.settle("sr") == [] and live.hunk_count == 0
    assert live.new_lines() == OLD
