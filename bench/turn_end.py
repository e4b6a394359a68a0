"""A turn's end on big files: `steer edit` of a replayed answer (not a model), this checkout against a baseline.

Each file of `bench bigfile` (200 lines, argparse.py, a generated 20,000-line module) gets its right
answer (the region's rewrite with the one line changed) recorded, and `steer serve --engine replay
--rate max` plays it at once. A command's wall time is then its start-up, the request it builds and
what it does with the finished answer: the judge's checks (restated, copied, hollowed
definitions), the verdict's (syntax, imports it needs, names nothing defines, log calls, unused
parameters) and the write. Each checkout's `steer edit` talks to its own gateway; rounds
alternate between checkouts so that drifting machine load hits both alike. Every run's file is
judged as in `bench bigfile`: one line changed, and the right one.

Run: `python -m bench turn_end [--rounds 5] [--baseline DIR] [--out FILE]`
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.bigfile import Case, cases, judge
from bench.checkout import steer_argv
from bench.gateway_load import Gateway
from bench.table import print_table, write_report

ROOT = Path(__file__).resolve().parents[1]


def right_answer(case: Case) -> str:
    """The rewrite format's answer that changes the region's closest line to `case.changed`."""
    from steer_tui import prompts

    start, end = prompts.rewrite_region(case.text, case.instruction, path=case.file)
    lines = case.text.splitlines()[start:end]
    at = max(range(len(lines)), key=lambda i: difflib.SequenceMatcher(None, lines[i], case.changed).ratio())
    lines[at] = case.changed
    return "```python\n" + "\n".join(lines) + "\n```\n"


def edit_once(root: Path, url: str, case: Case, folder: Path) -> dict:
    path = folder / case.file
    path.write_text(case.text, encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run([*steer_argv(root), "edit", case.file, "-m", case.instruction, "--json", "--format",
                           "rewrite", "--backend", url], cwd=folder, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        out = {}
    return {"wall": wall, "exit": proc.returncode, "verdict": judge(case.text, path.read_text(encoding="utf-8"), case.changed),
            "attempts": out.get("attempts"), "reason": out.get("reason") or proc.stderr.strip()[-200:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench turn_end")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a checkout (or `git archive`) to compare against")
    parser.add_argument("--out", type=Path, help="also write the tables (markdown) to this file")
    args = parser.parse_args(argv or [])
    roots = [("now", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    load = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-turn-end-"))
    runs: dict[tuple[str, str], list[dict]] = {}
    all_cases = cases()
    for n, case in enumerate(all_cases):
        answer = tmp / f"answer-{n}.txt"
        answer.write_text(right_answer(case), encoding="utf-8")
        with contextlib.ExitStack() as stack:
            gateways = {name: stack.enter_context(Gateway(root, answer, [])) for name, root in roots}
            for r in range(args.rounds):
                for name, root in roots if r % 2 == 0 else roots[::-1]:
                    folder = tmp / f"{name}-{n}"
                    folder.mkdir(exist_ok=True)
                    got = edit_once(root, gateways[name].url, case, folder)
                    runs.setdefault((case.name, name), []).append(got)
                    print(f"  {case.name} {name}: {got['wall']:.2f} s, exit {got['exit']}, {got['verdict']}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    after = os.getloadavg()
    rows = []
    for case in all_cases:
        now = statistics.median(g["wall"] for g in runs[(case.name, "now")])
        for name, _root in roots:
            got = runs[(case.name, name)]
            wall = statistics.median(g["wall"] for g in got)
            rows.append([case.name, name, len(got), sum(g["verdict"] == "right" for g in got), wall,
                         min(g["wall"] for g in got), max(g["wall"] for g in got),
                         f"{wall / now:.2f}x" if name != "now" else "",
                         "/".join(sorted({str(g["attempts"]) for g in got}))])
    title = "`steer edit` of a replayed right answer (`steer serve --engine replay --rate max`): wall time"
    headers = ["file", "steer", "runs", "right", "median s", "min s", "max s", "baseline / now", "attempts"]
    print_table(title, headers, rows)
    if args.out:
        write_report(args.out, f"# bench turn_end, {time.strftime('%Y-%m-%d %H:%M')}: `python -m bench turn_end "
                     f"{' '.join(argv or [])}` (bench/turn_end.py)",
                     [f"Load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {after[0]:.2f} "
                      f"{after[1]:.2f} {after[2]:.2f} (2 cores)."],
                     [(title, headers, rows)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
