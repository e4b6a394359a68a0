"""`steer edit` cold (`--no-daemon`: a private engine, the model loaded again) vs warm (the shared engine already running).

Each run is a real `steer edit --json` process on the embedded model. Wall time is the process's,
start to exit; first token is from its start: when its "generating…" line reached stderr (the
request is sent) plus the `ttft_s` it reports. The one-line fix is a two-line file
(`return a - b` to `return a + b`), ROUNDS rounds of cold then warm; `--hef N` runs the first N
HumanEvalFix tasks of ../shared/editbench (bench/editbench.py's tasks and judge) once each way.
`--baseline DIR` times the cold one-liner with another checkout too (the code before the shared
engine), for "the cold path is no slower than today"; `--root DIR` times a frozen copy instead of
this tree (the shared engine is replaced whenever its code changes, as it does while others edit). The shared engine lives in a runtime dir of
the run's own and is stopped at the end.

`--again N` times the next command on a file `steer edit` just wrote, warm: a generated 200-line
module (bench/bigfile_gen.py), AGAIN_FIRST (a method near the top), a pause of `--pause S` (the
user reads the diff), then AGAIN_SECOND (a method 60% down); the second command's wall time and first
token, N rounds; with `--baseline DIR` then the same with that checkout on a shared engine of its own
(one checkout after the other, each engine stopped before the next starts: a prewarm left running
must not share the CPU with the other's commands). The written file left prewarmed is what it measures.

`python -m bench warm [--rounds N] [--hef N] [--again N [--pause S]] [--baseline DIR]`; wrap it in
`flock /tmp/steer-model.lock`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench.checkout import steer_argv
from bench.table import print_table

ONE_LINER = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
INSTRUCTION = "add should return the sum"
TIMEOUT_S = 300
AGAIN_FIRST = "make ExternalSupplierView.cancel_pending_due return None instead of self"
AGAIN_SECOND = "make ReportBuilder._get_renderer pass width=100 to the renderer class"


def run_edit(argv: list[str], workdir: Path, file: str, instruction: str, extra: list[str], env: dict) -> dict:
    """One `steer edit --json`: wall, first token from its start, and what it reported."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([*argv, "edit", file, "-m", instruction, "--json", *extra], cwd=workdir, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sent: list[float] = []
    err: list[str] = []

    def read_stderr() -> None:
        for line in proc.stderr:
            err.append(line)
            if "generating" in line and not sent:
                sent.append(time.perf_counter() - t0)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        out = proc.stdout.read()
        proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out = ""
    wall = time.perf_counter() - t0
    reader.join(5)
    try:
        res = json.loads(out)
    except json.JSONDecodeError:
        res = {"reason": "".join(err)[-300:]}
    ttft = res.get("ttft_s")
    first = sent[0] + ttft if sent and ttft is not None else None
    return {"wall": wall, "first": first, "engine": res.get("engine"), "connect_s": res.get("connect_s"),
            "applied": res.get("applied"), "exit": proc.returncode, "reason": res.get("reason", ""),
            "tokens": res.get("tokens")}


def _env(config: Path, runtime: Path, root: Path) -> dict:
    env = dict(os.environ, NO_COLOR="1", STEER_CONFIG=str(config), STEER_RUNTIME_DIR=str(runtime))
    for key in ("STEER_BACKEND", "STEER_FORMAT", "STEER_MODEL", "STEER_NO_DAEMON"):
        env.pop(key, None)
    return env


def _argv(root: Path | None) -> list[str]:
    return steer_argv(root)


def one_liner(argv, env, extra) -> dict:
    with tempfile.TemporaryDirectory(prefix="warm-") as tmp:
        Path(tmp, "add.py").write_text(ONE_LINER, encoding="utf-8")
        r = run_edit(argv, Path(tmp), "add.py", INSTRUCTION, extra, env)
        r["correct"] = Path(tmp, "add.py").read_text(encoding="utf-8") == FIXED
    return r


