"""Cross-file edit tasks (issue 41): small Python and JavaScript projects where the edit is in one
file and what it needs (a helper, a constant, an error class, an enum member, a signature) is in
another; each judged by a hidden test run in a copy of the edited project.

`tune.jsonl` is the split context selection may be tuned on; `heldout.jsonl` (chosen at random with
a fixed seed when the tasks were written, before any run) is never used for tuning. Both are built
from tasks_python.py and tasks_js.py by `--write`. `fresh.jsonl` (from tasks_fresh.py, written later
by someone who had not read how context is chosen) is a second held-out set, never tuned on, as is
`blind2.jsonl` (tasks_blind2.py, likewise written blind to how context is chosen) and
`nodeimports.jsonl` (tasks_nodeimports.py: edits that need a Node built-in module the file does not
require yet, written blind to that mechanism); `--check` proves every test fails on the
original project and passes on the reference solution. `python -m bench editbench --set crossfile`
(or `crossfile_heldout`) runs the tools on them.

`python -m bench crossfile --check [--set tune|heldout|all]` | `--write`
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLITS = {"tune": HERE / "tune.jsonl", "heldout": HERE / "heldout.jsonl", "fresh": HERE / "fresh.jsonl",
          "nodeimports": HERE / "nodeimports.jsonl", "langs": HERE / "langs.jsonl", "blind2": HERE / "blind2.jsonl"}
# Later sets written whole by someone who had not read the mechanism they measure: split -> module
# of their TASKS; never tuned on.
WRITTEN_BLIND = {"fresh": "bench.crossfile.tasks_fresh", "nodeimports": "bench.crossfile.tasks_nodeimports",
                 "langs": "bench.crossfile.tasks_langs", "blind2": "bench.crossfile.tasks_blind2"}
SEED = 41  # the number; fixed so the split never moves
TUNE_SHARE = 0.6
TEST_TIMEOUT_S = 20
BUILD_TIMEOUT_S = 120  # javac, gcc and cargo build the project and its test first
DEFAULT_TEST_FILE = {"python": "_check.py", "javascript": "_check.js", "java": "_Check.java", "c": "_check.c",
                     "rust": "tests/check.rs"}
# How the other languages build and run a project with its test (the test file holds `main`, or is
# Rust's integration test); a compile error is a failure.
_BUILDS = {
    "java": "mkdir -p _out && javac -d _out $(find . -name '*.java') && java -ea -cp _out _Check",
    "c": "gcc -std=c11 -Wall -I. -Iinclude -o _check $(find . -name '*.c') -lm && ./_check",
    "rust": "cargo test --offline -q",
}
FIELDS = ("id", "lang", "files", "target", "instruction", "test", "test_file", "solution")


# ------------------------------------------------------------------ loading


def load(split: str) -> list[dict]:
    """The tasks of one split ("tune" or "heldout"), each with the FIELDS above."""
    path = SPLITS[split]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _authored(raws: list[dict] | None = None) -> list[dict]:
    from bench.crossfile.tasks_js import TASKS as JS
    from bench.crossfile.tasks_python import TASKS as PY

    tasks = []
    for raw in ([*PY, *JS] if raws is None else raws):
        original = raw["files"][raw["target"]]
        solution = original
        for old, new in raw["edit"]:
            if solution.count(old) != 1:
                raise ValueError(f"{raw['id']}: the solution's old text occurs {solution.count(old)} times: {old!r}")
            solution = solution.replace(old, new)
        tasks.append({"id": raw["id"], "lang": raw["lang"], "files": raw["files"], "target": raw["target"],
                      "instruction": raw["instruction"], "test": raw["test"],
                      "test_file": raw.get("test_file") or DEFAULT_TEST_FILE[raw["lang"]], "solution": solution})
    return tasks


def split(tasks: list[dict]) -> dict[str, list[dict]]:
    """TUNE_SHARE of each language to tune, the rest held out, by a seeded shuffle of the ids."""
    rng = random.Random(SEED)
    out: dict[str, list[dict]] = {"tune": [], "heldout": []}
    for lang in sorted({t["lang"] for t in tasks}):
        ids = sorted(t["id"] for t in tasks if t["lang"] == lang)
        rng.shuffle(ids)
        tune = set(ids[: round(len(ids) * TUNE_SHARE)])
        for t in tasks:
            if t["lang"] == lang:
                out["tune" if t["id"] in tune else "heldout"].append(t)
    return out


def write() -> dict[str, int]:
    tasks = _authored()
    ids = [t["id"] for t in tasks]
    if len(ids) != len(set(ids)):
        raise ValueError("task ids repeat")
    counts = {}
    for name, part in split(tasks).items():
        SPLITS[name].write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in part), encoding="utf-8")
        counts[name] = len(part)
    for name, module in WRITTEN_BLIND.items():
        try:
            raws = importlib.import_module(module).TASKS
        except ImportError:
            continue
        part = _authored(raws)
        if {t["id"] for t in part} & set(ids):
            raise ValueError(f"a task id of {name} repeats an earlier one")
        ids += [t["id"] for t in part]
        SPLITS[name].write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in part), encoding="utf-8")
        counts[name] = len(part)
    return counts


# ------------------------------------------------------------------ judging


def write_project(files: dict[str, str], dest: Path) -> None:
    for rel, text in files.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _runner(task: dict) -> list[str]:
    if task["lang"] == "python":
        return [sys.executable, "-B", task["test_file"]]
    if task["lang"] in _BUILDS:
        return ["sh", "-c", _BUILDS[task["lang"]]]
    return ["node", task["test_file"]]


def run_test(task: dict, project: Path | dict[str, str]) -> tuple[bool, str]:
    """Run the task's hidden test in a copy of `project` (a folder, or {path: text}): (passed, why not).
    The copy leaves out .git so the test sees only the project's files."""
    with tempfile.TemporaryDirectory(prefix="crossfile-judge-") as tmp:
        root = Path(tmp, "project")
        if isinstance(project, dict):
            root.mkdir()
            write_project(project, root)
        else:
            shutil.copytree(project, root, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        (root / task["test_file"]).parent.mkdir(parents=True, exist_ok=True)
        (root / task["test_file"]).write_text(task["test"], encoding="utf-8")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NODE_NO_WARNINGS="1")
        env.pop("PYTHONPATH", None)
        limit = BUILD_TIMEOUT_S if task["lang"] in _BUILDS else TEST_TIMEOUT_S
        try:
            proc = subprocess.run(_runner(task), cwd=root, capture_output=True, text=True, timeout=limit,
                                  stdin=subprocess.DEVNULL, env=env)
        except subprocess.TimeoutExpired:
            return False, f"test timed out ({limit} s)"
    if proc.returncode == 0:
        return True, ""
    lines = [ln.strip() for ln in (proc.stderr or proc.stdout).strip().splitlines() if ln.strip()]
    # Node ends a failure with its version line; the error's own line says more.
    errors = [ln for ln in lines if "Error" in ln or "error" in ln or ln.startswith(("assert", "SystemExit"))]
    if task["lang"] in _BUILDS and errors and "error" in errors[0]:
        return False, errors[0][:200]  # a compiler's first error says what; its last line counts them
    return False, ((errors or lines)[-1] if lines else f"exit {proc.returncode}")[:200]


