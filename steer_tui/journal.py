"""Undo and redo of the session's own writes: the file's text before and after each accepted edit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entry:
    action: str  # accept | accept_hunk
    before: str
    after: str


class Journal:
    """Two stacks of Entry. `undo_entry`/`redo_entry` name the next step; the caller writes the
    file and then calls `undone()`/`redone()`, so a failed write moves nothing."""

    def __init__(self):
        self._undo: list[Entry] = []
        self._redo: list[Entry] = []

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def record(self, action: str, before: str, after: str) -> None:
        """A new edit was written: it can be undone, and what was undone before can no longer be redone."""
        self._undo.append(Entry(action, before, after))
        self._redo.clear()

    @property
    def undo_entry(self) -> Entry | None:
        return self._undo[-1] if self._undo else None

    @property
    def redo_entry(self) -> Entry | None:
        return self._redo[-1] if self._redo else None

    def undone(self) -> None:
        self._redo.append(self._undo.pop())

    def redone(self) -> None:
        self._undo.append(self._redo.pop())