def settle(runtime: Path, limit: float = 15.0) -> None:
    """Wait (at most `limit` s) until the shared engines in `runtime` run nothing: after a warm
    command wrote, its engine reads the written file on (a detached prewarm), and a cold command
    started then would share the two cores with it. A warm command stops that read itself."""
    from steer_tui.transport import daemon
    from steer_tui.transport.health import gateway_info

    end = time.monotonic() + limit
    while time.monotonic() < end:
        infos = [asyncio.run(gateway_info(addr.url, addr.token)) for _, addr in daemon.all_addresses(runtime) if addr]
        if not any(info and info.get("in_flight") for info in infos):
            return
        time.sleep(0.2)


def _median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def _row(name: str, runs: list[dict], cold: dict | None = None) -> list:
    wall, first = _median(r["wall"] for r in runs), _median(r["first"] for r in runs)
    ratio = f"{cold['wall'] / wall:.1f}x" if cold else ""
    ratio_first = f"{cold['first'] / first:.1f}x" if cold else ""
    return [name, len(runs), f"{sum(bool(r.get('correct', r.get('passed'))) for r in runs)}/{len(runs)}",
            wall, min(r["wall"] for r in runs), max(r["wall"] for r in runs), first,
            _median(r["connect_s"] for r in runs), ratio, ratio_first]


HEADERS = ["steer edit", "runs", "correct", "wall median s", "min", "max", "first token median s",
           "connect median s", "cold/warm wall", "cold/warm first token"]


def hef(n: int, env: dict, argv: list[str], runtime: Path) -> list[list]:
    from bench.editbench import judge, load_set

    tasks = load_set("humanevalfix")[:n]
    runs = {"cold": [], "warm": []}
    for i, task in enumerate(tasks):
        for mode, extra in (("cold", ["--no-daemon"]), ("warm", [])):
            settle(runtime)
            with tempfile.TemporaryDirectory(prefix="warm-hef-") as tmp:
                Path(tmp, task["file"]).write_text(task["input"], encoding="utf-8")
                r = run_edit(argv, Path(tmp), task["file"], task["instruction"], extra, env)
                edited = Path(tmp, task["file"]).read_text(encoding="utf-8")
            r["passed"] = edited != task["input"] and judge(edited, task["test"], task.get("lang", "python"))[0]
            runs[mode].append(r)
            print(f"  {task['task_id']} {mode}: {r['wall']:.2f}s {'pass' if r['passed'] else 'fail'} "
                  f"engine={r['engine']}", flush=True)
    cold = {"wall": _median(r["wall"] for r in runs["cold"]), "first": _median(r["first"] for r in runs["cold"])}
    return [_row(f"HEF-{n} cold", runs["cold"]), _row(f"HEF-{n} warm", runs["warm"], cold)]


