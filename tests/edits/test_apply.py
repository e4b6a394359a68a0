"""Applier: all-or-nothing, already-applied, refusals with feedback, final newline kept."""

from __future__ import annotations

import pytest

from steer_tui.edits.apply import ApplyError, apply_blocks, apply_response
from steer_tui.edits.blocks import EditBlock

TEXT = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def sr(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def test_two_blocks_apply_in_order():
    resp = sr("    return 1\n", "    return 10\n") + sr("    return 2\n", "    return 20\n")
    res = apply_response(TEXT, resp)
    assert res.new_text == TEXT.replace("return 1", "return 10").replace("return 2", "return 20")
    assert [b.status for b in res.blocks] == ["applied", "applied"]


def test_later_block_sees_earlier_blocks_result():
    resp = sr("    return 1\n", "    return 100\n") + sr("    return 100\n", "    return 1000\n")
    assert "return 1000" in apply_response(TEXT, resp).new_text


def test_all_or_nothing():
    resp = sr("    return 1\n", "    return 10\n") + sr("    return 99\n", "    return 20\n")
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, resp)
    err = e.value
    assert err.block_index == 1 and err.reason == "not_found"
    assert "2 of 2" in err.message
    # feedback names the missing line and shows the closest real lines with numbers
    assert "return 99" in err.feedback and "6 |     return 2" in err.feedback
    assert "Nothing was changed" in err.feedback


def test_ambiguous_refusal_lists_places():
    text = "x = 1\ny = 2\nx = 1\n"
    with pytest.raises(ApplyError) as e:
        apply_response(text, sr("x = 1\n", "x = 5\n"))
    assert e.value.reason == "ambiguous" and "1 | x = 1" in e.value.feedback and "3 | x = 1" in e.value.feedback


def test_already_applied_writes_nothing():
    resp = sr("    return 1\n", "    return 10  # changed\n")
    once = apply_response(TEXT, resp).new_text
    again = apply_response(once, resp)
    assert again.new_text == once and again.already_applied == [0]


def test_pure_insertion_is_not_applied_twice():
    resp = sr("def b():\n", "def b():\n    '''Return two, always.'''\n")
    once = apply_response(TEXT, resp).new_text
    again = apply_response(once, resp)
    assert again.new_text == once and again.already_applied == [0]


def test_short_replacement_is_not_taken_as_already_applied():
    with pytest.raises(ApplyError):
        apply_response("a\nb\n", sr("zz\n", "b\n"))


def test_final_newline_absent_is_kept():
    res = apply_response("a\nb", sr("b\n", "c\nd\n"))
    assert res.new_text == "a\nc\nd"


def test_no_blocks_is_refused():
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, "I think the code is fine as it is.")
    assert e.value.reason == "no_blocks"


def test_malformed_block_refuses_everything():
    resp = sr("    return 1\n", "    return 10\n") + "<<<<<<< SEARCH\n    return 2\n=======\n    return 3\n"
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, resp)
    assert e.value.reason == "malformed" and e.value.block_index == 1


def test_empty_search_creates_only_in_empty_file():
    assert apply_response("", sr("", "hello\n")).new_text == "hello\n"
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, sr("", "hello\n"))
    assert e.value.reason == "empty_search"


def test_udiff_wrong_line_numbers_still_apply():
    resp = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -400,2 +400,2 @@\n def b():\n-    return 2\n+    return 3\n```\n"
    assert apply_response(TEXT, resp).new_text == TEXT.replace("return 2", "return 3")


def test_apply_patch_add_file_to_empty_and_existing():
    resp = "*** Begin Patch\n*** Add File: new.py\n+x = 1\n*** End Patch\n"
    assert apply_response("", resp).new_text == "x = 1\n"
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, resp)
    assert e.value.reason == "file_exists"


def test_multi_file_patch_applies_only_our_file():
    resp = (
        "*** Begin Patch\n*** Update File: pkg/other.py\n@@\n-zzz\n+yyy\n"
        "*** Update File: pkg/mine.py\n@@\n-    return 1\n+    return 5\n*** End Patch\n"
    )
    res = apply_response(TEXT, resp, path="/repo/pkg/mine.py")
    assert res.new_text == TEXT.replace("return 1", "return 5")
    assert [b.status for b in res.blocks] == ["applied", "other_file"]
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, resp, path="/repo/elsewhere.py")
    assert e.value.reason == "other_file"


def test_region_rewrite_uses_the_given_position_and_indentation():
    text = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n"
    region = "    def g(self):\n        return 1\n"
    resp = "```python\ndef g(self):\n    return 2\n```"
    res = apply_response(text, resp, region_text=region, region_start=4)
    assert res.new_text == text[: text.index("    def g")] + "    def g(self):\n        return 2\n"


def test_apply_blocks_with_plain_editblocks():
    res = apply_blocks(TEXT, [EditBlock("search_replace", "    return 2\n", "    return 4\n")])
    assert res.new_text.endswith("return 4\n") and res.changes[0].strategy == "exact"


def test_reported_lines_are_right_in_any_block_order():
    text = "".join(f"line {i}\n" for i in range(10))
    resp = sr("line 7\n", "seven\nand more\n") + sr("line 2\n", "two\n") + sr("line 8\n", "eight\n")
    res = apply_response(text, resp)
    assert [(b.start, b.end, b.new_end) for b in res.blocks] == [(7, 8, 9), (2, 3, 3), (9, 10, 10)]
    assert res.new_text.splitlines()[7:10] == ["seven", "and more", "eight"]


def test_blocks_without_final_newlines_match_whole_lines_only():
    text = "x = 10\nx = 1\n"
    res = apply_blocks(text, [EditBlock("search_replace", "x = 1", "x = 2")])
    assert res.new_text == "x = 10\nx = 2\n"


@pytest.mark.parametrize("ph", ["    # ... existing code ...", "    // ... rest of the function", "    # ..."])
def test_lazy_placeholder_in_replace_is_refused(ph):
    resp = sr("def a():\n    return 1\n", f"def a():\n{ph}\n    log()\n")
    with pytest.raises(ApplyError) as e:
        apply_response(TEXT, resp)
    assert e.value.reason == "placeholder" and "in full" in e.value.feedback


def test_bare_ellipsis_in_python_is_code_not_a_placeholder():
    res = apply_response(TEXT, sr("    return 1\n", "    ...\n"))
    assert res.new_text.startswith("def a():\n    ...\n")


def test_multi_file_search_replace_response_applies_only_our_blocks():
    resp = (
        "src/mine.py\n```python\n" + sr("    return 1\n", "    return 7\n") + "```\n"
        "Then, in the same file:\n```python\n" + sr("    return 2\n", "    return 8\n") + "```\n"
        "src/other.py\n```python\n" + sr("zzz\n", "yyy\n") + "```\n"
    )
    res = apply_response(TEXT, resp, path="/repo/src/mine.py")
    assert res.new_text == TEXT.replace("return 1", "return 7").replace("return 2", "return 8")
    assert [b.status for b in res.blocks] == ["applied", "applied", "other_file"]
