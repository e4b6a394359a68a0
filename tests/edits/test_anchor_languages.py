"""Anchoring a partial region rewrite by steer_tui.lang's definitions (steer_tui.edits.anchor): a class,
impl or struct region whose answer restates one method gets that method replaced and keeps the rest,
in Java, Rust, Go and TypeScript; through the applier (steer_tui.edits.apply) and the judge."""

from __future__ import annotations

import pytest

from steer_tui import lang
from steer_tui.edits.anchor import PartialRewrite, anchor_rewrite
from steer_tui.edits.apply import ApplyError, apply_response
from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from tests.lang.samples import FILES

# (file, recorded answer, 1-based first and last line of the region, the method the answer restates
# as it is in the file, as the answer writes it).
CASES = [
    ("Inventory.java", "rewrite_java_count_only.txt", 10, 51,
     "    public Optional<Integer> count(String sku) {\n",
     "    /** How many of `sku` are in stock, if any. */\n    public Optional<Integer> count(String sku) {\n"),
    ("tokens.rs", "rewrite_rs_new_only.txt", 30, 59,
     "    pub fn new(src: &'a str) -> Self {\n",
     "    /// A lexer over `src`.\n    pub fn new(src: &'a str) -> Self {\n"),
    ("shelf.go", "rewrite_go_count_only.txt", 5, 26,
     "func (s *Shelf) Count(title string) int {\n",
     "// Count says how many copies of title the shelf holds.\nfunc (s *Shelf) Count(title string) int {\n"),
    ("library.ts", "rewrite_ts_held_only.txt", 3, 26,
     "  held(reader: string): Book[] {\n",
     "  /** The books `reader` has on loan (none: an empty list). */\n  held(reader: string): Book[] {\n"),
]
IDS = [c[0] for c in CASES]


def _case(name, answer, first, last):
    text = (FILES / name).read_text()
    lines = text.split("\n")
    return text, lines, "\n".join(lines[first - 1:last]) + "\n", (FILES / answer).read_text()


@pytest.mark.parametrize("name, answer, first, last, old, new", CASES, ids=IDS)
def test_the_applier_anchors_a_method_restated_alone(name, answer, first, last, old, new):
    text, _lines, region, reply = _case(name, answer, first, last)
    assert text.count(old) == 1
    applied = apply_response(text, reply, region_text=region, region_start=first - 1, path=name)
    assert applied.new_text == text.replace(old, new)
    assert not lang.syntax_errors(name, applied.new_text)


@pytest.mark.parametrize("name, answer, first, last, old, new", CASES, ids=IDS)
def test_the_judge_proposes_the_anchored_rewrite(name, answer, first, last, old, new):
    text, lines, region, reply = _case(name, answer, first, last)
    verdict = judge(parse(reply, region, first - 1), text, document_lines(text)[0], name, "document it")
    assert verdict.status == "proposal" and verdict.new_text == text.replace(old, new)


def test_without_the_language_the_header_guess_puts_the_method_in_place_of_the_class_head():
    # What the layer fixes: a file of no language the layer knows keeps the header regex, which
    # matches the new comment to the class's own and replaces the class's head with the method.
    text, lines, region, reply = _case(*CASES[0][:4])
    applied = apply_response(text, reply, region_text=region, region_start=9, path="Inventory.txt")
    assert "public class Inventory {" not in applied.new_text


JAVA = """public class Stock {
    private int n;

    public int count() {
        return n;
    }

    public void add(int k) {
        n += k;
    }

    public void take(int k) {
        n -= k;
    }

    public boolean empty() {
        return n == 0;
    }
}"""


def _anchored(new: str, allow=False) -> str:
    region = JAVA.split("\n")
    a, b, lines, _kept = anchor_rewrite(region, new.split("\n"), allow, path="Stock.java")
    return "\n".join(region[:a] + lines + region[b:])


def test_methods_left_out_between_restated_ones_stay():
    # count and empty restated (empty changed), add and take between them left out: they stay.
    new = JAVA.replace("return n == 0;", "return n <= 0;").split("\n")
    answer = "\n".join(new[3:6] + [""] + new[15:18])
    assert _anchored(answer) == JAVA.replace("return n == 0;", "return n <= 0;")


def test_a_method_dropped_from_a_restated_class_is_refused():
    # The class restated with take gone: not a run the answer left out around what it restates,
    # but a deletion nobody asked for (the header regex saw no Java method and let it go).
    answer = JAVA.replace("    public void take(int k) {\n        n -= k;\n    }\n\n", "")
    with pytest.raises(PartialRewrite, match="public void take"):
        _anchored(answer.replace("n += k;", "n += Math.abs(k);"))
    assert _anchored(answer, allow=frozenset({"take"})) == answer


