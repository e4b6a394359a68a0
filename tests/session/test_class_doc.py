"""A request for a class's docstring alone proposes that docstring alone, whatever else the answer wrote."""

from __future__ import annotations

import pytest

from app.events import Notice

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
