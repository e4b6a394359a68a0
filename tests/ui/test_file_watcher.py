"""The file watcher on a real directory: changes to the file (atomic replace too) are seen, others are not."""

from __future__ import annotations

import asyncio
import os

from textual import on
from textual.app import App

from steer_tui.ui.file_watcher import FileWatcher, changes
from steer_tui.ui.messages import FileChangedOnDisk


async def _collect(path, stop, seen: list) -> None:
    async for target in changes(path, stop):
        seen.append(target)


async def _wait_for(condition, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


async def test_changes_sees_writes_and_atomic_replaces_of_the_file_only(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("a = 1\n")
    stop = asyncio.Event()
    seen: list = []
    task = asyncio.create_task(_collect(path, stop, seen))
    await asyncio.sleep(0.3)  # the watch is set up
    (tmp_path / "other.py").write_text("not ours\n")
    await asyncio.sleep(0.8)
    assert seen == []
    path.write_text("a = 2\n")
    await _wait_for(lambda: len(seen) == 1)
    assert seen == [path.resolve()]
    tmp = tmp_path / "f.py.tmp"
    tmp.write_text("a = 3\n")
    os.replace(tmp, path)  # what editors and our own Document writes do
    await _wait_for(lambda: len(seen) == 2)
    stop.set()
    await asyncio.wait_for(task, 5)  # the stop event ends the watch
    assert seen == [path.resolve()] * 2


class Host(App):
    def __init__(self) -> None:
        super().__init__()
        self.watcher = FileWatcher(self)
        self.changed: list[str] = []

    @on(FileChangedOnDisk)
    def changed_on_disk(self, message: FileChangedOnDisk) -> None:
        self.changed.append(message.path)


async def test_watcher_posts_a_message_per_change_until_stopped(tmp_path):
    path = tmp_path / "f.py"
    path.write_text("a = 1\n")
    app = Host()
    async with app.run_test() as pilot:
        app.watcher.start(path)
        await pilot.pause(0.3)
        path.write_text("a = 2\n")
        for _ in range(500):
            if app.changed:
                break
            await pilot.pause(0.02)
        assert app.changed == [str(path.resolve())]
        app.watcher.stop()
        await pilot.pause(0.3)
        path.write_text("a = 3\n")
        await pilot.pause(0.8)
        assert app.changed == [str(path.resolve())]


async def test_a_missing_directory_is_a_warning_not_a_crash(tmp_path):
    app = Host()
    async with app.run_test() as pilot:
        app.watcher.start(tmp_path / "gone" / "f.py")
        for _ in range(200):
            if app._notifications:
                break
            await pilot.pause(0.02)
        messages = [n.message for n in app._notifications]
        assert len(messages) == 1 and messages[0].startswith("not watching the file for changes:")
        assert app.changed == []
