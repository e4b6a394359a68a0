"""Parser: every format, streaming at any chunk size, marker safety, malformed input."""

from __future__ import annotations

import pytest

from steer_tui.edits.blocks import (
    APPLY_PATCH, REWRITE, SEARCH_REPLACE, UDIFF,
    BlockComplete, BlockDropped, BlockStarted, ReplaceDelta, SearchComplete,
)
from steer_tui.edits.parse import ParseError, StreamParser, parse, parse_response

SR = """Sure, here is the change.

```python
<<<<<<< SEARCH
def add(a, b):
    return a + b
=======
def add(a, b):
    return a + b + 0
>>>>>>> REPLACE
```

And a second one:

<<<<<<< SEARCH
x = 1
=======
x = 2
>>>>>>> REPLACE
Done.
"""


def feed_in(text: str, size: int, region=None):
    p = StreamParser(region)
    events = []
    for i in range(0, len(text), size):
        events.extend(p.feed(text[i : i + size]))
    events.extend(p.finish())
    return p, events


def test_search_replace_fenced_and_bare_with_prose():
    blocks = parse_response(SR)
    assert [b.kind for b in blocks] == [SEARCH_REPLACE, SEARCH_REPLACE]
    assert blocks[0].search == "def add(a, b):\n    return a + b\n"
    assert blocks[0].replace == "def add(a, b):\n    return a + b + 0\n"
    assert blocks[1].search == "x = 1\n" and blocks[1].replace == "x = 2\n"
    assert [b.index for b in blocks] == [0, 1]


@pytest.mark.parametrize("n", [5, 7, 9])
def test_marker_lengths_and_reversed_directions(n):
    text = f"{'>' * n} SEARCH\na\n{'=' * n}\nb\n{'<' * n} REPLACE\n"
    (b,) = parse_response(text)
    assert (b.search, b.replace) == ("a\n", "b\n")


def test_four_or_ten_marker_chars_are_not_markers():
    assert parse_response("<<<< SEARCH\na\n====\nb\n>>>> REPLACE\n") == []
    assert parse_response("<<<<<<<<<< SEARCH\na\n==========\nb\n>>>>>>>>>> REPLACE\n") == []


def test_empty_search_and_empty_replace():
    (b,) = parse_response("<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n")
    assert b.search == "" and b.replace == "new\n"
    (b,) = parse_response("<<<<<<< SEARCH\nold\n=======\n>>>>>>> REPLACE\n")
    assert b.search == "old\n" and b.replace == ""


def test_crlf_response():
    (b,) = parse_response(SR.split("And a second")[0].replace("\n", "\r\n"))
    assert b.search == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 64, 10_000])
def test_streaming_any_chunk_size_gives_same_blocks(size):
    p, events = feed_in(SR, size)
    assert p.result().blocks == parse_response(SR)
    kinds = [type(e) for e in events if e.index == 0]
    assert kinds[0] is BlockStarted and kinds[-1] is BlockComplete
    # SEARCH completes before any REPLACE text streams
    assert kinds.index(SearchComplete) < kinds.index(ReplaceDelta)
    deltas = "".join(e.delta for e in events if isinstance(e, ReplaceDelta) and e.index == 0)
    assert deltas == "def add(a, b):\n    return a + b + 0\n"


def test_search_complete_is_emitted_before_replace_is_done():
    p = StreamParser()
    ev = p.feed("<<<<<<< SEARCH\nold line\n=======\n")
    assert SearchComplete(0, "old line\n") in ev
    ev = p.feed("new li")
    assert ev == [ReplaceDelta(0, "new li")]
    ev = p.feed("ne\n>>>>>>> REP")
    assert ev == [ReplaceDelta(0, "ne\n")]
    ev = p.feed("LACE\n")
    assert isinstance(ev[0], BlockComplete)


def test_never_streams_a_half_written_marker_line():
    p = StreamParser()
    p.feed("<<<<<<< SEARCH\na\n=======\nb\n")
    for piece in [">", ">>", ">>>", ">", " REPLACE"]:
        assert [e for e in p.feed(piece) if isinstance(e, ReplaceDelta)] == []
    assert isinstance(p.feed("\n")[0], BlockComplete)


