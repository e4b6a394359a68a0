"""steer_tui.edits.proposal, judge and rebase driven with strings: no session, no backend."""

from __future__ import annotations

from steer_tui.edits.judge import asks_for_nothing, judge
from steer_tui.edits.lines import document_lines, join_lines, unified_diff
from steer_tui.edits.livediff import LiveDiff
from steer_tui.edits.parse import StreamParser
from steer_tui.edits.proposal import ProposalBuilder
from steer_tui.edits.rebase import carry_over, diff_hunks, relocate

FILE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
ANSWER = """Here it is.

<<<<<<< SEARCH
def sub(a, b):
    return a - b
=======
def subtract(a, b):
    return a - b
>>>>>>> REPLACE
"""


def fed(answer: str, text: str = FILE, step: int = 3, region=None) -> ProposalBuilder:
    builder = ProposalBuilder(LiveDiff(document_lines(text)[0]), region, "rename sub", "calc.py")
    for i in range(0, len(answer), step):
        builder.feed(answer[i : i + step])
    return builder


def test_a_block_is_located_while_its_replace_streams():
    cut = ANSWER.index("def subtract") + 10
    builder = fed(ANSWER[:cut])
    (block,) = builder.blocks.values()
    assert block.status == "located" and (block.start, block.end) == (4, 6)
    assert builder.live.hunk_count == 1
    assert builder.raw_text == ANSWER[:cut]


def test_a_finished_answer_is_judged_and_the_live_diff_agrees():
    builder = fed(ANSWER)
    builder.finish()
    verdict = builder.judge(FILE)
    assert verdict.status == "proposal"
    assert verdict.new_text == FILE.replace("def sub(", "def subtract(")
    assert join_lines(builder.live.new_lines(), True) == verdict.new_text


def test_esc_drops_the_half_written_block():
    builder = fed(ANSWER[: ANSWER.index("=======") + 12])
    builder.drop_partial(keep_closed=True)
    assert builder.live.hunk_count == 0
    assert [b.status for b in builder.blocks.values()] == ["dropped"]


def test_a_search_not_in_the_file_is_refused_with_the_closest_lines():
    builder = fed(ANSWER.replace("return a - b\n=======", "return a - b + 0\n======="))
    builder.finish()
    verdict = builder.judge(FILE)
    assert verdict.status == "refused" and builder.live.hunk_count == 0
    assert "Block 1" in builder.feedback() and "return a - b" in builder.feedback()


def test_an_edit_already_in_the_file_is_nothing_to_change():
    done = FILE.replace("def sub(a, b):\n", "def sub(a, b):\n    if a is None:\n        raise ValueError(\"a is None\")\n")
    answer = ("<<<<<<< SEARCH\ndef sub(a, b):\n    return a - b\n=======\ndef sub(a, b):\n    if a is None:\n"
              "        raise ValueError(\"a is None\")\n    return a - b\n>>>>>>> REPLACE\n")
    builder = fed(answer, text=done)
    builder.finish()
    verdict = builder.judge(done)
    assert (verdict.status, verdict.already_applied) == ("nothing", True)


def test_judge_refuses_search_equal_to_replace_that_is_not_in_the_file():
    answer = "<<<<<<< SEARCH\ndef mul(a, b):\n=======\ndef mul(a, b):\n>>>>>>> REPLACE\n"
    parser = StreamParser()
    parser.feed(answer)
    parser.finish()
    verdict = judge(parser.result(), FILE, document_lines(FILE)[0], "calc.py", "add mul")
    assert verdict.status == "refused" and "`def mul(a, b):` does not occur" in verdict.feedback


def test_a_steered_answer_starts_over():
    builder = fed(ANSWER)
    builder.restart()
    assert builder.raw_text == "" and builder.blocks == {} and builder.live.hunk_count == 0
    builder.feed(ANSWER)
    builder.finish()
    assert builder.judge(FILE).status == "proposal"


def test_rebase_carries_hunks_over_lines_added_above_and_refuses_lost_ones():
    old = document_lines(FILE)[0]
    new = ["# header"] + old
    assert relocate(old, new, 4, 6) == (5, 7)
    assert carry_over(old, new, [(4, 6, ["x"])]) == [(5, 7, ["x"])]
    gone = [line for line in old if "a - b" not in line]
    assert carry_over(old, gone, [(4, 6, ["x"])]) is None
    assert diff_hunks(old, new) == [(0, 0, ["# header"])]


def test_document_lines_and_the_diff():
    assert document_lines("") == ([], True)
    assert document_lines("a\nb") == (["a", "b"], False)
    assert join_lines(["a", "b"], False) == "a\nb"
    assert unified_diff("f", "a\n", "a").endswith("\\ No newline at end of file\n")


