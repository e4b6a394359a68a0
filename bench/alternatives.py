"""`steer edit --attempts N --check CMD` against one attempt on the editbench sets: cost, diversity, value.

Per task, one after the other in the same minutes, a real `steer edit` process each:
  1. one attempt (`steer edit FILE -m ...`), the edited file judged by the task's hidden test;
  2. `steer edit FILE -m ... --attempts N --check CMD`, where CMD is the bench's own judging of the
     file (bench/editbench.judge: the candidate plus the hidden test, run as a script), run by steer
     in a scratch copy of the task's folder.
Each runs against a `steer serve --engine local` of its own (two servers, the model loaded in each
once), so neither finds the task's prompt cached by the other: both answers start cold, as a first
request on a file does.

Reported: wall time of each command, and of run 2 without its checks (its `check_s`), the ratio to
run 1 (target: at most 2.5x); distinct proposals among the N (target: 2 or more for 80% of tasks);
passes of run 1, of run 2 without --check (its most likely alternative that applies, judged: the
check's outcome for it) and with --check (the file it wrote, judged again here) (target: +12 points).
Run 2's first alternative is the answer run 1 gives; the table says on how many tasks it was.

`python -m bench alternatives [--set humanevalfix|humanevalfix_java|humanevalfix_cpp|polyglot] [--limit N]
 [--attempts N] [--threads T] [--check-jobs J] [--out FILE.jsonl] [--tables FILE.jsonl ...]`
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


def run_task(one: Steer, many: Steer, task: dict, attempts: int, jobs: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="alternatives-check-") as tmp:
        spec = Path(tmp, "task.json")
        spec.write_text(json.dumps({"test": task["test"], "lang": task["lang"]}), encoding="utf-8")
        checker = Path(tmp, "check.py")
        checker.write_text(CHECKER.format(root=str(ROOT), task=str(spec)), encoding="utf-8")
        check = f"{shlex.quote(sys.executable)} {shlex.quote(str(checker))}"
        single = _run(one, task, [])
        multi = _run(many, task, ["--attempts", str(attempts), "--check", check, "--check-jobs", str(jobs)])
    single_pass = single["edited"] != task["input"] and judge(single["edited"], task["test"], task["lang"])[0]
    multi_pass = multi["edited"] != task["input"] and judge(multi["edited"], task["test"], task["lang"])[0]
    alts = multi["json"].get("alternatives") or []
    applying = [a for a in alts if a.get("applies")]
    top = applying[0] if applying else None  # what --attempts N writes without --check
    top_pass = bool(top and (top.get("check") or {}).get("passed"))
    first_same = bool(alts) and alts[0].get("diff", "") == (single["json"].get("diff") or "")
    j = multi["json"]
    return {"task_id": task["task_id"], "single_s": round(single["seconds"], 3), "multi_s": round(multi["seconds"], 3),
            "lanes_s": j.get("alternatives_s"), "check_s": j.get("check_s"), "single_pass": single_pass,
            "multi_pass": multi_pass, "top_pass": top_pass, "distinct": sum(1 for a in applying if a.get("identical_to") is None),
            "applying": len(applying), "first_same": first_same, "multi_exit": multi["exit"], "single_exit": single["exit"],
            "multi_status": j.get("status"), "attempt": j.get("attempt"),
            "hows": [a.get("how") for a in alts], "statuses": [a.get("status") for a in alts],
            "reason": (j.get("reason") or "")[:200]}


def summarize(rows: list[dict], set_name: str, attempts: int) -> None:
    n = len(rows)
    if not n:
        return
    one = [r["single_s"] for r in rows]
    many_wo = [r["multi_s"] - (r["check_s"] or 0) for r in rows]
    many = [r["multi_s"] for r in rows]
    tot1, tot_wo, tot = sum(one), sum(many_wo), sum(many)
    print_table(f"alternatives, {set_name}: wall time of `steer edit` ({n} tasks, each on a cold engine)",
                ["run", "total s", "median s", "p90 s", "x one answer (totals)"],
                [["one attempt", tot1, percentile(one, 50), percentile(one, 90), 1.0],
                 [f"--attempts {attempts} (without its checks)", tot_wo, percentile(many_wo, 50), percentile(many_wo, 90),
                  tot_wo / tot1],
                 [f"--attempts {attempts} --check (all)", tot, percentile(many, 50), percentile(many, 90), tot / tot1]])
    distinct2 = sum(1 for r in rows if r["distinct"] >= 2)
    print_table(f"alternatives, {set_name}: diversity", ["tasks", f"2+ distinct proposals of {attempts}",
                                                          "mean distinct", "first alternative = one attempt's diff"],
                [[n, f"{distinct2} ({100 * distinct2 / n:.0f}%)", sum(r["distinct"] for r in rows) / n,
                  f"{sum(r['first_same'] for r in rows)}/{n}"]])
    p1, ptop, pm = (sum(r[k] for r in rows) for k in ("single_pass", "top_pass", "multi_pass"))
    print_table(f"alternatives, {set_name}: passes of the hidden test", ["run", "passed", "%", "points over one"],
                [["one attempt", p1, 100 * p1 / n, 0.0],
                 [f"--attempts {attempts} (most likely that applies)", ptop, 100 * ptop / n, 100 * (ptop - p1) / n],
                 [f"--attempts {attempts} --check", pm, 100 * pm / n, 100 * (pm - p1) / n]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench alternatives", description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="humanevalfix", choices=tuple(SETS))
    parser.add_argument("--limit", type=int, default=40, help="the first N tasks (default 40)")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check-jobs", type=int, default=2)
    parser.add_argument("--out", help="JSONL file, one line per task")
    parser.add_argument("--tables", nargs="+", metavar="FILE", help="print the tables of earlier runs and exit")
    args = parser.parse_args(argv)
    if args.tables:
        for path in args.tables:
            rows = [json.loads(ln) for ln in Path(path).read_text().splitlines() if ln.strip()]
            summarize(rows, Path(path).stem, args.attempts)
        return 0
    tasks = load_set(args.set)[: args.limit]
    one, many = Steer(args.threads, name="steer-one"), Steer(args.threads, name="steer-alternatives")
    out = open(args.out, "a", encoding="utf-8") if args.out else None
    rows = []
    try:
        one.start()
        many.start()
        for task in tasks:
            row = run_task(one, many, task, args.attempts, args.check_jobs)
            rows.append(row)
            if out is not None:
                out.write(json.dumps({"set": args.set, **row}) + "\n")
                out.flush()
            print(f"{row['task_id']}: one {row['single_s']:.1f}s {'PASS' if row['single_pass'] else 'fail'} | "
                  f"{args.attempts} {row['multi_s']:.1f}s (check {row['check_s'] or 0:.1f}s) "
                  f"top {'PASS' if row['top_pass'] else 'fail'} check {'PASS' if row['multi_pass'] else 'fail'} "
                  f"distinct {row['distinct']} {row['statuses']}", file=sys.stderr, flush=True)
    finally:
        one.stop()
        many.stop()
        if out is not None:
            out.close()
    summarize(rows, args.set, args.attempts)
    return 0
