"""Going from one function of a big file to the next: what the engine reads before each can be asked.

The app prewarms the open file, then the region at the cursor (or the one the typed words name) as
the user moves. In a file over the embedded model's view budget (argparse.py, 2,633 lines; a
generated 20,000-line module) this bench opens a real Session on `steer serve --engine local`, waits
for the file's prewarm, then moves to each of several functions spread over the file in turn: for
each, the region prewarm's evaluated tokens and seconds, then Enter -> first token there. A view
built around each region is read again at every move; one that does not depend on the region is
read once. Run it from each checkout to compare (`cd CHECKOUT && python -m bench region_switch`),
in the same minutes, under `flock /tmp/steer-model.lock` on a shared machine.

Run: `python -m bench region_switch [--file argparse|generated] [--moves 4] [--out FILE]`
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.bigfile import cases
from bench.table import print_table, write_report
from bench.typing import Recording, _usage

# Functions spread over each file, in the order the cursor visits them.
STOPS = {"argparse": ["_get_formatter", "add_argument", "_get_values", "format_usage", "_check_value", "error"],
         "generated": ["helper_40", "change_me", "helper_400", "helper_900", "helper_1400", "helper_10"]}


async def run(which: str, moves: int) -> list[dict]:
    from steer_tui import prompts
    from steer_tui.config import Settings
    from steer_tui.files import Document
    from steer_tui.session import Session
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    case = cases()[1 if which == "argparse" else 2]
    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-switch-"))
    subprocess.run(["git", "init", "-q", str(tmp)], check=True)  # a project of one file: no other context
    path = tmp / case.file
    path.write_text(case.text, encoding="utf-8")
    defs = prompts.definitions(case.text, str(path))
    stops = [defs[name] for name in STOPS[which] if name in defs][: moves + 1]
    gateway = await GatewayProcess.start(["--engine", "local"], timeout=900)
    rows = []
    try:
        settings = Settings(backend=gateway.url)
        client = await open_backend(resolve_backend(settings))
        rec = Recording(client)
        session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
        started = time.perf_counter()
        await session.start(prewarm=True)
        await session.warmed()
        rows.append({"step": "open: the file's prewarm", "seconds": time.perf_counter() - started,
                     "evaluated": await _evaluated(rec, 0)})
        for k, region in enumerate(stops):
            n = len(rec.streams)
            started = time.perf_counter()
            session.prewarm(region)
            await session.warmed()
            rows.append({"step": f"move {k + 1}: cursor to lines {region[0] + 1}-{region[1]}",
                         "seconds": time.perf_counter() - started, "evaluated": await _evaluated(rec, n)})
            print(f"  {rows[-1]['step']}: {rows[-1]['seconds']:.1f} s, {rows[-1]['evaluated']:,} tokens read", flush=True)
        n = len(rec.streams)
        enter = time.perf_counter()
        await session.send("add a short comment above the first line (turn)", stops[-1])
        while session.turn.ttft is None and not session.turn_task.done():
            await asyncio.sleep(0.002)
        ttft = session.turn.t0 - enter + session.turn.ttft if session.turn.ttft is not None else float("nan")
        await session.stop()
        await session.wait()
        session.reject_all()
        rows.append({"step": "Enter -> first token at the last stop", "seconds": ttft,
                     "evaluated": await _evaluated(rec, n, generate=True)})
        await session.close()
        await client.close()
    finally:
        await gateway.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


async def _evaluated(rec: Recording, since: int, generate: bool = False) -> int:
    streams = [s for _at, gen, s in rec.streams[since:] if gen == generate]
    total = 0
    for stream in streams:
        usage = await _usage(stream, timeout=60.0)
        total += int(usage.get("evaluated_tokens") or 0)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench region_switch")
    parser.add_argument("--file", choices=sorted(STOPS), default="argparse")
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv or [])
    load = os.getloadavg()
    rows = asyncio.run(run(args.file, args.moves))
    moves = [r for r in rows if r["step"].startswith("move")]
    table = [[r["step"], r["seconds"], f"{r['evaluated']:,}"] for r in rows]
    table.append(["moves: median", statistics.median(r["seconds"] for r in moves),
                  f"{statistics.median(r['evaluated'] for r in moves):,.0f}"])
    title = f"{args.file}: open, then the cursor moved to {len(moves)} functions in turn (embedded model, 2 threads)"
    print_table(title, ["step", "seconds", "tokens read"], table)
    if args.out:
        write_report(args.out, f"# bench region_switch, {time.strftime('%Y-%m-%d %H:%M')}: `python -m bench region_switch "
                     f"{' '.join(argv or [])}` (bench/region_switch.py), checkout {Path.cwd()}",
                     [f"Load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}."],
                     [(title, ["step", "seconds", "tokens read"], table)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
