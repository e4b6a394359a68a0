"""A request for a class's docstring alone proposes that docstring alone, whatever else the answer wrote."""

from __future__ import annotations

import pytest

from steer_tui.events import Notice
from steer_tui.transport.backends import gateway_info

from .conftest import DATA, EXAMPLE, session_on

CLASS = (12, 36)  # 0-based end-exclusive: `@dataclass class Inventory` with its four methods
# What the embedded model answered, asked for the Inventory class's docstring (bench/redirect.py):
# the module's docstring and imports again, then the class with a docstring on every method.
EVERYWHERE = "inventory_class_doc_everywhere.txt"
CLASS_DOC = '    """A class to manage a collection of items with their prices and quantities."""'


def with_class_doc() -> str:
    return EXAMPLE.read_text().replace("class Inventory:\n", "class Inventory:\n" + CLASS_DOC + "\n")


@pytest.mark.parametrize("words", ["add a docstring to the Inventory class", "give Inventory a short docstring"])
async def test_asked_for_the_class_docstring_only_it_is_proposed(replay, inventory, words):
    url, _ = await replay([EVERYWHERE])
    events = []
    async with session_on(url, inventory, events, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit(words, CLASS, retries=0)
        assert result.status == "proposal", result.reason
        assert [(h.start, h.end, h.new) for h in session.proposal] == [(14, 14, (CLASS_DOC,))]
        assert "".join(session.live.new_lines()) == "".join(with_class_doc().splitlines())  # the live diff says so too
        assert any(isinstance(e, Notice) and e.code == "class_doc_only" and "`Inventory`" in e.text for e in events)
        assert session.accept_all()
        assert inventory.read_text() == with_class_doc()


async def test_asked_for_more_the_answer_stands_without_the_module_head_again(replay, inventory):
    url, _ = await replay([EVERYWHERE])
    events = []
    async with session_on(url, inventory, events, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add docstrings to the Inventory class and all its methods", CLASS, retries=0)
        assert result.status == "proposal", result.reason
        assert session.accept_all()
        text = inventory.read_text()
        assert text.count('"""A tiny inventory module to try steer on."""') == 1
        assert text.count("from dataclasses import dataclass, field") == 1
        assert CLASS_DOC in text and '        """Add an item to the inventory."""' in text
        assert not any(isinstance(e, Notice) and e.code == "class_doc_only" for e in events)


async def test_an_answer_that_gives_the_class_no_docstring_changes_nothing(replay, inventory):
    # The methods documented, the class not: nothing that was asked for.
    answer = (DATA / EVERYWHERE).read_text().replace(CLASS_DOC + "\n", "")
    (inventory.parent / "answer.txt").write_text(answer)
    url, engine = await replay([str(inventory.parent / "answer.txt")])
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, _):
        result = await session.edit("add a docstring to the Inventory class", CLASS, retries=1)
        assert result.status == "refused" and result.no_change, result.reason
        assert not session.has_proposal
        assert inventory.read_text() == EXAMPLE.read_text()
        assert len(engine.requests) == 2  # a failed attempt, asked again (and answered the same)


# An engine that goes on from a prefix (the embedded one) is asked for the docstring alone: the
# class's header is the region, the answer starts with it and the docstring's opening quotes.
PREFIXED = frozenset({"prefix", "stop"})
# What the embedded model wrote after that prefix (steer_tui.turn.Turn._docstring_attempt).
AFTER_PREFIX = "inventory_class_doc_after_prefix.txt"
MODULE_DOC = '    """A tiny inventory module to try steer on."""'
# What it wrote asked again, after that repeated the module's docstring (Turn: class_doc.saying_what).
SAYING_WHAT = "inventory_class_doc_saying_what.txt"
OWN_DOC = ('    """A tiny inventory module to try steer on.\n\n'
           '    An Inventory object holds a dictionary of items, where each item is an Item object.\n'
           '    Each Item object has a name, a price, and a quantity.\n    """')
REMOVE = (22, 27)
REMOVE_MISSING = "make remove do nothing when the name is not in the inventory"


def with_doc(text: str, doc: str) -> str:
    return text.replace("class Inventory:\n", "class Inventory:\n" + doc + "\n")


async def test_an_engine_that_goes_on_from_a_prefix_is_asked_for_the_docstring_alone(replay, inventory):
    url, engine = await replay([AFTER_PREFIX, SAYING_WHAT], features=PREFIXED)
    events = []
    async with session_on(url, inventory, events, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)  # what open_backend asks on connect
        result = await session.edit("add a docstring to the Inventory class", CLASS, retries=0)
        assert result.status == "proposal", result.reason
        asked = engine.requests[0]
        assert asked.prefix == '```python\n@dataclass\nclass Inventory:\n    """' and asked.stop == ('"""',)
        shown = asked.messages[-1]["content"]
        assert "Region (lines 13-14):" in shown and "def add(" not in shown  # the class is not evaluated again
        # It wrote the module's docstring: asked again, once, saying what the class's own is about.
        again = engine.requests[1]
        assert again.prefix == asked.prefix and again.messages[:-1] == asked.messages[:-1]
        assert again.messages[-1]["content"].endswith(
            "add a docstring to the Inventory class saying what an Inventory object is and what it holds")
        assert any(isinstance(e, Notice) and e.code == "class_doc_again" and "`Inventory`" in e.text for e in events)
        assert [(h.start, h.end, h.new) for h in session.proposal] == [(14, 14, tuple(OWN_DOC.split("\n")))]
        assert "".join(session.live.new_lines()) == "".join(with_doc(EXAMPLE.read_text(), OWN_DOC).splitlines())
        assert session.accept_all()
        assert inventory.read_text() == with_doc(EXAMPLE.read_text(), OWN_DOC)


@pytest.mark.parametrize("second", [AFTER_PREFIX, "empty"])
async def test_asked_again_the_module_docstring_or_a_failed_answer_leaves_the_first(replay, inventory, second):
    (inventory.parent / "empty.txt").write_text('"""\n```\n')
    url, engine = await replay([AFTER_PREFIX, str(inventory.parent / "empty.txt") if second == "empty" else second],
                               features=PREFIXED)
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)
        result = await session.edit("add a docstring to the Inventory class", CLASS, retries=0)
        assert result.status == "proposal", result.reason
        assert len(engine.requests) == 2  # asked again once, never more
        assert [(h.start, h.end, h.new) for h in session.proposal] == [(14, 14, (MODULE_DOC,))]
        assert session.accept_all()
        assert inventory.read_text() == with_doc(EXAMPLE.read_text(), MODULE_DOC)