def test_a_method_the_instruction_deletes_goes_and_the_rest_stays():
    # "delete take and make add ignore negative k": the answer restates add alone.
    answer = "    public void add(int k) {\n        n += Math.max(k, 0);\n    }"
    got = _anchored(answer, allow=frozenset({"take"}))
    assert got == JAVA.replace("n += k;", "n += Math.max(k, 0);").replace(
        "    public void take(int k) {\n        n -= k;\n    }\n\n", "")


def test_a_rewrite_of_the_whole_class_is_the_whole_class():
    answer = JAVA.replace("public class Stock {", "public final class Stock {").replace("n -= k;", "n -= Math.min(k, n);")
    assert _anchored(answer) == answer


def test_python_anchoring_is_the_same_with_and_without_its_path():
    region = ["class Stack:", "    def __init__(self):", "        self.items = []", "",
              "    def push(self, x):", "        self.items.append(x)", "", "    def pop(self):",
              "        return self.items.pop()"]
    new = ["    def push(self, x):", '        """Put x on top."""', "        self.items.append(x)"]
    assert anchor_rewrite(region, new, path="s.py") == anchor_rewrite(region, new) == (
        4, 6, new, [(0, 4), (6, 9)])


def test_a_region_of_methods_is_parsed_where_it_stands():
    # Three TypeScript methods alone do not parse as methods; in their file they do. The answer
    # restates lend and size, changed, and leaves out held between them: held stays.
    text = (FILES / "library.ts").read_text()
    lines = text.split("\n")
    region = lines[8:25]  # lend, held, size
    assert region[0].strip().startswith("lend(") and region[-1] == "  }"
    changed = [x.replace("?? []", "|| []").replace("return n;", "return Math.max(n, 0);") for x in region]
    answer = changed[:5] + [""] + changed[10:]
    a, b, got, _kept = anchor_rewrite(region, answer, path="library.ts", context=(lines, 8))
    assert region[:a] + got + region[b:] == changed[:6] + region[6:9] + changed[9:]
    a, b, got, _kept = anchor_rewrite(region, answer, path="library.ts")  # no definitions seen: held is lost
    assert "held(reader: string): Book[] {" not in "\n".join(region[:a] + got + region[b:])


def test_each_restated_method_is_anchored_to_its_own():
    # count and empty restated, both changed: the line matcher alone pairs count's `}` and blank
    # line with take's and puts empty in place of add.
    want = JAVA.replace("return n;", "return Math.max(n, 0);").replace(
        "    public boolean empty() {", "    /** No stock left. */\n    public boolean empty() {")
    new = want.split("\n")
    assert _anchored("\n".join(new[3:6] + [""] + new[15:19])) == want


def test_the_names_an_instruction_deletes_are_the_layer_s_definitions():
    from steer_tui.edits.anchor import asks_to_delete, may_delete

    lines = JAVA.split("\n")
    words = "delete take and make add ignore negative k"
    assert may_delete(words, lines, "Stock.java") == frozenset({"take"})
    assert may_delete(words, lines) is True  # the header regex sees no Java method: anything may go
    remover = JAVA.replace("take(", "remove(")
    assert not asks_to_delete("make remove return the new count", remover.split("\n"), "Stock.java")
    assert asks_to_delete("make remove return the new count", remover.split("\n"))


def test_the_judge_deletes_the_named_method_and_keeps_the_rest():
    region = JAVA + "\n"
    reply = "```java\n    public void add(int k) {\n        n += Math.max(k, 0);\n    }\n```\n"
    words = "delete take and make add ignore negative k"
    verdict = judge(parse(reply, region, 0), region, document_lines(region)[0], "Stock.java", words)
    assert verdict.status == "proposal" and verdict.new_text == region.replace("n += k;", "n += Math.max(k, 0);").replace(
        "    public void take(int k) {\n        n -= k;\n    }\n\n", "")


RUST = """use std::fmt;

#[derive(Debug, Clone)]
pub struct Point {
    x: f64,
    y: f64,
}

#[cfg(test)]
mod tests {
    #[test]
    fn zero() {
        assert_eq!(0, 0);
    }
}"""


