"""Which edit format suits the embedded 1.5B model: SEARCH/REPLACE blocks vs region rewrite, measured.

Every task in bench/tasks runs once per format through the real LocalEngine (greedy, bounded
output), the product's parser + applier (steer_tui.edits.apply.apply_response), then the task's check
on the edited file. The region rewrite gets the enclosing function (the task's `region`) as its
region, as the session would give it.
Reports pass rate and median seconds per task for each format: from the request (the file already
prewarmed, as when the user has it open) to the complete response.

`python -m bench formats` (or `python -m bench.formats [--limit N] [--only NAME,...]`).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import statistics
import sys
import threading
import time
import uuid

from bench.table import print_table

MAX_TOKENS = 384
FORMATS = ("search_replace", "rewrite")


def function_region(source: str, name: str) -> tuple[int, int]:
    """(start, end) 0-based end-exclusive lines of the def/class called `name` (decorators included)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            return first, node.end_lineno
    raise KeyError(name)


def apply_edit(fmt: str, source: str, response: str, region: tuple[int, int] | None, path: str) -> str:
    """The edited file, through the product's parser + applier (steer_tui.edits.apply.apply_response; raises on refusal)."""
    from steer_tui.edits.apply import apply_response

    if fmt == "rewrite":
        lines = source.splitlines(keepends=True)
        region_text = "".join(lines[region[0] : region[1]])
        return apply_response(source, response, region_text=region_text, region_start=region[0], path=path).new_text
    return apply_response(source, response, path=path).new_text


async def _run_one(engine, fmt: str, task) -> dict:
    from steer_tui import prompts
    from steer_tui.server.engines.base import EngineRequest
    from bench.tasks import run_check

    path = f"{task.name.split('_')[0]}.py"
    region = function_region(task.source, task.region) if fmt == "rewrite" else None
    messages = prompts.build_messages(fmt, path, task.source, task.instruction, region=region)
    session = f"formats-{fmt}"
    # As in the product: the file is prewarmed when opened; the time counted is Enter -> edit done.
    warm = [messages[0], *prompts.prewarm_input(fmt, path, task.source)]
    async for _ in engine.stream(EngineRequest(f"warm_{uuid.uuid4().hex[:8]}", warm, session, generate=False), threading.Event()):
        pass
    req = EngineRequest(f"resp_{uuid.uuid4().hex[:8]}", messages, session, max_output_tokens=MAX_TOKENS, temperature=0.0)
    t0 = time.perf_counter()
    parts = [d async for d in engine.stream(req, threading.Event())]
    seconds = time.perf_counter() - t0
    response = "".join(parts)
    try:
        new_text = apply_edit(fmt, task.source, response, region, path)
    except Exception as exc:  # a refusal or a parse failure is a failed task
        return {"ok": False, "s": seconds, "why": f"apply: {type(exc).__name__}: {exc}"[:160], "tokens": req.usage.output_tokens, "response": response}
    ok, why = run_check(task, new_text)
    return {"ok": ok, "s": seconds, "why": why, "tokens": req.usage.output_tokens, "response": response}


async def _eval(tasks, verbose: bool, formats=FORMATS, show=False) -> dict:
    from steer_tui.server.engines.local import LocalEngine

    engine = LocalEngine(n_ctx=4096)
    await engine.start()
    results: dict = {fmt: [] for fmt in formats}
    try:
        for i, task in enumerate(tasks):
            for fmt in formats:  # interleaved, so load from other processes hits both formats alike
                r = await _run_one(engine, fmt, task)
                results[fmt].append((task.name, r))
                if verbose:
                    mark = "pass" if r["ok"] else f"FAIL {r['why']}"
                    print(f"[{i + 1}/{len(tasks)}] {task.name:26} {fmt:15} {r['s']:5.1f}s {r['tokens']:4d} tok  {mark}", file=sys.stderr, flush=True)
                if show and not r["ok"]:
                    print(f"--- response ({task.name}, {fmt}):\n{r['response']}\n---", file=sys.stderr, flush=True)
    finally:
        await engine.close()
    return results


def main(argv: list[str] | None = None) -> int:
    from steer_tui.server import model_store
    from bench.tasks import load_tasks

    parser = argparse.ArgumentParser(prog="bench.formats")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N tasks")
    parser.add_argument("--only", default="", help="comma-separated task names")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated formats to run")
    parser.add_argument("--show", action="store_true", help="print the model's response for each failure")
    args = parser.parse_args(argv or [])
    try:
        model_store.require_llama_cpp()
        model_store.ensure_model(progress=True)
        import steer_tui.edits.apply  # noqa: F401  (H1's applier must be there)
    except (model_store.ModelStoreError, ImportError) as exc:
        print(f"bench formats: skipped: {exc}", file=sys.stderr)
        return 0
    tasks = load_tasks(args.only, args.limit)
    formats = tuple(f for f in args.formats.split(",") if f)
    results = asyncio.run(_eval(tasks, not args.quiet, formats, args.show))
    rows = []
    for fmt in formats:
        rs = [r for _, r in results[fmt]]
        passed = sum(r["ok"] for r in rs)
        rows.append([fmt, f"{passed}/{len(rs)}", passed / len(rs), statistics.median(r["s"] for r in rs),
                     statistics.median(r["tokens"] for r in rs)])
    print_table(f"edit formats on the embedded model ({len(tasks)} tasks, greedy, max {MAX_TOKENS} tokens)",
                ["format", "passed", "pass rate", "median s/task (after prewarm)", "median output tokens"], rows)
    fails = [[fmt, name, r["why"]] for fmt in formats for name, r in results[fmt] if not r["ok"]]
    if fails:
        print_table("failures", ["format", "task", "why"], fails)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
