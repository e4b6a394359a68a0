"""Pilot: a rewrite of one method that reads a standard-library module the file does not import
(`json.dumps` in `cheapest`) is reviewed with `import json` as a hunk of its own after the file's
imports; accepting writes both, and nothing else changes."""

from __future__ import annotations

from .conftest import EXAMPLE, replay_app, wait_until

NEW_RETURN = "        return json.dumps(min(self.items.values(), key=lambda item: item.price).__dict__)"
ANSWER = f'''```python
    def cheapest(self):
{NEW_RETURN}
```
'''


async def test_the_import_is_a_hunk_of_the_proposal_and_is_written_with_it(sample, backends):
    b = await backends(ANSWER)
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 50)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="connection")
        app.code.cursor_placed = True
        app.code.cursor_line = app.code.lines.index("    def cheapest(self):")
        app.prompt.value = "make cheapest return the item as JSON"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        hunks = [(h.start, h.end, h.new) for h in app.session.proposal]
        assert hunks[0] == (3, 3, ("import json",)), hunks
        assert len(hunks) == 2 and hunks[1][2] == (NEW_RETURN,), hunks
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle after accept")
        old = EXAMPLE.read_text()
        assert sample.read_text() == old.replace(
            "from dataclasses import dataclass, field\n", "from dataclasses import dataclass, field\nimport json\n").replace(
            "        return min(self.items.values(), key=lambda item: item.price)\n", NEW_RETURN + "\n")