def test_an_attribute_or_template_head_the_answer_leaves_out_stays():
    # The answer restates the struct with a new doc comment and without its attribute: a changed
    # line by the line matcher, so the doc comment took the attribute's place.
    region = RUST.split("\n")
    new = ["/// A point on the plane.", "pub struct Point {", "    x: f64,", "    y: f64,", "}"]
    a, b, lines, _kept = anchor_rewrite(region, new, path="p.rs")
    assert region[:a] + lines + region[b:] == region[:3] + new[:1] + region[3:]
    cpp = ["template <typename T>", "T twice(T a) {", "    return a + a;", "}"]
    a, b, lines, _kept = anchor_rewrite(cpp, ["// Twice a.", *cpp[1:]], path="v.cpp")
    assert cpp[:a] + lines + cpp[b:] == cpp[:1] + ["// Twice a.", *cpp[1:]]
    # A changed attribute is a changed line.
    changed = ["#[derive(Debug, Clone, Copy)]", *region[3:7]]
    a, b, lines, _kept = anchor_rewrite(region, changed, path="p.rs")
    assert region[:a] + lines + region[b:] == region[:2] + changed + region[7:]


STOCK = """package shop;

import java.util.List;
import java.util.Map;

interface Listener {
    void changed(int n);
}

/** Stock of one item. */
final class Stock {
    private int n;

    public int count() {
        return n;
    }
}
"""


def test_an_answer_that_opens_with_the_file_s_imports_does_not_copy_them_into_the_class():
    # The class is further down the file, after an interface: the header regex finds no definition
    # there, so the package and imports the answer opened with went in twice, mid-file.
    lines = STOCK.split("\n")
    start = lines.index("/** Stock of one item. */")
    region = "\n".join(lines[start:-1]) + "\n"
    changed = region.replace("return n;", "return Math.max(n, 0);")
    reply = "```java\n" + "\n".join(lines[:5]) + "\n" + changed + "```\n"
    applied = apply_response(STOCK, reply, region_text=region, region_start=start, path="Stock.java")
    assert applied.new_text == STOCK.replace("return n;", "return Math.max(n, 0);")
    kept = apply_response(STOCK, reply, region_text=region, region_start=start, path="Stock.txt")
    assert kept.new_text.count("import java.util.List;") == 2


SOLUTION = """import java.util.*;

class Solution {
    public int twice(int x) {
        return x + x + 1;
    }
}
"""


def test_a_method_rewrite_that_closes_with_its_class_brace_keeps_one_class_brace():
    """Asked to rewrite the last method of a class, the small model closes its answer with the class's
    `}` too: the same text as the method's own `}` but for the indentation, which tells the echo of
    the line below from the region's last line. Without the path (no language) it is not told apart."""
    from steer_tui.edits.anchor import strip_echoed_context

    lines = SOLUTION.splitlines()
    answer = ["    public int twice(int x) {", "        return x + x;", "    }", "}"]
    fixed = strip_echoed_context(lines, 3, 6, answer, "Solution.java")
    assert fixed == answer[:-1]
    assert strip_echoed_context(lines, 3, 6, answer, None) == answer  # Python's rule: indentation aside
    new_text = "\n".join(lines[:3] + fixed + lines[6:]) + "\n"
    assert not lang.syntax_errors("Solution.java", new_text)


@pytest.mark.parametrize("path, region, answer, name", [
    # The import above a function and a comment in its place: nothing in common with the region.
    ("paren.py", ["def split_groups(text):", "    depth = 0", "    return [text]"],
     ["from typing import List", "", "", "# ... the region ..."], "def split_groups"),
    ("Solution.java", ["    public int total(int[] xs) {", "        int t = 0;", "        return t;", "    }"],
     ["import java.util.*;", "", "// the method, as before"], "public int total"),
])
def test_a_whole_region_answer_that_defines_nothing_and_names_nothing_is_refused(path, region, answer, name):
    """An answer that shares no line with the region is a new version of it, taken whole; but one that
    defines nothing and never names the region's definition is no version of it: it would delete it."""
    with pytest.raises(PartialRewrite, match=name):
        anchor_rewrite(region, answer, path=path)
    assert anchor_rewrite(region, answer, True, path=path)[2]  # asked to delete anything, it stands


def test_a_whole_region_answer_that_defines_something_new_stands():
    region = ["def split_groups(text):", "    depth = 0", "    return [text]"]
    answer = ["class Splitter:", "    def run(self, text):", "        return text.split()"]
    assert anchor_rewrite(region, answer, path="paren.py") == (0, 3, answer, [])
