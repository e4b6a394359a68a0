"""Pilot tests: `steer PATH` for a file that does not exist yet: an empty buffer, the first instruction
writes the whole file into the view, accept creates it, reject leaves nothing on disk."""

from __future__ import annotations

import os
import stat

from .conftest import replay_app, wait_until

NEW_FILE_ANSWER = '''```python
"""Roll dice."""

import random


def roll(sides=6):
    return random.randint(1, sides)


if __name__ == "__main__":
    print(roll())
```
'''
NEW_FILE = NEW_FILE_ANSWER.split("```python\n", 1)[1].split("```", 1)[0]


async def write_new_file(pilot, app) -> None:
    await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
    app.prompt.value = "a dice roller"
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.status.state == "review", what="review")


async def test_new_file_streams_in_and_accept_creates_it(tmp_path, backends):
    path = tmp_path / "dice.py"
    b = await backends(NEW_FILE_ANSWER)
    app = replay_app(path, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.document is not None, what="the document")
        assert app.document.is_new and list(app.code.lines) == []
        assert "new file" in app.status.extra
        await write_new_file(pilot, app)
        live = app.session.live
        added = [r.text for r in live.rows(0, live.row_count) if r.kind == "added"]
        assert added == NEW_FILE.splitlines()
        assert not path.exists()
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: app.status.state == "idle", what="idle")
        assert path.read_text() == NEW_FILE
        umask = os.umask(0o022)
        os.umask(umask)
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
        assert "new file" not in app.status.extra
        assert list(app.code.lines) == NEW_FILE.splitlines()


async def test_new_file_rejected_leaves_nothing_on_disk(tmp_path, backends):
    path = tmp_path / "dice.py"
    b = await backends(NEW_FILE_ANSWER)
    app = replay_app(path, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await write_new_file(pilot, app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.status.state == "idle" and list(tmp_path.iterdir()) == []


async def test_new_file_in_a_missing_folder_is_a_clear_error(tmp_path, backends):
    b = await backends(NEW_FILE_ANSWER)
    app = replay_app(tmp_path / "nope" / "dice.py", b)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert app.document is None
        messages = [n.message for n in app._notifications]
        assert any("does not exist" in m and "nope" in m for m in messages), messages
        app.prompt.value = "a dice roller"
        await pilot.press("enter")
        assert app.prompt.value == "a dice roller"  # kept: nothing typed is lost
        assert not (tmp_path / "nope").exists()
