"""Pilot: "this method" with the cursor in a method means that method, not the class around it
(the cursor's region is the top-level block: "delete this method" there once named the class)."""

from __future__ import annotations

from steer_tui.region import region_for_send

from .conftest import EXAMPLE, replay_app, wait_until

REMOVE = """    def remove(self, name, quantity=1):
        item = self.items[name]
        item.quantity -= quantity
        if item.quantity <= 0:
            del self.items[name]

"""
CLASS = EXAMPLE.read_text().split("@dataclass\nclass Inventory:")[1].split("\n\n\ndef ")[0]
ANSWER = "```python\n@dataclass\nclass Inventory:" + CLASS.replace(REMOVE, "") + "\n```\n"


async def _cursor_in_remove(pilot, app) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
    app.code.cursor_placed = True
    app.code.cursor_line = app.code.lines.index("        item.quantity -= quantity")
    assert app.region_for_send() == (12, 36)  # the whole class


async def test_delete_this_method_at_the_cursor_deletes_that_method(sample, backends):
    b = await backends(ANSWER)
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 50)) as pilot:
        await _cursor_in_remove(pilot, app)
        assert app.region_for_send("delete this method") == (22, 27)
        app.prompt.value = "delete this method"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        # Asked of the class, the method named: shown only the method, the small model cannot
        # answer with nothing (prompts.deletion_region).
        assert app.session.instruction == "delete this method (`remove`)" and app.session.region == (12, 36)
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after accept")
        assert sample.read_text() == EXAMPLE.read_text().replace(REMOVE, "")


async def test_this_method_is_the_region_and_it_alone_is_not(sample, backends):
    b = await backends(ANSWER)
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 50)) as pilot:
        await _cursor_in_remove(pilot, app)
        assert app.region_for_send("add a docstring to this method") == (22, 27)
        assert app.region_for_send("add a docstring to this class") == (12, 36)
        assert app.region_for_send("make it faster") == (12, 36)  # "it" may mean more than the method
        lines, cursor = app.code.lines, app.code.cursor_line
        assert region_for_send(lines, (28, 33), cursor, True, "add a docstring to this method") == (28, 33)  # a selection wins
