"""A new function or method asked alone, in real files: `steer edit` from this checkout (an insertion
point: steer_tui/insertion.py) against a baseline checkout (the rewrite of the whole file or type).

Eight requests, written before either side ran, on python-humanize/humanize (Python, MIT) and
dtolnay/semver (Rust, MIT), each on a fresh copy of the project: exit, tokens, attempts, wall time,
and for the Python ones a test of the new function (`PYTHONPATH=src python -c ...`; the Rust ones
are read, the crate's dependencies being out of reach offline). Both sides use the shared embedded
engine, each its own, warmed first by a one-line edit; a task runs on both, one after the other.

`python -m bench additions --humanize DIR --semver DIR --baseline CHECKOUT [--out FILE]`, the two
projects as cloned (`git clone https://github.com/python-humanize/humanize`, ...; humanize needs
`src/humanize/_version.py`, which its build writes: `__version__ = "0"`). Wrap it in `flock
/tmp/steer-model.lock`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.checkout import steer_argv
from bench.table import print_table

PY = "PYTHONPATH=src python -c "
TASKS = [
    ("py-number-percent", "humanize", "src/humanize/number.py",
     "add a function percent(value, total, ndigits=0) that returns value/total as a percentage string, like "
     "percent(3, 8, 1) == '37.5%'",
     PY + "\"from humanize.number import percent; assert percent(3, 8, 1) == '37.5%'; assert percent(1, 4) == '25%'\""),
    ("py-time-weekday", "humanize", "src/humanize/time.py",
     "add a function natural_weekday(value) that returns the weekday name of a date, like 'Monday'",
     PY + "\"import datetime as dt; from humanize.time import natural_weekday as f; assert f(dt.date(2024, 1, 1)) == 'Monday'\""),
    ("py-filesize-kib", "humanize", "src/humanize/filesize.py",
     "add a function bytes_to_kib(value) that returns the number of bytes divided by 1024, rounded to one decimal",
     PY + "\"from humanize.filesize import bytes_to_kib as f; assert f(2048) == 2.0; assert f(1536) == 1.5\""),
    ("py-lists-or", "humanize", "src/humanize/lists.py",
     "add a function natural_or_list(items) that joins items like natural_list does, but with 'or' instead of 'and'",
     PY + "\"from humanize.lists import natural_or_list as f; assert f(['a', 'b', 'c']) == 'a, b or c'; "
          "assert f(['a', 'b']) == 'a or b'; assert f(['a']) == 'a'\""),
    ("py-i18n-locale", "humanize", "src/humanize/i18n.py",
     "add a function is_activated() that returns True when a locale other than the default is active",
     PY + "\"from humanize import i18n; assert i18n.is_activated() is False\""),
    ("rs-lib-prerelease", "semver", "src/lib.rs",
     "add a Version method is_prerelease that returns true when pre is not empty", None),
    ("rs-eval-any", "semver", "src/eval.rs",
     "add a function matches_any(reqs: &[VersionReq], ver: &Version) -> bool that is true when any req matches", None),
    ("rs-identifier-len", "semver", "src/lib.rs", "add a Prerelease method len that returns the length of its text", None),
]


def run(argv: list[str], project: Path, task, env: dict) -> dict:
    tid, _, rel, instruction, test = task
    with tempfile.TemporaryDirectory(prefix="additions-") as tmp:
        dest = Path(tmp) / "p"
        shutil.copytree(project, dest, ignore=shutil.ignore_patterns(".git", "__pycache__", "target"))
        subprocess.run(["git", "init", "-q"], cwd=dest)
        before = (dest / rel).read_text()
        t0 = time.perf_counter()
        done = subprocess.run([*argv, "edit", rel, "-m", instruction, "--json"], cwd=dest, env=env,
                              capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - t0
        try:
            got = json.loads(done.stdout)
        except json.JSONDecodeError:
            got = {"reason": done.stderr[-300:]}
        changed = (dest / rel).read_text() != before
        passed = None
        if test:
            test_env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
            passed = changed and subprocess.run(test, shell=True, cwd=dest, env=test_env, capture_output=True).returncode == 0
    return {"task": tid, "wall": round(wall, 2), "tokens": got.get("tokens"), "attempts": got.get("attempts"),
            "applied": bool(got.get("applied")), "passed": passed, "reason": (got.get("reason") or "")[:160],
            "diff": got.get("diff", "")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench additions", description=__doc__.splitlines()[0])
    parser.add_argument("--humanize", type=Path, required=True)
    parser.add_argument("--semver", type=Path, required=True)
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout of steer to compare with")
    parser.add_argument("--out", type=Path, help="append each run as a JSON line")
    args = parser.parse_args(argv or [])
    env = {k: v for k, v in os.environ.items() if k not in ("STEER_BACKEND", "STEER_FORMAT", "STEER_MODEL")}
    sides = {"this checkout": steer_argv(), "baseline": steer_argv(args.baseline)}
    with tempfile.TemporaryDirectory(prefix="additions-warm-") as tmp:
        for argv in sides.values():  # each side's engine started and loaded before any task
            Path(tmp, "add.py").write_text("def add(a, b):\n    return a - b\n")
            subprocess.run([*argv, "edit", "add.py", "-m", "add should return the sum"], cwd=tmp, env=env,
                           capture_output=True, timeout=600)
    projects = {"humanize": args.humanize, "semver": args.semver}
    rows: dict[str, list[dict]] = {name: [] for name in sides}
    for task in TASKS:
        for name, argv in sides.items():
            r = run(argv, projects[task[1]], task, env)
            rows[name].append(r)
            print(f"  {name}: {r['task']} {r['wall']:.1f}s {r['tokens']} tok, {r['attempts']} attempt(s), "
                  f"applied={r['applied']} passed={r['passed']} {r['reason'][:90]}", flush=True)
            if args.out:
                with args.out.open("a") as f:
                    f.write(json.dumps({"side": name, **r}) + "\n")
    table = []
    for name, runs in rows.items():
        tested = [r for r in runs if r["passed"] is not None]
        table.append([name, len(runs), sum(r["applied"] for r in runs), f"{sum(bool(r['passed']) for r in tested)}/{len(tested)}",
                      statistics.median(r["wall"] for r in runs), sum(r["tokens"] or 0 for r in runs)])
    print_table("additions: steer edit, this checkout against the baseline", ["side", "tasks", "applied",
                "tests passed", "median wall s", "output tokens"], table)
    return 0
