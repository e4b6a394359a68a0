"""LiveDiff: display rows over a document with streaming hunks, checked against a brute-force model."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings, strategies as st

from steer_tui.edits.livediff import ADDED, CONTEXT, REMOVED, LiveDiff, intraline


def brute_rows(lines, hunks):
    """Reference: materialise every row from (start, end, new) hunks."""
    out, pos, delta = [], 0, 0
    # By position only: two hunks at one point (an insertion beside a hunk trimmed to nothing) keep
    # the order they are given in, the live diff's own, rather than one their texts decide.
    for k, (s, e, new) in enumerate(sorted(hunks, key=lambda h: (h[0], h[1]))):
        for i in range(pos, s):
            out.append((CONTEXT, lines[i], i + 1, i + 1 + delta, None))
        for i in range(s, e):
            out.append((REMOVED, lines[i], i + 1, None, k))
        for j, t in enumerate(new):
            out.append((ADDED, t, None, s + 1 + delta + j, k))
        delta += len(new) - (e - s)
        pos = e
    for i in range(pos, len(lines)):
        out.append((CONTEXT, lines[i], i + 1, i + 1 + delta, None))
    return out


def view(live):
    return [(r.kind, r.text, r.old_no, r.new_no, r.hunk) for r in live.rows(0, live.row_count)]


LINES = [f"line {i}" for i in range(20)]


def test_no_hunks_is_the_document():
    live = LiveDiff(LINES)
    assert live.row_count == 20
    assert view(live) == brute_rows(LINES, [])
    with pytest.raises(IndexError):
        live.row(20)


def test_streaming_hunk_grows_line_by_line():
    live = LiveDiff(LINES)
    live.add(0, 5, 7)
    assert live.hunk_rows(0) == (5, 7)
    assert [live.row(i).kind for i in (4, 5, 6, 7)] == [CONTEXT, REMOVED, REMOVED, CONTEXT]
    v = live.version
    live.update(0, "new fi")
    assert live.row(7).kind == ADDED and live.row(7).partial and live.row(7).text == "new fi"
    assert live.changed_since(v)[0] <= 7
    live.update(0, "new five\nnew six\n")
    assert view(live) == brute_rows(LINES, [(5, 7, ["new five", "new six"])])
    assert live.cursor_row == 8
    assert live.new_lines()[5:7] == ["new five", "new six"]


def test_repeated_leading_lines_fold_into_context_and_finish_minimises():
    live = LiveDiff(LINES)
    live.add("b", 3, 8)
    live.update("b", "line 3\nline 4\nCHANGED\n")
    # the two repeated lines are context, the hunk starts at old line 5
    assert live.hunk(0).start == 5
    assert live.row(3).kind == CONTEXT and live.row(4).kind == CONTEXT
    live.update("b", "line 3\nline 4\nCHANGED\nline 6\nline 7\n")
    idx = live.finish("b")
    assert idx == [0]
    assert (live.hunk(0).start, live.hunk(0).end, live.hunk(0).new) == (5, 6, ("CHANGED",))
    assert view(live) == brute_rows(LINES, [(5, 6, ["CHANGED"])])


def test_finish_splits_into_minimal_hunks():
    live = LiveDiff(LINES)
    live.add(0, 2, 10)
    new = list(LINES[2:10])
    new[1] = "X"
    new[6] = "Y"
    new.insert(4, "inserted")
    live.update(0, "\n".join(new) + "\n")
    assert live.finish(0) == [0, 1, 2]
    hunks = [(h.start, h.end, list(h.new)) for h in live.hunks()]
    assert hunks == [(3, 4, ["X"]), (6, 6, ["inserted"]), (8, 9, ["Y"])]
    assert view(live) == brute_rows(LINES, hunks)
    assert live.hunk_rows(1) == (7, 8)


def test_finish_with_no_change_leaves_no_hunk():
    live = LiveDiff(LINES)
    live.add(0, 2, 4)
    live.update(0, "line 2\nline 3")
    assert live.finish(0) == []
    assert live.hunk_count == 0 and view(live) == brute_rows(LINES, [])


def test_overlap_is_refused():
    live = LiveDiff(LINES)
    live.add(0, 5, 8)
    for s, e in [(4, 6), (7, 9), (5, 8), (6, 6)]:
        with pytest.raises(ValueError):
            live.add((s, e), s, e)
    live.add(1, 8, 9)
    live.add(2, 0, 0)
    assert [h.start for h in live.hunks()] == [0, 5, 8]


def test_non_append_update_restarts_the_hunk_text():
    live = LiveDiff(LINES)
    live.add(0, 1, 2)
    live.update(0, "abc\ndef")
    live.update(0, "xyz\n")
    assert live.hunk(0).new == ("xyz",)


def test_remove_and_clear():
    live = LiveDiff(LINES)
    live.add(0, 1, 2)
    live.add(1, 5, 6)
    live.update(1, "five\nmore\n")
    live.remove(0)
    assert view(live) == brute_rows(LINES, [(5, 6, ["five", "more"])])
    live.clear()
    assert view(live) == brute_rows(LINES, [])


def test_reset_with_hunks():
    live = LiveDiff(LINES)
    live.reset(LINES[:10], [(7, 8, ["a", "b"]), (1, 1, ["top"])])
    assert view(live) == brute_rows(LINES[:10], [(1, 1, ["top"]), (7, 8, ["a", "b"])])
    assert live.changed_since(0) == (0, live.row_count)


def test_changed_since_is_narrow_for_a_growing_tail():
    live = LiveDiff(LINES)
    live.add(0, 10, 11)
    live.update(0, "a")
    v = live.version
    live.update(0, "abc")
    assert live.changed_since(v) == (11, 12)
    assert live.changed_since(live.version) is None


def test_intraline_spans_for_paired_lines():
    live = LiveDiff(["total = price * qty"])
    live.add(0, 0, 1)
    live.update(0, "total = price * quantity\n")
    removed, added = live.row(0), live.row(1)
    assert removed.kind == REMOVED and added.kind == ADDED
    assert added.spans and all(added.text[a:b] for a, b in added.spans)
    assert [added.text[a:b] for a, b in added.spans] == ["quantity"]
    assert [removed.text[a:b] for a, b in removed.spans] == ["qty"]
    assert intraline("abc", "xyz") == ((), ())


def test_large_file_row_lookup_uses_hunks_only():
    lines = [f"l{i}" for i in range(10_000)]
    live = LiveDiff(lines)
    for n in range(50):
        live.add(n, n * 200, n * 200 + 1)
        live.update(n, f"new {n}\nextra {n}\n")
    hunks = [(n * 200, n * 200 + 1, [f"new {n}", f"extra {n}"]) for n in range(50)]
    ref = brute_rows(lines, hunks)
    assert live.row_count == len(ref)
    for i in range(0, len(ref), 37):
        r = live.row(i)
        assert (r.kind, r.text, r.old_no, r.new_no, r.hunk) == ref[i]


@settings(max_examples=60, deadline=None)
@example(specs=[(1, 1, ["line 1"]), (1, 1, ["line 1", "a"])], chunk=1)  # found by a CI run: two hunks at one point
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.lists(st.sampled_from(["a", "b", "line 1", ""]), max_size=4)), max_size=6),
    st.integers(1, 7),
)
def test_streaming_matches_brute_force(specs, chunk):
    lines = [f"line {i}" for i in range(30)]
    live = LiveDiff(lines)
    placed = []
    for key, (s, n, new) in enumerate(specs):
        e = min(30, s + n)
        try:
            live.add(key, s, e)
        except ValueError:
            continue
        text = "".join(t + "\n" for t in new)
        for i in range(0, len(text) + chunk, chunk):
            live.update(key, text[: i])
        live.update(key, text)
        placed.append(key)
    expected = [(h.start, h.end, list(h.new)) for h in live.hunks()]
    assert view(live) == brute_rows(lines, expected)
    for key in placed:
        live.finish(key)
    finished = [(h.start, h.end, list(h.new)) for h in live.hunks()]
    assert view(live) == brute_rows(lines, finished)
    assert live.new_lines() == [x for x in _apply(lines, finished)]


def _apply(lines, hunks):
    out, pos = [], 0
    for s, e, new in sorted(hunks):
        out += lines[pos:s] + new
        pos = e
    return out + lines[pos:]


def test_append_deltas_and_transform():
    live = LiveDiff(["def f():", "    return 1", "x = 2"])
    live.add("k", 1, 2, transform=lambda line: "    " + line if line else line)
    for piece in ["ret", "urn 2\n", "# done", "\n"]:
        live.append("k", piece)
    assert live.hunk(0).new == ("    return 2", "    # done")
    live.finish("k")
    assert [(h.start, h.end, h.new) for h in live.hunks()] == [(1, 2, ("    return 2", "    # done"))]
    assert live.new_lines() == ["def f():", "    return 2", "    # done", "x = 2"]


def test_restart_after_folding_keeps_rows_consistent():
    live = LiveDiff(LINES)
    live.add(0, 3, 6)
    live.update(0, "line 3\nline 4\nnew\n")
    live.update(0, "other\n")
    assert view(live) == brute_rows(LINES, [(3, 6, ["other"])])


def test_finish_takes_the_final_text_as_is():
    # streamed lines are shown re-indented; the final text is already adapted: no double indent
    live = LiveDiff(["class A:", "    def f(self):", "        return 1"])
    live.add("k", 1, 3, transform=lambda line: "    " + line if line.strip() else line)
    live.append("k", "def f(self):\n    return 2\n")
    assert live.hunk(0).new == ("        return 2",)  # re-indented; the first line folded into context
    live.finish("k", "    def f(self):\n        return 2\n")
    assert [(h.start, h.end, h.new) for h in live.hunks()] == [(2, 3, ("        return 2",))]
    assert live.new_lines() == ["class A:", "    def f(self):", "        return 2"]
