"""Row sources the file view draws: the plain document, a live diff, or a text (unified diff / raw model text)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Row:
    """Same shape as steer_tui.edits.livediff.Row, so the view draws either."""

    kind: str  # context | removed | added | target | conflict | meta | raw
    text: str
    old_no: int | None = None  # 1-based line in the file on disk
    new_no: int | None = None
    hunk: int | None = None
    spans: tuple = field(default=())  # (start, end) character ranges changed inside the line


class PlainRows:
    """The document as it is on disk: one context row per line."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    @property
    def row_count(self) -> int:
        return len(self.lines)

    def row(self, i: int) -> Row:
        return Row("context", self.lines[i], i + 1, i + 1)

    def row_for_old(self, line: int) -> int:
        return max(0, min(line, len(self.lines) - 1))


class TextRows:
    """A text shown as rows: the raw model text, or a unified diff coloured by its line prefixes."""

    def __init__(self, text: str, diff: bool = False) -> None:
        self.lines = text.split("\n") if text else []
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.diff = diff

    @property
    def row_count(self) -> int:
        return len(self.lines)

    def row(self, i: int) -> Row:
        line = self.lines[i]
        if not self.diff:
            return Row("raw", line, None, i + 1)
        if line.startswith(("+++", "---", "@@")):
            return Row("meta", line, None, i + 1)
        if line.startswith("+"):
            return Row("added", line, None, i + 1)
        if line.startswith("-"):
            return Row("removed", line, None, i + 1)
        return Row("raw", line, None, i + 1)

    def row_for_old(self, line: int) -> int:
        return max(0, min(line, len(self.lines) - 1))


def row_for_old_line(source, line: int) -> int:
    """Index of the row that shows file line `line` (0-based): binary search on old_no.

    Rows without an old line (added lines) only occur in runs inside hunks, so the
    forward scan past them is bounded by the hunk size.
    """
    finder = getattr(source, "row_for_old", None)
    if finder is not None:
        return finder(line)
    count = source.row_count
    if count == 0:
        return 0
    target = line + 1
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        j = mid
        old = None
        while j < count:
            old = source.row(j).old_no
            if old is not None:
                break
            j += 1
        if old is None or old >= target:
            hi = mid
        else:
            lo = j + 1
    while lo < count - 1 and source.row(lo).old_no is None:
        lo += 1
    return min(lo, count - 1)
