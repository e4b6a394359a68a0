"""When the cyclic garbage collector may run full collections: not while an answer streams."""

from __future__ import annotations

import gc

# A streaming frame allocates thousands of short-lived objects (every Textual Strip carries
# seven small caches), so young collections run often, and now and then one escalates to a
# full collection of everything alive: 17-55 ms in a single frame on a 10,000-line file.
# While an answer streams, and until the screen has been still for a moment, full
# collections wait (young ones, which are cheap, still run). Allowing them again at the end
# of the stream would run the overdue one in the very frame that shows Esc's final picture:
# the app calls collect_now() from an idle timer instead.
_NO_FULL = 1_000_000  # gen-1 collections before a full one: never, within one answer
_saved: tuple[int, int, int] | None = None


def postpone() -> None:
    """From now on, no full collection until collect_now() or restore()."""
    global _saved
    if _saved is None:
        _saved = gc.get_threshold()
        gc.set_threshold(_saved[0], _saved[1], _NO_FULL)


def restore() -> None:
    """Full collections as before (without running one)."""
    global _saved
    if _saved is not None:
        gc.set_threshold(*_saved)
        _saved = None


def postponed() -> bool:
    return _saved is not None


def collect_now() -> None:
    """Run the postponed full collection now (nothing is being drawn) and allow them again."""
    if _saved is not None:
        gc.collect()
        restore()