def test_instructions_that_allow_no_change():
    assert asks_for_nothing("fix it if needed") and not asks_for_nothing("rename sub")


SPAN = """class Inventory:
    def remove(self, name):
        del self.items[name]

    def total_value(self):
        return sum(self.items.values())

    def cheapest(self):
        return min(self.items.values())
"""


def test_a_method_named_like_a_deletion_is_not_a_request_to_delete():
    from steer_tui.edits.anchor import asks_to_delete

    lines = SPAN.splitlines()
    for asked in ("make remove raise KeyError", "add a docstring to remove", "fix `remove`",
                  "make remove raise KeyError\nalso add a docstring to cheapest",
                  "make add and remove return the new quantity", "add a docstring and remove cheapest"):
        assert asks_to_delete(asked) and not asks_to_delete(asked, lines), asked
    # Where the word starts a clause it is the verb, name or not; words that name nothing count anywhere.
    for asked in ("remove total_value", "add a docstring, then remove cheapest", "please remove the remove method",
                  "add a docstring; remove cheapest", "add a docstring, and remove cheapest",
                  "no, just remove it", "in remove, drop the print", "make it delete stale items"):
        assert asks_to_delete(asked, lines), asked


def test_an_answer_bringing_back_one_method_of_a_span_keeps_the_others_when_remove_is_a_name():
    # The region runs from remove to cheapest; the answer is cheapest alone, with a docstring.
    answer = '```python\n    def cheapest(self):\n        """The cheapest item."""\n        return min(self.items.values())\n```\n'
    for instruction, kept in (("make remove raise KeyError\nalso add a docstring to cheapest", True),
                              ("delete remove and total_value, and add a docstring to cheapest", False)):
        builder = ProposalBuilder(LiveDiff(document_lines(SPAN)[0]), (1, 9), instruction, "inventory.py")
        builder.feed(answer)
        builder.finish()
        verdict = builder.judge(SPAN)
        assert verdict.status == "proposal"
        assert ("def remove(" in verdict.new_text and "def total_value(" in verdict.new_text) is kept
        assert '"""The cheapest item."""' in verdict.new_text


def test_a_deletion_names_what_may_go():
    from steer_tui.edits.anchor import may_delete

    lines = SPAN.splitlines()
    assert may_delete("make remove raise KeyError", lines) is False
    assert may_delete("delete the cheapest method", lines) == {"cheapest"}
    assert may_delete("please remove the remove method", lines) == {"remove"}
    assert may_delete("remove total_value and cheapest", lines) == {"total_value", "cheapest"}
    # The object of the deletion, not what it is taken from or what the rest of the request names.
    assert may_delete("delete the remove method from Inventory", lines) == {"remove"}
    assert may_delete("remove cheapest and do its work inside total_value", lines) == {"cheapest"}
    # No definition named: the answer is taken as the whole region, as before.
    assert may_delete("remove the debug prints", lines) is True
    assert may_delete("delete the cheapest method") is True


def _judged(text, region, instruction, answer):
    builder = ProposalBuilder(LiveDiff(document_lines(text)[0]), region, instruction, "inventory.py")
    builder.feed(answer)
    builder.finish()
    return builder.judge(text)


def test_a_deletion_that_names_a_method_keeps_the_methods_the_answer_also_left_out():
    # Asked to delete cheapest, the answer brings back the class without cheapest and without
    # total_value: cheapest goes, total_value stays where it was.
    answer = "```python\nclass Inventory:\n    def remove(self, name):\n        del self.items[name]\n```\n"
    verdict = _judged(SPAN, (0, 9), "delete the cheapest method", answer)
    assert verdict.status == "proposal", verdict.reason
    assert "def cheapest(" not in verdict.new_text
    assert verdict.new_text == SPAN.replace("\n    def cheapest(self):\n        return min(self.items.values())\n", "")
    # Only the method asked for, between two others: it goes and they stay.
    answer = ("```python\nclass Inventory:\n    def remove(self, name):\n        del self.items[name]\n\n"
              "    def cheapest(self):\n        return min(self.items.values())\n```\n")
    verdict = _judged(SPAN, (0, 9), "remove total_value", answer)
    assert verdict.status == "proposal", verdict.reason
    assert "total_value" not in verdict.new_text and "def remove(" in verdict.new_text and "def cheapest(" in verdict.new_text