def check(tasks: list[dict]) -> list[str]:
    """Every problem with the tasks: a test that passes unedited or fails on the solution, a bad shape."""
    problems = []
    for t in tasks:
        missing = [f for f in FIELDS if f not in t]
        if missing:
            problems.append(f"{t.get('id')}: missing {missing}")
            continue
        if t["target"] not in t["files"] or not 2 <= len(t["files"]) <= 4:
            problems.append(f"{t['id']}: target not among 2-4 files")
        if t["solution"] == t["files"][t["target"]]:
            problems.append(f"{t['id']}: the solution changes nothing")
        ok, why = run_test(t, t["files"])
        if ok:
            problems.append(f"{t['id']}: the test passes on the unedited project")
        solved = dict(t["files"], **{t["target"]: t["solution"]})
        ok_s, why_s = run_test(t, solved)
        if not ok_s:
            problems.append(f"{t['id']}: the test fails on the solution: {why_s}")
        print(f"{t['id']:32} unedited: {'PASS (bad)' if ok else 'fail'} ({why[:60]})  "
              f"solution: {'pass' if ok_s else 'FAIL (bad)'}", flush=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench crossfile", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="every test fails unedited and passes on the solution")
    parser.add_argument("--set", default="all", choices=(*SPLITS, "all"))
    parser.add_argument("--write", action="store_true", help="rebuild every split's .jsonl from the task files")
    args = parser.parse_args(argv or [])
    if args.write:
        print("crossfile: wrote " + ", ".join(f"{n} {k}" for k, n in write().items()))
    if args.check or not args.write:
        names = [n for n in SPLITS if SPLITS[n].exists()] if args.set == "all" else [args.set]
        tasks = [t for n in names for t in load(n)]
        problems = check(tasks)
        langs = {lang: sum(t["lang"] == lang for t in tasks) for lang in sorted({t["lang"] for t in tasks})}
        print(f"\ncrossfile: {len(tasks)} tasks ({', '.join(f'{n} {k}' for k, n in langs.items())}), "
              f"{len(problems)} problems")
        for p in problems:
            print("  " + p)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