def test_partial_line_starting_like_a_marker_is_held_until_known():
    p = StreamParser()
    p.feed("<<<<<<< SEARCH\na\n=======\n")
    assert p.feed(">>> doctest") == []  # could still become a marker? no, but held until newline
    assert p.feed("\n") == [ReplaceDelta(0, ">>> doctest\n")]


def test_unterminated_block_is_dropped():
    result = parse("<<<<<<< SEARCH\na\n=======\nb\n")
    assert result.blocks == [] and result.problems and result.problems[0][0] == 0
    with pytest.raises(ParseError):
        parse_response("<<<<<<< SEARCH\na\n=======\nb\n", strict=True)


def test_missing_divider_and_double_divider_are_dropped():
    r = parse("<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n")
    assert r.blocks == [] and "=======" in r.problems[0][1]
    r = parse("<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n")
    assert r.blocks == [] and "two" in r.problems[0][1]


def test_fenced_block_missing_replace_marker_recovers_at_fence_end():
    text = "```\n<<<<<<< SEARCH\na\n=======\nb\n```\nprose\n"
    r = parse(text)
    assert [(b.search, b.replace) for b in r.blocks] == [("a\n", "b\n")] and not r.problems


def test_truncated_stream_drops_open_block():
    p = StreamParser()
    p.feed("<<<<<<< SEARCH\na\n=======\nb")
    ev = p.finish(truncated=True)
    assert isinstance(ev[-1], BlockDropped) and p.result().blocks == []


def test_fences_inside_blocks_are_content():
    text = "<<<<<<< SEARCH\n```py\nx\n```\n=======\n```py\ny\n```\n>>>>>>> REPLACE\n"
    (b,) = parse_response(text)
    assert b.search == "```py\nx\n```\n" and b.replace == "```py\ny\n```\n"


PATCH = """Here you go:
*** Begin Patch
*** Update File: src/app.py
@@ def main():
     setup()
-    run()
+    run(fast=True)
@@
 a
-b
+c

 d
*** End of File
*** End Patch
"""


def test_apply_patch():
    blocks = parse_response(PATCH)
    assert [b.kind for b in blocks] == [APPLY_PATCH, APPLY_PATCH]
    b0, b1 = blocks
    assert b0.path == "src/app.py" and b0.anchor == "def main():"
    assert b0.search == "    setup()\n    run()\n" and b0.replace == "    setup()\n    run(fast=True)\n"
    assert b1.search == "a\nb\n\nd\n" and b1.replace == "a\nc\n\nd\n" and b1.at_eof


def test_apply_patch_add_and_delete():
    r = parse("*** Begin Patch\n*** Add File: n.py\n+x = 1\n+\n*** End Patch\n")
    (b,) = r.blocks
    assert b.create and b.search == "" and b.replace == "x = 1\n\n"
    r = parse("*** Begin Patch\n*** Delete File: n.py\n*** End Patch\n")
    assert r.blocks == [] and "not supported" in r.problems[0][1]


def test_apply_patch_without_end_is_dropped_but_fence_end_is_fine():
    assert parse("*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n").problems
    r = parse("```\n*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n```\n")
    assert not r.problems and r.blocks[0].replace == "b\n"


UDIFF_TEXT = """```diff
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -10,4 +10,4 @@ def f():
 one
-two
+TWO
 three
@@ -40,3 +40,4 @@
 x
+y
 z
```
That's all.
"""


def test_unified_diff():
    blocks = parse_response(UDIFF_TEXT)
    assert [b.kind for b in blocks] == [UDIFF, UDIFF]
    assert blocks[0].path == "pkg/mod.py" and blocks[0].line_hint == 9
    assert blocks[0].search == "one\ntwo\nthree\n" and blocks[0].replace == "one\nTWO\nthree\n"
    assert blocks[1].search == "x\nz\n" and blocks[1].replace == "x\ny\nz\n"


def test_unified_diff_removed_line_starting_with_dashes():
    text = "@@ -1,2 +1,1 @@\n--- sql comment\n keep\n"
    (b,) = parse_response(text)
    assert b.search == "-- sql comment\nkeep\n" and b.replace == "keep\n"


