"""The prewarms a session has in flight: the newest, the older ones left running behind it, and what they cover."""

from __future__ import annotations

import asyncio
from typing import Coroutine


class Prewarms:
    """Tracks prewarm tasks (no I/O of its own): a new prewarm supersedes the one in flight (it is
    cancelled, and the client cancels it on the server), unless it extends it: then the older one
    runs on and the new one queues behind it on its lane. A turn about to be sent cancels those
    whose block or words it does not start with, so that it never waits behind them."""

    def __init__(self) -> None:
        self.task: asyncio.Task | None = None  # the newest
        self.behind: set[asyncio.Task] = set()  # older ones left running (start(behind=True))
        self.covers: tuple[str, tuple[int, int] | None] | None = None  # (file text, region) of the newest
        self.typed = ""  # the instruction's words that followed the region in it (typing_prewarm.py)
        # The newest shows the file in part, around its region (steer_tui.project.window): a turn on
        # another region (or one of the file alone) does not start with what it evaluates.
        self.in_part = False

    def start(self, prewarm: Coroutine, text: str, region: tuple[int, int] | None, typed: str = "", *,
              behind: bool = False, in_part: bool = False) -> None:
        """Run `prewarm` (of `text`, `region` and the words `typed`) as the newest. With `behind`, one
        in flight of the same text and region goes on: its block is this one's prefix, and a cancel
        would throw away the chunk being evaluated. Only one goes on so: a newest that was itself
        queued behind it is replaced (its words are stale, and it has not started)."""
        old = self.task
        if old is not None and not old.done():
            if behind and self.covers == (text, region) and not self.in_flight_behind():
                self.behind.add(old)
                old.add_done_callback(self.behind.discard)
            else:
                old.cancel()
        self.covers = (text, region)
        self.in_part = in_part
        self.typed = typed if region is not None else ""
        self.task = asyncio.ensure_future(prewarm)

    def in_flight_behind(self) -> bool:
        return any(not t.done() for t in self.behind)

    def in_flight(self) -> list[asyncio.Task]:
        return [t for t in (self.task, *self.behind) if t is not None and not t.done()]

    @property
    def warming_file(self) -> bool:
        """The newest, in flight, is of the whole file (not of one block): a turn starts with it, and
        waits for it. Not so for a file shown in part, whose view depends on the turn's region."""
        return (self.task is not None and not self.task.done() and self.covers is not None
                and self.covers[1] is None and not self.in_part)

    async def wait(self) -> None:
        """Until those in flight (if any) end, however they end."""
        tasks = self.in_flight()
        if tasks:
            await asyncio.wait(tasks)

    def make_way(self, region: tuple[int, int] | None, instruction: str) -> None:
        """A turn on `region` with `instruction` is about to be sent: cancel those in flight unless
        the turn starts with what the newest evaluates (the file, or this region's block and words
        that open the instruction); the turn must not queue behind a prewarm it does not use."""
        from steer_tui.typing_prewarm import leads

        if self.task is None or self.task.done() or self.covers is None:
            return
        if self.covers[1] not in ((region,) if self.in_part else (None, region)) or not leads(self.typed, instruction):
            for task in self.in_flight():
                task.cancel()
