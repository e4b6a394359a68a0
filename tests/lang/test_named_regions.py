"""prompts.rewrite_region in a language steer_tui.lang knows: a definition the instruction names is the
region, found by the grammar as Python's `ast` finds it; the turn (Session.scoped) and the typing prewarm
take the same region."""

from __future__ import annotations

from steer_tui import prompts
from tests.session.conftest import replay  # noqa: F401  (the fixture)

from .samples import FILES

INVENTORY = (FILES / "Inventory.java").read_text()
TOKENS = (FILES / "tokens.rs").read_text()
LINES = INVENTORY.splitlines()


def test_the_method_an_instruction_names_is_the_region():
    a, b = prompts.rewrite_region(INVENTORY, "make level return EMPTY for negatives", path="Inventory.java")
    assert LINES[a].strip() == "public Level level(String sku) {" and LINES[b - 1] == "    }" and b == 43
    # Two names: the span over both.
    a, b = prompts.rewrite_region(INVENTORY, "document count and level", path="Inventory.java")
    assert LINES[a].strip().startswith("public Optional<Integer> count(") and b == 43
    a, b = prompts.rewrite_region(TOKENS, "make counts skip parens", path="tokens.rs")
    assert TOKENS.splitlines()[a].startswith("pub fn counts(") and b == len(TOKENS.splitlines())


def test_without_a_name_or_a_language_the_region_is_the_file():
    whole = (0, len(LINES))
    assert prompts.rewrite_region(INVENTORY, "fix the bug", path="Inventory.java") == whole
    assert prompts.rewrite_region(INVENTORY, "make level return EMPTY for negatives") == whole  # no path: `ast` only
    assert prompts.rewrite_region(INVENTORY, "make level return EMPTY for negatives", path="Inventory.txt") == whole


def test_the_cursor_takes_the_grammar_s_definition():
    a, b = prompts.rewrite_region(INVENTORY, "fix it", line=28, path="Inventory.java")
    assert LINES[a].strip().startswith("public Optional<Integer> count(") and b == 30


def test_the_typing_prewarm_warms_the_region_the_turn_will_send():
    from steer_tui.typing_prewarm import plan

    words = "make level return EMPTY for negatives "
    warm = plan(INVENTORY, words, None, None, path="Inventory.java")
    assert warm is not None and warm.region == prompts.rewrite_region(INVENTORY, words, path="Inventory.java")
    assert LINES[warm.region[0]].strip().startswith("public Level level(")
    assert plan(INVENTORY, words, None, None) is None  # by `ast` alone it names nothing: the whole file


async def test_a_turn_without_a_region_rewrites_the_java_method_its_words_name(replay, tmp_path):  # noqa: F811
    import shutil

    from tests.session.conftest import session_on

    target = tmp_path / "Inventory.java"
    shutil.copy(FILES / "Inventory.java", target)
    url, _ = await replay([])
    async with session_on(url, target, edit_format="rewrite", prewarm=False) as (session, _):
        words = "make level return EMPTY for negatives"
        assert session.scoped(words, None) == (words, prompts.rewrite_region(INVENTORY, words, path="Inventory.java"))
        assert session.scoped(words, None)[1] != (0, len(LINES))


def test_redirect_and_addition_words_name_java_methods_by_the_grammar():
    """The words said while the model writes find a Java method as a Python one's are found: a
    redirect narrows the region to the method it names, an addition is asked of the method it names."""
    path = "Inventory.java"
    level = prompts.rewrite_region(INVENTORY, "make level return EMPTY for negatives", path=path)
    count = prompts.rewrite_region(INVENTORY, "document count", path=path)
    cls = (8, 51)  # the class Inventory with its doc comment, as the grammar spans it
    assert prompts.names_a_definition(INVENTORY, "no, only change level", path)
    assert not prompts.names_a_definition(INVENTORY, "no, only change level")  # `ast` alone: no such name
    assert prompts.redirect_region(INVENTORY, cls, ["no, only level"], path) == level
    assert prompts.addition_region(INVENTORY, level, "also add a comment to count", narrow=True, path=path) == count
    assert prompts.addition_region(INVENTORY, level, "also add a comment to count") == level  # no path: unchanged


def test_deleting_this_java_method_names_it_and_asks_the_class():
    """'delete this method' at the cursor in Java: the request names the method, and is asked of the
    class around it (shown only the method, the small model cannot answer with nothing)."""
    path = "Inventory.java"
    count = prompts.rewrite_region(INVENTORY, "document count", path=path)
    asked = prompts.deletion_request(INVENTORY, "delete this method", count, path)
    assert asked == "delete this method (`count`)"
    a, b = prompts.deletion_region(INVENTORY, asked, count, path)
    assert (a, b) == (8, 51) and LINES[a + 1].startswith("public class Inventory")  # its doc comment included


FETCH = '''import json


class TransportError(Exception):
    """A request that failed."""


def fetch(url):
    """Fetch url."""
    if not url:
        return None
    return json.loads(url)


def other():
    return 1
'''

FETCH_TS = '''export class TransportError extends Error {
  constructor(message: string) {
    super(message);
  }
}

export function load(url: string): unknown {
  if (!url) {
    return null;
  }
  return JSON.parse(url);
}

export function other(): number {
  return 1;
}
'''


def test_a_function_named_in_plain_words_beside_a_class_is_the_region():
    # `TransportError` reads as code by its capitals, `fetch` does not: the class is what fetch raises.
    lines = FETCH.splitlines()
    a, b = prompts.rewrite_region(FETCH, "make fetch raise TransportError when url is empty", path="net.py")
    assert lines[a] == "def fetch(url):" and b == 12
    # The class alone, or a class with no function named beside it, stays the region.
    a, _ = prompts.rewrite_region(FETCH, "add a code attribute to TransportError", path="net.py")
    assert lines[a].startswith("class TransportError")
    # The same in any language the layer knows.
    a, _ = prompts.rewrite_region(FETCH_TS, "make load throw a TransportError for an empty url", path="net.ts")
    assert FETCH_TS.splitlines()[a].startswith("export function load")


def test_a_method_named_with_its_class_in_plain_words_is_the_region():
    text = '''class RetryPolicy:
    def __init__(self, base):
        self.base = base

    def delay(self, attempt):
        return self.base

    def give_up(self, attempt):
        return attempt > 3


def other():
    return 1
'''
    lines = text.splitlines()
    a, b = prompts.rewrite_region(text, "make RetryPolicy's delay double with each attempt", path="retry.py")
    assert lines[a].strip() == "def delay(self, attempt):" and b == 6