def again(n: int, pause: float, runs: list[tuple[str, list[str], dict]]) -> list[list]:
    """The second of two commands on one file, `pause` seconds apart, for each (name, argv, env)."""
    from bench.bigfile_gen import generate
    from steer_tui.transport import daemon

    seconds: dict[str, list[dict]] = {name: [] for name, _, _ in runs}
    for name, argv, env in runs:
        for i in range(n):
            with tempfile.TemporaryDirectory(prefix="warm-again-") as tmp:
                # Its first line differs each round: no round finds another's file in the engine's cache.
                Path(tmp, "ops.py").write_text(f"# Copy {i + 1} of the operations module.\n" + generate(200),
                                               encoding="utf-8")
                first = run_edit(argv, Path(tmp), "ops.py", AGAIN_FIRST, [], env)
                time.sleep(pause)
                second = run_edit(argv, Path(tmp), "ops.py", AGAIN_SECOND, [], env)
                text = Path(tmp, "ops.py").read_text(encoding="utf-8")
            second["correct"] = bool(first["applied"] and second["applied"]) and "width=100" in text
            seconds[name].append(second)
            print(f"  round {i + 1} {name}: first {first['wall']:.2f}s ({first['engine']}, {first['tokens']} tokens), "
                  f"second {second['wall']:.2f}s, first token {second['first'] or float('nan'):.2f}s "
                  f"({second['engine']}, {'correct' if second['correct'] else 'not as asked'})", flush=True)
        os.environ[daemon.RUNTIME_ENV] = env["STEER_RUNTIME_DIR"]
        asyncio.run(daemon.stop_all(Path(env["STEER_RUNTIME_DIR"])))
    base = runs[-1][0] if len(runs) > 1 else None
    b = {"wall": _median(r["wall"] for r in seconds[base]), "first": _median(r["first"] for r in seconds[base])} \
        if base else None
    return [_row(f"second command, {name}", seconds[name], b if name != base else None) for name, _, _ in runs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench warm")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hef", type=int, default=0, metavar="N", help="also the first N HumanEvalFix tasks")
    parser.add_argument("--again", type=int, default=0, metavar="N",
                        help="also N rounds of a second command on a file the first just wrote")
    parser.add_argument("--pause", type=float, default=15.0, metavar="S",
                        help="seconds between the two commands of --again (default 15)")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="a checkout to time the cold one-liner with")
    parser.add_argument("--root", type=Path, metavar="DIR",
                        help="the steer checkout to time (default this one): a frozen copy (git archive) keeps "
                             "the engine's build, and so the shared engine, the same while others edit this tree")
    args = parser.parse_args(argv or [])
    from steer_tui.transport import daemon

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="steer-warm-") as tmp:
        config, runtime = Path(tmp, "config.toml"), Path(tmp, "run")
        config.write_text("max_output_tokens = 1024\n", encoding="utf-8")
        if args.root:
            root = args.root.resolve()
        env = _env(config, runtime, root)
        steer = _argv(root)
        print(f"load average before: {Path('/proc/loadavg').read_text().strip()}", flush=True)
        try:
            first = one_liner(steer, env, [])  # starts the shared engine; not counted
            print(f"  first warm-path run (starts the engine): {first['wall']:.2f}s engine={first['engine']}", flush=True)
            cold, warm, base = [], [], []
            for i in range(args.rounds):
                settle(runtime)
                cold.append(one_liner(steer, env, ["--no-daemon"]))
                warm.append(one_liner(steer, env, []))
                if args.baseline:
                    base.append(one_liner(_argv(args.baseline), _env(config, runtime, args.baseline), []))
                print(f"  round {i + 1}: cold {cold[-1]['wall']:.2f}s warm {warm[-1]['wall']:.2f}s "
                      f"(engine={warm[-1]['engine']})" + (f" baseline {base[-1]['wall']:.2f}s" if base else ""),
                      flush=True)
            if args.rounds:
                c = {"wall": _median(r["wall"] for r in cold), "first": _median(r["first"] for r in cold)}
                rows = [_row("one-line fix, cold (--no-daemon)", cold), _row("one-line fix, warm", warm, c)]
                if base:
                    rows.insert(0, _row(f"one-line fix, baseline {args.baseline.name} (today)", base))
                print(f"load average: {Path('/proc/loadavg').read_text().strip()}")
                print_table("steer edit, the one-line fix, cold vs warm (embedded model)", HEADERS, rows)
            hef_rows = hef(args.hef, env, steer, runtime) if args.hef else []
            again_rows = []
            if args.again:
                runs = [("this checkout", steer, env)]
                if args.baseline:
                    runs.append((f"baseline {args.baseline.name}", _argv(args.baseline),
                                 _env(config, Path(tmp, "run-baseline"), args.baseline)))
                again_rows = again(args.again, args.pause, runs)
        finally:
            for folder in (runtime, Path(tmp, "run-baseline")):
                os.environ[daemon.RUNTIME_ENV] = str(folder)
                asyncio.run(daemon.stop_all(folder))
        print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")
    if hef_rows:
        print_table(f"steer edit, HumanEvalFix first {args.hef}, cold vs warm (embedded model)", HEADERS, hef_rows)
    if again_rows:
        print_table(f"steer edit, the second command on a file the first wrote, {args.pause:g} s later (warm engines)",
                    [*HEADERS[:8], "baseline/this wall", "baseline/this first token"], again_rows)
    return 0
