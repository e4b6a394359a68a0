"""steer_tui.edits.restated in languages steer_tui.lang knows besides Python: a definition written twice,
a class written again inside itself, a function copied into a type; and the judge's refusal of them."""

from __future__ import annotations

from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from steer_tui.edits.restated import copied_definitions, restated_classes, restated_definitions
from tests.lang.samples import FILES

POINT = (FILES / "point.rs").read_text()
NORM = "    pub fn norm(&self) -> f64 {\n        (self.x * self.x + self.y * self.y).sqrt()\n    }\n"
INVENTORY = (FILES / "Inventory.java").read_text()
COUNT = "    public Optional<Integer> count(String sku) {\n        return Optional.ofNullable(counts.get(sku));\n    }\n"
TOKENS = (FILES / "tokens.rs").read_text()


def test_a_method_written_twice_is_restated_and_an_overload_or_a_second_impl_is_not():
    assert NORM in POINT and COUNT in INVENTORY
    twice = POINT.replace(NORM, NORM + "\n" + NORM.replace(".sqrt()", ".sqrt() "))
    assert restated_definitions(POINT, twice, "point.rs") == ["Point.norm"]
    assert restated_definitions(POINT, POINT + "\nimpl Point {\n    fn zero() -> Self {\n        Point { x: 0.0, y: 0.0 }\n    }\n}\n",
                                "point.rs") == []
    overload = COUNT + "\n" + COUNT.replace("(String sku)", "(String sku, int least)")
    assert restated_definitions(INVENTORY, INVENTORY.replace(COUNT, overload), "Inventory.java") == []
    assert restated_definitions(INVENTORY, INVENTORY.replace(COUNT, COUNT + "\n" + COUNT), "Inventory.java") == [
        "Inventory.count"]
    assert restated_definitions(POINT, twice[:-30], "point.rs") == []  # does not parse: not judged here
    assert restated_definitions(POINT, twice, "point.txt") == []  # no language


def test_a_class_written_again_inside_itself():
    body = INVENTORY[INVENTORY.index("/** Items in stock"):]
    nested = INVENTORY.replace(COUNT, COUNT + "\n" + "\n".join("    " + x if x else x for x in body.split("\n")))
    assert restated_classes(INVENTORY, nested, "Inventory.java") == ["Inventory.Inventory"]
    inner = INVENTORY.replace(COUNT, COUNT + "\n    static class Entry {\n        int n;\n    }\n")
    assert restated_classes(INVENTORY, inner, "Inventory.java") == []


COUNTS = TOKENS[TOKENS.index("pub fn counts"):]


def test_a_function_copied_into_an_impl_and_not_moved():
    method = "\n".join("    " + x if x else x for x in COUNTS.rstrip("\n").split("\n"))
    copied = TOKENS.replace("        Ok(out)\n    }\n}\n", "        Ok(out)\n    }\n\n" + method + "\n}\n")
    assert copied != TOKENS
    assert copied_definitions(TOKENS, copied, "tokens.rs") == ["Lexer.counts"]
    moved = copied.replace("\n" + COUNTS, "")
    assert "\npub fn counts" not in moved and copied_definitions(TOKENS, moved, "tokens.rs") == []


LIBRARY = (FILES / "library.ts").read_text()


def test_the_judge_refuses_a_method_rewrite_that_runs_on_into_the_next_method():
    lines = LIBRARY.split("\n")
    region = "\n".join(lines[14:17]) + "\n"  # held
    assert region.startswith("  held(")
    size = "\n".join(lines[18:25]).replace("n += books.length;", "n = n + books.length;")
    reply = "```typescript\n" + region.replace("?? []", "|| []") + "\n" + size + "\n```\n"
    verdict = judge(parse(reply, region, 14), LIBRARY, document_lines(LIBRARY)[0], "library.ts", "make held use ||")
    assert verdict.status == "refused" and verdict.reason == "the answer defines `Library.size` a second time"
    alone = "```typescript\n" + region.replace("?? []", "|| []") + "```\n"
    assert judge(parse(alone, region, 14), LIBRARY, document_lines(LIBRARY)[0], "library.ts", "make held use ||").status == "proposal"
