"""Where an answer ends at a stop string (steer's `stop` extension): the text before it is sent, none after.

An answer's text comes a token at a time, and a stop string may span tokens (a closing quote split over two),
so text that could be the start of one is held back until the next piece says whether it is.
Pure: no I/O.
"""

from __future__ import annotations

__all__ = ["StopCut"]


class StopCut:
    """`feed(piece)` -> (text to send now, whether the answer ends here); `flush()` at the end."""

    def __init__(self, stops: tuple[str, ...] | list[str] | None):
        self.stops = tuple(s for s in (stops or ()) if s)
        self._held = ""
        self.hit: str | None = None  # the stop string the answer ended at

    def feed(self, piece: str) -> tuple[str, bool]:
        if not self.stops:
            return piece, False
        if self.hit is not None:
            return "", True
        text = self._held + piece
        found = [(i, s) for s in self.stops if (i := text.find(s)) >= 0]
        if found:
            at, self.hit = min(found)
            self._held = ""
            return text[:at], True
        keep = self._partial(text)
        self._held = text[len(text) - keep:] if keep else ""
        return text[: len(text) - keep], False

    def flush(self) -> str:
        """What was held back, when the answer ends without a stop string."""
        held, self._held = self._held, ""
        return held if self.hit is None else ""

    def _partial(self, text: str) -> int:
        """The longest end of `text` that begins a stop string."""
        best = 0
        for s in self.stops:
            for n in range(min(len(s) - 1, len(text)), best, -1):
                if text.endswith(s[:n]):
                    best = n
                    break
        return best
