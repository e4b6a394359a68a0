"""`steer edit --attempts N [--check CMD]` against one attempt on the editbench sets: cost, diversity, value.

Per task, one after the other in the same minutes, a real `steer edit` process each, each against a
`steer serve --engine local` of its own (three servers, the model loaded in each once), so none finds
the task's prompt cached by another: every command starts cold, as a first request on a file does:
  1. one attempt (`steer edit FILE -m ...`), the edited file judged by the task's hidden test;
  2. `--attempts N`: its wall time against run 1's (target: at most 2.5x for N = 3); each
     alternative's diff from `--json` applied to the input and judged: distinct proposals (target: 2
     or more for 80% of tasks), the file it wrote (the most likely that applies: never worse than
     run 1), and the first in order that passes, which is what `--check` with the test would pick;
  3. `--attempts N --check CMD`, CMD the bench's own judging of the candidate (bench/editbench.judge:
     the file plus the hidden test, run as a script) in steer's scratch copy: the file it wrote,
     judged again here (target: 12 points over run 1), and its wall time (it stops asking once an
     alternative passes).
Run 2's first alternative is the answer run 1 gives; the table says on how many tasks it was.

`python -m bench alternatives [--set humanevalfix|humanevalfix_java|humanevalfix_cpp|polyglot|usertasks] [--start I] [--limit N]
 [--attempts N] [--threads T] [--check-jobs J] [--no-check-run] [--out FILE.jsonl] [--tables FILE.jsonl ...]`
Wrap it in `flock /tmp/steer-model.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

from bench.editbench import ROOT, SETS, Steer, TOOL_TIMEOUT_S, judge, load_set
from bench.table import percentile, print_table

# What the check command runs: the task's hidden test on the candidate steer wrote into its scratch copy.
CHECKER = """import json, sys
sys.path.insert(0, {root!r})
from bench.editbench import judge
import os
task = json.load(open({task!r}, encoding="utf-8"))
ok, why = judge(open(os.environ["STEER_CHECK_FILE"], encoding="utf-8").read(), task["test"], task["lang"])
print("passed" if ok else "failed: " + why)
sys.exit(0 if ok else 1)
"""


def _run(steer: Steer, task: dict, extra: list[str]) -> dict:
    """One `steer edit` on a fresh copy of the task's input: its JSON, wall time and the file it left."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="alternatives-") as tmp:
        work = Path(tmp)
        (work / task["file"]).write_text(task["input"], encoding="utf-8")
        cmd = [*steer.argv, "edit", task["file"], "-m", task["instruction"], "--json", "--backend", steer.url, *extra]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=steer._env(), cwd=work,
                                  timeout=TOOL_TIMEOUT_S * 3, stdin=subprocess.DEVNULL)
            code, out, err = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired:
            code, out, err = None, "", "timed out"
        seconds = time.perf_counter() - t0
        try:
            res = json.loads(out)
        except json.JSONDecodeError:
            res = {"reason": (err.strip().splitlines() or ["no output"])[-1]}
        edited = (work / task["file"]).read_text(encoding="utf-8")
    return {"exit": code, "seconds": seconds, "json": res, "edited": edited}


def apply_diff(old: str, diff: str) -> str:
    """`old` with a unified diff of it (steer_tui.edits.lines.unified_diff's) applied."""
    import re

    src = old.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out += src[at:start]
        at = start
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            if line.startswith("\\"):
                out[-1] = out[-1].rstrip("\n") if out and prev_kept else out[-1]
            elif line[:1] in (" ", "-"):
                at += 1
                if line[0] == " ":
                    out.append(line[1:])
                prev_kept = line[0] == " "
            elif line[:1] == "+":
                out.append(line[1:])
                prev_kept = True
            i += 1
    out += src[at:]
    return "".join(out)


def _checker(tmp: str, task: dict) -> str:
    spec = Path(tmp, "task.json")
    spec.write_text(json.dumps({"test": task["test"], "lang": task.get("lang", "python")}), encoding="utf-8")
    checker = Path(tmp, "check.py")
    checker.write_text(CHECKER.format(root=str(ROOT), task=str(spec)), encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(checker))}"


def _passes(task: dict, text: str) -> bool:
    return text != task["input"] and judge(text, task["test"], task.get("lang", "python"))[0]


def run_task(one: Steer, many: Steer, checked: Steer | None, task: dict, attempts: int, jobs: int) -> dict:
    single = _run(one, task, [])
    multi = _run(many, task, ["--attempts", str(attempts)])
    check_run = None
    if checked is not None:
        with tempfile.TemporaryDirectory(prefix="alternatives-check-") as tmp:
            check_run = _run(checked, task, ["--attempts", str(attempts), "--check", _checker(tmp, task),
                                             "--check-jobs", str(jobs)])
    alts = multi["json"].get("alternatives") or []
    passes = []
    for a in alts:
        text = apply_diff(task["input"], a.get("diff") or "") if a.get("applies") else None
        passes.append(bool(text is not None and _passes(task, text)))
    applying = [a for a in alts if a.get("applies")]
    j = multi["json"]
    row = {"task_id": task["task_id"], "single_s": round(single["seconds"], 3), "multi_s": round(multi["seconds"], 3),
           "lanes_s": j.get("alternatives_s"), "single_pass": _passes(task, single["edited"]),
           "multi_pass": _passes(task, multi["edited"]), "any_pass": any(passes), "passes": passes,
           "distinct": sum(1 for a in applying if a.get("identical_to") is None), "applying": len(applying),
           "first_same": bool(alts) and alts[0].get("diff", "") == (single["json"].get("diff") or ""),
           "single_exit": single["exit"], "multi_exit": multi["exit"], "attempt": j.get("attempt"),
           "hows": [a.get("how") for a in alts], "statuses": [a.get("status") for a in alts],
           "lane_reasons": [a.get("reason", "")[:160] for a in alts],
           "lane_s": [a.get("seconds") for a in alts], "lane_tokens": [a.get("tokens") for a in alts],
           "reason": (j.get("reason") or "")[:200]}
    if check_run is not None:
        c = check_run["json"]
        row.update(check_s=round(check_run["seconds"], 3), check_pass=_passes(task, check_run["edited"]),
                   check_exit=check_run["exit"], check_attempt=c.get("attempt"),
                   check_statuses=[a.get("status") for a in c.get("alternatives") or []],
                   check_lane_s=[a.get("seconds") for a in c.get("alternatives") or []],
                   check_wait_s=c.get("check_s"))
    return row


