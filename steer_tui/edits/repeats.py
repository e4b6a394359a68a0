"""Spotting an answer caught in a loop: the same lines written over and over, counters aside.

A 1.5B model sometimes falls into a pattern it cannot leave (`if n == 13: raise ...`,
`if n == 14: raise ...`, ...) and writes it until its output cap. The answer is then refused
anyway (cut off); stopping it as soon as the loop is plain saves the rest of the cap, which for
a long region is minutes on a CPU. Lines are compared with surrounding whitespace stripped, and
in short blocks every run of digits read as one, so a counting loop is a repeat too. Text the file
already holds repeated that often (a table) is copied, not looped: a run counts only when it is
well over twice what the file has of it. Pure: no I/O.
"""

from __future__ import annotations

import re

__all__ = ["PROSE_REPEATS", "RepeatWatch", "loop_departure", "without_repeats"]

_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"[A-Za-z_]{3}")
# Repeats in a row of a block of k lines that make a loop: longer blocks need fewer, three rounds
# of the same dozen lines being no accident. Blocks of 2 to 8 lines are compared with their
# numbers read as one (a counter that goes up each round); a single line, and blocks of 9 lines
# or more, must repeat exactly: a column of lines alike but for a number is often meant (test
# cases, a table), and so are three test methods alike but for their numbers.
_MIN_REPEATS = {1: 24, 2: 12, 3: 12, **{k: 6 for k in range(4, 9)}, **{k: 3 for k in range(9, 33)}}
_COUNTED = range(2, 9)  # block lengths compared with numbers read as one
_LONGEST = max(_MIN_REPEATS)
# Prose (a question's answer) repeats no block of lines: three rounds of the same lines, or eight of
# one line, are a loop (a small model that copied the places it was shown often copies them again).
PROSE_REPEATS = {1: 8, **{k: 3 for k in range(2, _LONGEST + 1)}}
_MIN_CHARS = 12  # a block this short (`else:` / `pass`) says too little to call its repeats a loop


def _norm(line: str) -> str:
    return _DIGITS.sub("0", line.strip())


class RepeatWatch:
    """Fed an answer as it streams; `looping` is True once its last lines are a loop (see above).

    A few dict operations a line: for each block length k it keeps how many lines in a row have
    equalled the line k before them (a block repeated n times is (n - 1) * k such lines), both as
    written and with numbers read as one, and a line is compared only with the earlier lines
    equal to it, found by a table of where each line was last seen."""

    def __init__(self, file_text: str, min_repeats: dict[int, int] | None = None):
        self._min_repeats = min_repeats or _MIN_REPEATS  # block length -> rounds that make a loop
        self._file_text = file_text  # split only when a run gets long enough to ask (rarely)
        self._file: dict[bool, list[str]] = {}
        self._lines = {False: [], True: []}  # the answer's complete lines, stripped: as written, numbers as one
        self._seen: dict[bool, dict[str, list[int]]] = {False: {}, True: {}}  # line -> its recent indexes
        self._runs: dict[tuple[int, bool], tuple[int, int]] = {}  # (k, counted) -> (last line of the run, its length)
        self._partial = ""
        self._in_file: dict[tuple[tuple[str, ...], bool], int] = {}
        self.looping = False
        self.block: tuple[str, ...] = ()  # the last round of the loop, stripped, once looping

    def feed(self, delta: str) -> bool:
        """Take more of the answer; whether it is looping now."""
        if self.looping:
            return True
        if "\n" not in delta:
            self._partial += delta
            return False
        head, *full, rest = (self._partial + delta).split("\n")
        self._partial = rest
        for line in (head, *full):
            if self._add(line):
                break
        return self.looping

    def _periods(self, line: str, counted: bool) -> dict[int, int]:
        """Append `line`; the block lengths k watched in this mode at which it equals the line k
        before, each with the length of that run of equal lines. A line equal to the one before
        it is in a run of one line, whatever else it equals: only k = 1 is kept then."""
        lines, seen = self._lines[counted], self._seen[counted]
        i = len(lines)
        lines.append(line)
        recent = seen.setdefault(line, [])
        out = {}
        for j in (recent[-1:] if recent and recent[-1] == i - 1 else recent):
            k = i - j
            if (k in _COUNTED) != counted and k != 1:
                continue
            last, run = self._runs.get((k, counted), (-2, 0))
            run = run + 1 if last == i - 1 else 1
            self._runs[k, counted] = (i, run)
            out[k] = run
        recent.append(i)
        while i - recent[0] >= _LONGEST:
            del recent[0]
        return out

    def _add(self, line: str) -> bool:
        raw, alike = self._periods(line.strip(), False), self._periods(_norm(line), True)
        active: list[int] = []  # shorter blocks repeating here (numbers read as one)
        for k in sorted(alike.keys() | raw.keys()):
            # A multiple of a shorter block repeating here is that block, counted with its own bar.
            if any(k % p == 0 for p in active):
                continue
            if alike.get(k, 0) >= k:
                active.append(k)
            run = alike.get(k, 0) if k in _COUNTED else raw.get(k, 0)
            # Judged once a round, when the round completes.
            if run < k or run % k or run // k + 1 < self._min_repeats[k]:
                continue
            counted = k in _COUNTED
            block = tuple(self._lines[counted][-k:])
            if sum(len(x) for x in block) < _MIN_CHARS or not any(_WORD.search(x) for x in block):
                continue
            if run // k + 1 > 2 * self._count_in_file(block, counted) + 2:
                self.looping, self.block = True, tuple(self._lines[False][-k:])
                return True
        return False

    def _count_in_file(self, block: tuple[str, ...], counted: bool) -> int:
        if (block, counted) not in self._in_file:
            if counted not in self._file:
                self._file[counted] = [(_norm(ln) if counted else ln.strip()) for ln in self._file_text.splitlines()]
            k, f = len(block), self._file[counted]
            self._in_file[block, counted] = sum(1 for i in range(len(f) - k + 1) if tuple(f[i : i + k]) == block)
        return self._in_file[block, counted]


def without_repeats(text: str, block: tuple[str, ...]) -> str:
    """`text` up to the end of the first round of the loop `block` (RepeatWatch.block) that ends it;
    a line after the last round, not yet complete, goes too."""
    lines = text.split("\n")
    if lines and lines[-1].strip() and not text.endswith("\n"):
        lines.pop()
    while lines and not lines[-1].strip():
        lines.pop()
    k = len(block)
    while k and len(lines) >= 2 * k and [_norm(x) for x in lines[-k:]] == [_norm(x) for x in lines[-2 * k:-k]]:
        del lines[-k:]
    return "\n".join(lines)


def loop_departure(text: str, block: tuple[str, ...]) -> dict | None:
    """Where an answer caught in the loop `block` chose to go round again, as a request's `avoid`
    (the engine writes its runner-up there, steer_tui.server.engines.depart): `text` through the
    first line of the loop's second round, and `after`, the offset in bytes where that line starts.
    Greedy decoding asked the same goes round the loop again. None when the rounds cannot be told
    apart."""
    first = without_repeats(text, block)
    rest = text[len(first):] if text.startswith(first) else ""
    lines = rest.lstrip("\n").split("\n")
    if not first or not lines or not lines[0].strip():
        return None
    start = len(first) + (len(rest) - len(rest.lstrip("\n")))
    return {"text": text[:start] + lines[0] + "\n", "after": len(text[:start].encode("utf-8"))}