def test_an_answer_that_copies_functions_from_elsewhere_into_the_class_is_refused():
    text = SPAN + "\n\ndef load(lines):\n    return Inventory()\n"
    answer = "```python\n    def load(lines):\n        return Inventory()\n```\n"
    verdict = _judged(text, (7, 9), "remove cheapest and total_value", answer)
    assert verdict.status == "refused" and "copies `Inventory.load`" in verdict.reason, verdict.reason
    # Moved, not copied: the original is gone from the new text.
    from steer_tui.edits.restated import copied_definitions

    moved = SPAN.replace("    def cheapest", "    def load(lines):\n        return Inventory()\n\n    def cheapest")
    assert copied_definitions(text, moved) == [] and copied_definitions(text, moved + text[len(SPAN):]) == ["Inventory.load"]
    # A method like one of another class may be meant.
    two = "class A:\n    def size(self):\n        return 0\n\n\nclass B:\n    pass\n"
    assert copied_definitions(two, two.replace("    pass", "    def size(self):\n        return 0")) == []


def test_a_deletion_answered_with_an_empty_stub_is_refused():
    answer = "```python\n    def cheapest(self):\n        pass\n```\n"
    verdict = _judged(SPAN, (7, 9), "delete the cheapest method", answer)
    assert verdict.status == "refused"
    assert "stub" in verdict.reason and "Leave the whole definition out" in verdict.feedback
    # Asked for the stub, it is one.
    assert _judged(SPAN, (7, 9), "replace the body of cheapest with pass", answer).status == "proposal"


def test_an_answer_built_on_an_earlier_one_keeps_the_earlier_changes_it_leaves_out():
    from steer_tui.edits.rebase import with_earlier

    old = ["a", "b", "c", "d", "e", "f"]
    # Apart: both stand.
    assert with_earlier(old, ["a", "B", "c", "d", "e", "f"], ["a", "b", "c", "d", "E", "f"]) == ["a", "B", "c", "d", "E", "f"]
    assert with_earlier(old, ["a", "x", "b", "c", "d", "e", "f"], old + ["z"]) == ["a", "x", "b", "c", "d", "e", "f", "z"]
    # The same or adjacent lines: the later answer was shown the earlier change there, and stands.
    assert with_earlier(old, ["a", "B", "c", "d", "e", "f"], ["a", "b2", "c", "d", "E", "f"]) == ["a", "b2", "c", "d", "E", "f"]
    assert with_earlier(old, ["a", "B", "c", "d", "e", "f"], ["a", "b", "C", "d", "e", "f"]) == ["a", "b", "C", "d", "e", "f"]


def test_two_edits_made_apart_merge_only_where_their_order_is_not_a_guess():
    from steer_tui.edits.rebase import merge_apart

    old = ["def f():", "    a", "    b", "    c"]
    doc = ["def f():", '    """F."""', "    a", "    b", "    c"]
    # Apart, or side by side: both stand; an insertion before a line changed in place stays before it.
    assert merge_apart(old, doc, ["def f():", "    a", "    b", "    C"]) == ['def f():', '    """F."""', "    a", "    b", "    C"]
    assert merge_apart(old, doc, ["def f():", "    A", "    b", "    c"]) == ["def f():", '    """F."""', "    A", "    b", "    c"]
    assert merge_apart(old, ["def f():", "    A", "    b", "    c"], ["def f():", "    a", "    B", "    c"]) == \
        ["def f():", "    A", "    B", "    c"]
    # The same change in both is made once.
    assert merge_apart(old, doc, ["def f():", '    """F."""', "    a", "    b", "    C"]) == \
        ["def f():", '    """F."""', "    a", "    b", "    C"]
    # Clashes: one line changed by both, two insertions at one place, an insertion inside a change or
    # at the edge of one that grows (difflib joins an insertion there into it).
    assert merge_apart(old, ["def f():", "    A", "    b", "    c"], ["def f():", "    a2", "    b", "    c"]) is None
    assert merge_apart(old, doc, ["def f():", '    """G."""', "    a", "    b", "    c"]) is None
    assert merge_apart(old, ["def f():", "    a", "    x", "    b", "    c"], ["def f():", "    A", "    B", "    c"]) is None
    assert merge_apart(old, doc, ["def f():", '    """G."""', "    A", "    b", "    c"]) is None


def test_a_method_named_like_a_copy_is_not_a_request_to_repeat_lines():
    from steer_tui.edits.anchor import asks_to_repeat

    text = "class Box:\n    def copy(self):\n        return Box()\n\n    def size(self):\n        return 0\n"
    lines = text.splitlines()
    assert asks_to_repeat("make copy return a deep copy") and not asks_to_repeat("make copy return a deep copy", lines)
    assert asks_to_repeat("copy size into a new method named length", lines)
    # Not a request to repeat: an answer that writes size a second time after copy is refused.
    answer = ("```python\n    def copy(self):\n        return Box(*self.items)\n\n    def size(self):\n        return 0\n```\n")
    builder = ProposalBuilder(LiveDiff(document_lines(text)[0]), (1, 3), "make copy return a deep copy", "box.py")
    builder.feed(answer)
    builder.finish()
    verdict = builder.judge(text)
    assert verdict.status == "refused" and "size" in verdict.reason
