"""Keeps a ProjectIndex current: a watchfiles thread that updates or removes each changed project file."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from steer_tui.project.index import ProjectIndex

log = logging.getLogger(__name__)

_IGNORED_PARTS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".tox"})


class IndexWatcher:
    """Watches the index's root on a daemon thread; `stop()` ends it. Each batch of changes updates
    the index file by file, then writes its cache; `on_change(paths)` is called after a batch that
    changed the index (on the watcher's thread)."""

    def __init__(self, index: ProjectIndex, on_change=None, *, debounce_ms: int = 50):
        self.index = index
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.ready = threading.Event()  # set once the watch is in place

    def start(self) -> IndexWatcher:
        self._thread = threading.Thread(target=self._run, name="steer-index-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def apply(self, changes) -> list[str]:
        """Update the index for watchfiles' `changes` ({(Change, path)}); the relative paths changed."""
        root = self.index.root
        changed = []
        for _change, raw in sorted(changes, key=lambda c: c[1]):
            try:
                rel = Path(raw).resolve().relative_to(root)
            except (ValueError, OSError):
                continue
            if _IGNORED_PARTS.intersection(rel.parts):
                continue
            path = rel.as_posix()
            done = self.index.update(path) if (root / rel).is_file() else self.index.remove(path)
            if done:
                changed.append(path)
        return changed

    def _run(self) -> None:
        from watchfiles import watch

        try:
            for changes in watch(self.index.root, stop_event=self._stop, debounce=self.debounce_ms,
                                 yield_on_timeout=True, rust_timeout=500, raise_interrupt=False):
                self.ready.set()
                if not changes:
                    continue
                changed = self.apply(changes)
                if changed:
                    self.index.save()
                    if self.on_change is not None:
                        self.on_change(changed)
        except Exception as exc:  # the index then only goes stale: never take the session down
            log.warning("index watcher stopped: %s", exc)
        finally:
            self.ready.set()
