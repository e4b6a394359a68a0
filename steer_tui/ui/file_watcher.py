"""The open file's watcher: each change on disk becomes a FileChangedOnDisk message to the app."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import AsyncIterator

from textual.app import App

from steer_tui.ui.messages import FileChangedOnDisk


async def changes(path: Path, stop: asyncio.Event) -> AsyncIterator[Path]:
    """Yield `path` (resolved) each time it changes on disk, changes 300 ms apart merged, until `stop` is set."""
    from watchfiles import awatch  # not needed for the first frame

    target = path.resolve()

    def only_ours(change, changed: str) -> bool:
        return Path(changed) == target

    # Watch the directory: atomic writes replace the file, which would end a watch on it.
    async for _changes in awatch(target.parent, watch_filter=only_ours, stop_event=stop,
                                 debounce=300, step=50, recursive=False):
        yield target


class FileWatcher:
    """Watches one file in `host`'s "watch" worker group until `stop()`; a failure to watch is a warning toast."""

    def __init__(self, host: App) -> None:
        self._host = host
        self._stop = asyncio.Event()

    def start(self, path: Path) -> None:
        self._host.run_worker(partial(self._watch, path), name="watch", group="watch", exclusive=True, exit_on_error=False)

    def stop(self) -> None:
        self._stop.set()

    async def _watch(self, path: Path) -> None:
        try:
            async for target in changes(path, self._stop):
                self._host.post_message(FileChangedOnDisk(str(target)))
        except Exception as exc:
            self._host.notify(f"not watching the file for changes: {exc}", severity="warning")
