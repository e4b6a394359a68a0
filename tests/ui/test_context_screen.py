"""The context screen lists what the last request carried; Space drops an item, Enter returns what was dropped."""

from textual.app import App

from steer_tui.project.context import ContextItem
from steer_tui.ui.screens.context import ContextScreen, item_key

ITEMS = [
    ContextItem("symbol", "utils/money.py", "format_money", "def format_money(cents: int) -> str: ...", 12, "imported"),
    ContextItem("file", "api/status.py", "api/status.py", "class Status(Enum): ...", 30, "pinned by @"),
]


async def test_space_drops_the_highlighted_item_and_enter_returns_it():
    got = []

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(ContextScreen(ITEMS), got.append)

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("space")  # the first item is highlighted
        await pilot.press("enter")
        await pilot.pause()
    assert got == [["utils/money.py:format_money"]]
    assert item_key(ITEMS[1]) == "api/status.py"


async def test_no_items_says_so_and_returns_nothing():
    got = []

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(ContextScreen([]), got.append)

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "carried no context" in str(app.screen.query_one("Static").render())
        await pilot.press("escape")
        await pilot.pause()
    assert got == [[]]