def test_unified_diff_two_files():
    text = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-c\n+d\n"
    blocks = parse_response(text)
    assert [(b.path, b.search, b.replace) for b in blocks] == [("x.py", "a\n", "b\n"), ("y.py", "c\n", "d\n")]


def test_unified_diff_trailing_blank_lines_not_context():
    (b,) = parse_response("@@ -1,2 +1,2 @@\n a\n-b\n+c\n\nSo that fixes it.\n")
    assert b.search == "a\nb\n" and b.replace == "a\nc\n"


REGION = "    def f(self):\n        return 1\n"


def test_region_rewrite_fenced_with_prose():
    text = "Here is the new version:\n```python\n    def f(self):\n        return 2\n```\nHope it helps.\n"
    (b,) = parse_response(text, region_text=REGION, region_start=4)
    assert b.kind == REWRITE and b.search == REGION and b.line_hint == 4
    assert b.replace == "    def f(self):\n        return 2\n"


def test_region_rewrite_unfenced_streams():
    text = "    def f(self):\n        return 2\n"
    p, events = feed_in(text, 3, region=REGION)
    assert p.result().blocks[0].replace == text
    assert any(isinstance(e, ReplaceDelta) for e in events[:6])


def test_region_mode_still_reads_blocks():
    text = "<<<<<<< SEARCH\n        return 1\n=======\n        return 3\n>>>>>>> REPLACE\n"
    (b,) = parse_response(text, region_text=REGION)
    assert b.kind == SEARCH_REPLACE


@pytest.mark.parametrize(
    "junk",
    ["", "\n\n", "<<<<<<<", "=======\n>>>>>>> REPLACE\n", "@@ -x +y @@\n", "*** End Patch\n",
     "\x00\x01\x02", "```\n```\n```", "--- \n+++ \n@@", "*** Begin Patch\n@@\n@@\n+x", "\r\r\r\n"],
)
def test_arbitrary_text_never_crashes(junk):
    for size in (1, 3, 100):
        feed_in(junk, size)
        feed_in(junk, size, region="x\n")


def test_fenced_udiff_context_line_without_space_is_context():
    text = "```diff\n@@ -1,4 +1,4 @@\n a\n-b\n+c\nd\n-e\n+f\n```\n"
    (b,) = parse_response(text)
    assert b.search == "a\nb\nd\ne\n" and b.replace == "a\nc\nd\nf\n"


def test_unfenced_udiff_losing_a_prefix_is_a_problem_not_a_half_edit():
    r = parse("@@ -1,4 +1,4 @@\n a\n-b\n+c\nd\n-e\n+f\n")
    assert r.problems and "prefix" in r.problems[0][1]


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_streamed_deltas_equal_the_block_with_crlf(size):
    text = "<<<<<<< SEARCH\r\na\r\n=======\r\nnew \rline\r\n  >>> x\r\n>>>>>>> REPLACE\r\n"
    p, events = feed_in(text, size)
    (b,) = p.result().blocks
    assert b.replace == "new \rline\n  >>> x\n"
    assert "".join(e.delta for e in events if isinstance(e, ReplaceDelta)) == b.replace


def test_long_marker_like_line_is_linear():
    p = StreamParser()
    p.feed("<<<<<<< SEARCH\na\n=======\n")
    for _ in range(20_000):
        assert p.feed("====") == []
    assert p.feed("\n") == [ReplaceDelta(0, "=" * 80_000 + "\n")]


def test_apply_patch_with_unified_diff_hunk_headers():
    text = "*** Begin Patch\n*** Update File: a.py\n@@ -3,2 +3,2 @@ def f():\n-x\n+y\n*** End Patch\n"
    (b,) = parse_response(text)
    assert b.anchor == "def f():" and b.line_hint == 2 and (b.search, b.replace) == ("x\n", "y\n")


def test_region_rewrite_unfenced_code_then_closing_fence_and_prose():
    text = "    def f(self):\n        return 2\n```\nI changed the return value.\n"
    (b,) = parse_response(text, region_text=REGION)
    assert b.replace == "    def f(self):\n        return 2\n"


