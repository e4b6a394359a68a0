"""Plain-text table printing shared by every benchmark, and the markdown report a run writes with `--out`."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path


def write_report(path: Path, heading: str, notes: list[str], tables: list[tuple[str, list[str], list[list[object]]]]) -> None:
    """`path` as markdown: `heading`, each note a paragraph, then each (title, headers, rows) as print_table prints it."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for line in [heading, *notes]:
            print(line + "\n")
        for title, headers, rows in tables:
            print_table(title, headers, rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def print_table(title: str, headers: list[str], rows: list[list[object]]) -> None:
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    print(f"\n## {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(cells[0], widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")


def _fmt(value: object) -> str:
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:.2f}"
        return f"{value:.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]
