"""`steer edit` end to end on bench/tasks with the embedded model: pass rate and median seconds per task.

Each task's source is written to a fresh file and edited by a real `steer edit FILE -m ... --json`
subprocess (the product path: session, parser, locator, applier with retry-on-refusal, Document),
then the task's check runs on the file as it is on disk. A task passes only if `steer edit` exits 0
and the check passes.

By default one `steer serve --engine local` child serves every task (`--backend ws://...`), so the
seconds are the edit, not the model load; `--cold` runs each `steer edit` with no backend configured
(it starts the embedded engine itself, as a first-time user would) and includes the load.

`python -m bench edit [--limit N] [--only NAME,...] [--format F] [--region] [--cold]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import print_table
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

ROOT = Path(__file__).resolve().parents[1]


def function_lines(source: str, name: str) -> tuple[int, int]:
    """1-based inclusive lines of the def/class called `name`."""
    import ast

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return first, node.end_lineno
    raise KeyError(name)


def run_task(task, workdir: Path, backend: str | None, fmt: str | None, region: bool) -> dict:
    from bench.tasks import run_check

    target = workdir / f"{task.name}.py"
    target.write_text(task.source, encoding="utf-8")
    cmd = [*STEER, "edit", str(target), "-m", task.instruction, "--json"]
    if backend:
        cmd += ["--backend", backend]
    if fmt:
        cmd += ["--format", fmt]
    if region:
        a, b = function_lines(task.source, task.region)
        cmd += ["--region", f"{a}:{b}"]
    env = dict(os.environ, NO_COLOR="1")
    if not backend:
        env.pop("STEER_BACKEND", None)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    seconds = time.perf_counter() - t0
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result = {"reason": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    ok, why = run_check(task, target.read_text(encoding="utf-8"))
    passed = proc.returncode == 0 and ok
    return {
        "name": task.name,
        "exit": proc.returncode,
        "passed": passed,
        "seconds": seconds,
        "attempts": result.get("attempts"),
        "tokens": result.get("tokens"),
        "ttft_s": result.get("ttft_s"),
        "why": "" if passed else (result.get("reason") or why)[:70],
    }


async def _start_gateway():
    from steer_tui.transport.launcher import GatewayProcess

    return await GatewayProcess.start(["--engine", "local"], timeout=900)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench edit", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int)
    parser.add_argument("--only", help="comma-separated task names")
    parser.add_argument("--format", help="force an edit format (default: steer edit's choice)")
    parser.add_argument("--region", action="store_true", help="pass the task's function as --region")
    parser.add_argument("--cold", action="store_true", help="each steer edit starts the embedded engine itself")
    args = parser.parse_args(argv if argv is not None else [])
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        print("bench edit: the local extra is missing (pip install 'steer-tui[local]')", file=sys.stderr)
        return 2
    from bench.tasks import load_tasks

    tasks = load_tasks(args.only, args.limit)
    gateway = None
    backend = None
    if not args.cold:
        gateway = asyncio.run(_start_gateway())
        backend = gateway.url
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for task in tasks:
                r = run_task(task, Path(tmp), backend, args.format, args.region)
                rows.append(r)
                print(f"{r['name']}: {'pass' if r['passed'] else 'FAIL'} exit={r['exit']} {r['seconds']:.1f}s "
                      f"{r['why']}", file=sys.stderr, flush=True)
    finally:
        if gateway is not None:
            gateway.kill()
    passed = sum(r["passed"] for r in rows)
    secs = [r["seconds"] for r in rows]
    mode = "cold (each run starts the engine)" if args.cold else "shared local gateway"
    print_table(f"steer edit on bench/tasks, embedded model, {mode}",
                ["task", "pass", "exit", "attempts", "tokens", "ttft s", "seconds", "why not"],
                [[r["name"], "yes" if r["passed"] else "no", r["exit"], r["attempts"] or 0, r["tokens"] or 0,
                  float(r["ttft_s"] or 0), r["seconds"], r["why"]] for r in rows])
    if rows:
        print_table("summary", ["tasks", "passed", "pass rate", "median s/task", "format", "region"],
                    [[len(rows), passed, f"{100 * passed / len(rows):.0f}%", statistics.median(secs),
                      args.format or "default", "--region: the function" if args.region else "none given (steer edit chooses)"]])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