def test_region_rewrite_prose_first_then_fence_restarts():
    text = "Sure thing.\nHere it is.\nHope you like it.\n```python\n    def f(self):\n        return 3\n```\n"
    r = parse(text, region_text=REGION)
    assert not r.problems and len(r.blocks) == 1
    assert r.blocks[0].replace == "    def f(self):\n        return 3\n"


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_region_rewrite_sentence_then_fence_takes_the_code_block(size):
    text = "The bug is the return value: it must be 2.\n\n```python\n    def f(self):\n        return 2\n```\n"
    p, events = feed_in(text, size, region=REGION)
    (b,) = p.result().blocks
    assert not p.result().problems and b.replace == "    def f(self):\n        return 2\n"
    assert "The bug" not in "".join(e.delta for e in events if isinstance(e, ReplaceDelta))


@pytest.mark.parametrize("size", [1, 5, 1000])
@pytest.mark.parametrize("prose", [
    "The function is already correct.\n",
    "Nothing to change\n",
    "The bug is in the loop bound.\nIt should stop one earlier.\nThat is all.\n",
])
def test_region_rewrite_prose_with_no_code_block_is_a_problem_never_a_rewrite(prose, size):
    p, events = feed_in(prose, size, region=REGION)
    r = p.result()
    assert r.blocks == [] and len(r.problems) == 1 and "no code block" in r.problems[0][1]
    assert not any(isinstance(e, ReplaceDelta) for e in events)
    with pytest.raises(ParseError):
        parse_response(prose, region_text=REGION, strict=True)


@pytest.mark.parametrize("code", ["x = 2\n", "int x = 2;\n"])
def test_region_rewrite_short_unfenced_code_is_still_a_rewrite(code):
    (b,) = parse_response(code, region_text="x = 1\n")
    assert b.replace == code


def test_a_prose_answer_to_a_rewrite_is_refused_where_no_syntax_check_would_catch_it():
    from steer_tui.edits.judge import NO_CODE_FEEDBACK, judge

    text = "let x = 1;\n\nfunction f(x) {\n  return x + 1;\n}\n"
    lines = text.splitlines()
    r = parse("The function is already correct.\n", region_text="\n".join(lines[2:5]) + "\n", region_start=2)
    verdict = judge(r, text, lines, "m.js", "fix f")
    assert verdict.status == "refused" and "no code block" in verdict.reason
    assert verdict.feedback == NO_CODE_FEEDBACK and verdict.new_text == ""


README = "# Microblog\n\nAn example application.\n"
WITH_EXAMPLE = ("```markdown\n# Microblog\n\nAn example application.\n\n## Running the tests\n\n```bash\n"
                "python tests.py\n```\n\nThat is all.\n```\n")


def test_a_rewrite_keeps_a_code_block_of_the_files_own_inside_it():
    """A README's new ```bash example closes with its own fence; the answer's fence comes after.
    Read whole and streamed a character at a time, the rewrite holds the whole example."""
    want = "# Microblog\n\nAn example application.\n\n## Running the tests\n\n```bash\npython tests.py\n```\n\nThat is all.\n"
    assert parse(WITH_EXAMPLE, README, 0).blocks[0].replace == want
    parser = StreamParser(region_text=README, region_start=0)
    for ch in WITH_EXAMPLE:
        parser.feed(ch)
    parser.finish()
    assert parser.result().blocks[0].replace == want


def test_an_inner_block_whose_fence_ends_the_answer_stays_closed_unless_the_region_left_one_open():
    unclosed = "```markdown\n# Microblog\n\n```bash\npython tests.py\n```\n"
    assert parse(unclosed, README, 0).blocks[0].replace == "# Microblog\n\n```bash\npython tests.py\n```\n"
    # The region ends inside a block: the last fence is the answer's, not that block's close.
    open_region = "Run it:\n```python\nx = 1\n"
    assert parse("```\nRun it:\n```python\nx = 2\n```\n", open_region, 0).blocks[0].replace == "Run it:\n```python\nx = 2\n"