async def test_an_engine_that_cannot_is_asked_for_the_whole_class_as_before(replay, inventory):
    url, engine = await replay([EVERYWHERE])  # the replay engine: "stop" but no "prefix"
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)  # what open_backend asks on connect
        assert (await session.edit("add a docstring to the Inventory class", CLASS, retries=0)).status == "proposal"
        assert engine.requests[0].prefix is None and "def add(" in engine.requests[0].messages[-1]["content"]


async def test_an_empty_docstring_is_a_failed_attempt_and_the_file_is_untouched(replay, inventory):
    (inventory.parent / "empty.txt").write_text('"""\n```\n')
    url, engine = await replay([str(inventory.parent / "empty.txt")], features=PREFIXED)
    async with session_on(url, inventory, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)  # what open_backend asks on connect
        result = await session.edit("add a docstring to the Inventory class", CLASS, retries=1)
        assert result.status == "refused" and result.no_change, result.reason
        assert len(engine.requests) == 2 and all(r.prefix for r in engine.requests)
        assert not session.has_proposal and inventory.read_text() == EXAMPLE.read_text()


async def test_a_class_docstring_added_under_review_is_merged_with_the_proposal(replay, inventory):
    url, engine = await replay(["inventory_remove_missing.txt", AFTER_PREFIX, SAYING_WHAT], features=PREFIXED)
    events = []
    async with session_on(url, inventory, events, edit_format="rewrite", prewarm=False) as (session, client):
        client.server_info = await gateway_info(url)  # what open_backend asks on connect
        await session.send(REMOVE_MISSING, REMOVE)
        assert (await session.wait()).status == "proposal"
        await session.send("also add a docstring to the Inventory class", REMOVE)
        assert (await session.wait()).status == "proposal"
        # The request's answer under review is merged, not asked again; the addition's docstring
        # repeated the module's and was asked again.
        first, addition, again = engine.requests
        assert first.prefix is None and addition.prefix == again.prefix and addition.prefix.endswith('class Inventory:\n    """')
        assert session.accept_all()
        text = inventory.read_text()
        assert text.startswith(with_doc(EXAMPLE.read_text(), OWN_DOC).split("    def remove")[0])
        assert "        if name in self.items:\n            item = self.items[name]\n" in text
        assert text.count('"""') == 4  # the module's docstring and the class's, nothing else