def summarize(rows: list[dict], set_name: str, attempts: int) -> None:
    n = len(rows)
    if not n:
        return
    one = [r["single_s"] for r in rows]
    many = [r["multi_s"] for r in rows]
    table = [["one attempt", sum(one), percentile(one, 50), percentile(one, 90), 1.0],
             [f"--attempts {attempts}", sum(many), percentile(many, 50), percentile(many, 90), sum(many) / sum(one)]]
    checked = [r for r in rows if "check_s" in r]
    if len(checked) == n:
        c = [r["check_s"] for r in rows]
        table.append([f"--attempts {attempts} --check (stops at a pass)", sum(c), percentile(c, 50), percentile(c, 90),
                      sum(c) / sum(one)])
    print_table(f"alternatives, {set_name}: wall time of `steer edit` ({n} tasks, each command on a cold engine)",
                ["run", "total s", "median s", "p90 s", "x one attempt (totals)"], table)
    ratios = [m / o for m, o in zip(many, one)]
    print(f"\n--attempts {attempts} / one attempt, per task: median {percentile(ratios, 50):.2f}x, "
          f"p90 {percentile(ratios, 90):.2f}x, max {max(ratios):.2f}x")
    distinct2 = sum(1 for r in rows if r["distinct"] >= 2)
    print_table(f"alternatives, {set_name}: diversity", ["tasks", f"2+ distinct proposals of {attempts}",
                                                          "mean distinct", "first alternative = one attempt's diff"],
                [[n, f"{distinct2} ({100 * distinct2 / n:.0f}%)", sum(r["distinct"] for r in rows) / n,
                  f"{sum(r['first_same'] for r in rows)}/{n}"]])
    p1, pm, pany = (sum(r[k] for r in rows) for k in ("single_pass", "multi_pass", "any_pass"))
    value = [["one attempt", p1, 100 * p1 / n, 0.0],
             [f"--attempts {attempts} (the most likely that applies)", pm, 100 * pm / n, 100 * (pm - p1) / n],
             [f"--attempts {attempts}: the first in order that passes (what --check picks)", pany, 100 * pany / n,
              100 * (pany - p1) / n]]
    if len(checked) == n:
        pc = sum(r["check_pass"] for r in rows)
        value.append([f"--attempts {attempts} --check (run)", pc, 100 * pc / n, 100 * (pc - p1) / n])
    print_table(f"alternatives, {set_name}: passes of the hidden test", ["run", "passed", "%", "points over one"], value)
    worse = [r["task_id"] for r in rows if r["single_pass"] and not r["multi_pass"]]
    print(f"\ntasks one attempt passed and --attempts {attempts} did not: {', '.join(worse) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench alternatives", description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="humanevalfix", choices=(*SETS, "usertasks"))
    parser.add_argument("--limit", type=int, default=40, help="N tasks (default 40)")
    parser.add_argument("--start", type=int, default=0, help="from the task at this index (default 0)")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check-jobs", type=int, default=2)
    parser.add_argument("--no-check-run", dest="check_run", action="store_false",
                        help="skip run 3 (the value of --check is then only what run 2's alternatives say)")
    parser.add_argument("--out", help="JSONL file, one line per task")
    parser.add_argument("--tables", nargs="+", metavar="FILE", help="print the tables of earlier runs and exit")
    args = parser.parse_args(argv)
    if args.tables:
        for path in args.tables:
            rows = [json.loads(ln) for ln in Path(path).read_text().splitlines() if ln.strip()]
            summarize(rows, Path(path).stem, args.attempts)
        return 0
    tasks = load_set(args.set)[args.start : args.start + args.limit]
    one, many = Steer(args.threads, name="steer-one"), Steer(args.threads, name="steer-alternatives")
    checked = Steer(args.threads, name="steer-check") if args.check_run else None
    out = open(args.out, "a", encoding="utf-8") if args.out else None
    rows = []
    try:
        for steer in (one, many, checked):
            if steer is not None:
                steer.start()
        for task in tasks:
            row = run_task(one, many, checked, task, args.attempts, args.check_jobs)
            rows.append(row)
            if out is not None:
                out.write(json.dumps({"set": args.set, **row}) + "\n")
                out.flush()
            print(f"{row['task_id']}: one {row['single_s']:.1f}s {'PASS' if row['single_pass'] else 'fail'} | "
                  f"{args.attempts}: {row['multi_s']:.1f}s {'PASS' if row['multi_pass'] else 'fail'} "
                  f"passes {row['passes']} distinct {row['distinct']} {row['statuses']} | check: "
                  f"{row.get('check_s', 0):.1f}s {'PASS' if row.get('check_pass') else 'fail'}", file=sys.stderr, flush=True)
    finally:
        for steer in (one, many, checked):
            if steer is not None:
                steer.stop()
        if out is not None:
            out.close()
    summarize(rows, args.set, args.attempts)
    return 0
