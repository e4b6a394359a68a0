"""Pilot: a region rewrite that restates only part of its region ("add a docstring to cheapest",
the region the whole class, the answer only `cheapest`) proposes and writes only the docstring;
the other methods stay, while it streams, in review and on disk."""

from __future__ import annotations

from .conftest import EXAMPLE, replay_app, wait_paused, wait_until

DOCSTRING = '        """The item with the lowest price; ValueError if there are no items."""'
ANSWER = f'''```python
    def cheapest(self):
{DOCSTRING}
        return min(self.items.values(), key=lambda item: item.price)
```
'''
# Held once the docstring line is complete and the return line is being written.
PAUSE_IN_RETURN_LINE = ANSWER.index("        return min") + 12
KEPT = ("    def add(self, name, price, quantity=1):", "    def remove(self, name, quantity=1):",
        "    def total_value(self):", "    items: dict[str, Item] = field(default_factory=dict)")


def rows_text(app) -> list[tuple[str, str]]:
    live = app.session.live
    return [(r.kind, r.text) for r in live.rows(0, live.row_count)]


async def send_in_class(pilot, app, words: str) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
    lines = app.code.lines
    app.code.cursor_placed = True
    app.code.cursor_line = lines.index("    def cheapest(self):")
    assert app.region_for_send() == (12, 36)  # the whole class, as in the report
    app.prompt.value = words
    await pilot.press("enter")


async def test_partial_rewrite_streams_reviews_and_writes_only_the_docstring(sample, backends):
    b = await backends(ANSWER, PAUSE_IN_RETURN_LINE)
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 50)) as pilot:
        await send_in_class(pilot, app, "add a docstring to cheapest")
        await wait_paused(pilot, app, b)
        # Mid-stream: the docstring is drawn added under `def cheapest`, nothing removed.
        rows = rows_text(app)
        assert not [r for r in rows if r[0] == "removed"], rows
        i = rows.index(("added", DOCSTRING))
        assert rows[i - 1] == ("context", "    def cheapest(self):")
        assert all(("context", k) in rows for k in KEPT)
        b.engine.release.set()
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        assert [(h.start, h.end, h.new) for h in app.session.proposal] == [(35, 35, (DOCSTRING,))]
        assert not [r for r in rows_text(app) if r[0] == "removed"]
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after accept")
        text = sample.read_text()
        head = "    def cheapest(self):\n"
        assert text == EXAMPLE.read_text().replace(head, head + DOCSTRING + "\n")
        assert all(k in text for k in KEPT)
