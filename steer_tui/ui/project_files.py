"""The project's file list for the finder: listed and indexed in a thread, again each time the finder opens."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from steer_tui.project.fuzzy import FuzzyIndex


def _build(root: Path, previous: list[str] | None) -> tuple[list[str], "FuzzyIndex | None"]:
    from steer_tui.project.fuzzy import FuzzyIndex
    from steer_tui.project.listing import list_files

    files = list_files(root)
    if files == previous:
        return files, None  # unchanged: the index in use (and what it learnt) stays
    return files, FuzzyIndex(files)


class ProjectFiles:
    """The files of the project at `root` and their FuzzyIndex. `refresh()` lists them in a worker
    thread (the app never waits); each listener is called on the app's loop when a new list is in."""

    def __init__(self, host, root: Path) -> None:
        self._host = host
        self.root = root
        self.files: list[str] | None = None
        self.index: FuzzyIndex | None = None
        self.listing = False
        self.error: str | None = None
        self._listeners: list[Callable[[], None]] = []

    def listen(self, fn: Callable[[], None]) -> None:
        self._listeners.append(fn)

    def unlisten(self, fn: Callable[[], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def refresh(self) -> None:
        """List the files again (files added or removed since are found), in the background."""
        self.listing = True
        # the method, not a coroutine: a refresh that replaces one not yet started (exclusive)
        # then leaves no coroutine that was never awaited
        self._host.run_worker(self._list, name="list-files", group="project-files", exclusive=True,
                              exit_on_error=False)

    async def _list(self) -> None:
        try:
            files, index = await asyncio.to_thread(_build, self.root, self.files)
        except Exception as exc:  # an unreadable project: the finder says so, the app goes on
            self.error = str(exc)
            files, index = self.files or [], None
        else:
            self.error = None
        finally:
            self.listing = False
        changed = index is not None
        if changed:
            self.files, self.index = files, index
        for fn in list(self._listeners):
            fn()
