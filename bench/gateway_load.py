"""Gateway under load: many WebSocket clients x turns, and big prewarms, against `steer serve`.

Each row starts its own `steer serve --engine replay --rate max` child (a zero-delay engine
playing a short recorded text, not a model) from a source tree, then:

- load: CLIENTS WebSocket connections at once, each running TURNS chained turns
  (previous_response_id of the turn before) and reading every event up to the terminal
  one. Reported: turns completed, errors (error events, failed/incomplete turns,
  exceptions, turns over 60 s), p50/p99 turn latency (send to terminal event), the gateway
  process's CPU time per turn (user + system: what contention for the cores does not
  inflate, unlike latency on a shared machine), and its RSS before the clients came, at its
  peak (VmHWM) and after they left.
- prewarm: one connection sends PREWARMS prewarms (`generate: false`) of PREWARM_MB MB of
  distinct input each, one after another; reported: the gateway's RSS after them, and
  whether a turn chained on the first prewarm is still answered or gets
  previous_response_not_found (a client replays its transcript on that).

`--src NAME=DIR` (repeatable) runs the rows against the gateway in DIR (a checkout or an
exported tree, e.g. `git archive <commit> app | tar -x -C DIR`), rounds interleaved so
drifting machine load hits every source alike; the default is this checkout alone. Ratios
are against the first source. `--paired` adds a table where every source's gateway serves
at the same time, the clients split evenly between them: on a shared, busy machine that
comparison of CPU time per turn is the one contention cannot tilt. Loopback only; every
wait is bounded.

Run: `python -m bench gateway_load [--clients 200] [--turns 20] [--prewarms 60]
[--prewarm-mb 4] [--rounds 1] [--src base=/tmp/base --src current=.] [--paired]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

from bench.checkout import steer_argv
from bench.table import percentile, print_table

# ~60 deltas per answer, the shape of a short code edit.
ANSWER = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(8))
TERMINAL = ('"type":"response.completed"', '"type":"response.failed"', '"type":"response.incomplete"',
            '"type":"error"')
TURN_LIMIT_S = 60.0


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (a figure that contention for the cores
    does not inflate, unlike latency)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


class Gateway:
    """A `steer serve` child process running from one source tree."""

    def __init__(self, src: Path, replay: Path, extra: list[str]):
        self.src, self.replay, self.extra = src, replay, extra
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> "Gateway":
        # The gateway of that checkout: with -E, PYTHONPATH would no longer choose it.
        cmd = [*steer_argv(self.src), "serve", "--engine", "replay", "--replay", str(self.replay),
               "--rate", "max", "--port", "0", "--exit-with-stdin", *self.extra]
        self.proc = subprocess.Popen(cmd, cwd=self.src, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"gateway in {self.src} exited: {self.proc.stderr.read()[-2000:]}")
            if line.startswith("steer serve ready:"):
                self.url = line.split()[3]
                return self
        raise RuntimeError("gateway did not get ready in 60 s")

    def rss_kb(self, field: str = "VmRSS") -> int:
        return _rss_kb(self.proc.pid, field)

    def cpu_s(self) -> float:
        return _cpu_s(self.proc.pid)

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()  # --exit-with-stdin: it stops on its own
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.stderr = self.proc.stderr.read()


async def _turn(ws, payload: dict) -> tuple[float, str | None, dict | None]:
    """One request and its events: (seconds, error or None, terminal event)."""
    t0 = time.perf_counter()
    await ws.send(json.dumps(payload))
    async with asyncio.timeout(TURN_LIMIT_S):
        while True:
            raw = await ws.recv()
            # Deltas are recognised by their prefix (the gateway writes "type" first): the load
            # generator decodes only the frames it needs, so its own CPU stays small.
            if raw.startswith('{"type":"response.output_text.') or raw.startswith('{"type":"response.created"'):
                continue
            if any(marker in raw[:60] for marker in TERMINAL):
                obj = json.loads(raw)
                seconds = time.perf_counter() - t0
                if obj["type"] == "response.completed":
                    return seconds, None, obj
                if obj["type"] == "error":
                    return seconds, obj["error"].get("code", "error"), obj
                return seconds, obj["type"], obj


async def _client(url: str, turns: int, latencies: list[float], errors: dict[str, int]) -> None:
    try:
        async with connect(url, compression=None, max_size=None, open_timeout=30, ping_interval=None) as ws:
            prev = None
            for i in range(turns):
                payload = {"type": "response.create", "input": f"turn {i}: add a docstring"}
                if prev:
                    payload["previous_response_id"] = prev
                seconds, error, obj = await _turn(ws, payload)
                if error:
                    errors[error] = errors.get(error, 0) + 1
                    prev = None
                    continue
                latencies.append(seconds)
                prev = obj["response"]["id"]
    except Exception as exc:  # counted, not raised: one client's failure is a figure, not a crash
        name = type(exc).__name__
        errors[name] = errors.get(name, 0) + 1


async def _load(url: str, clients: int, turns: int) -> tuple[list[float], dict[str, int], float]:
    latencies: list[float] = []
    errors: dict[str, int] = {}
    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(_client(url, turns, latencies, errors) for _ in range(clients))),
                           timeout=600)
    return latencies, errors, time.perf_counter() - t0


async def _prewarms(url: str, count: int, mb: float) -> tuple[int, str]:
    """(prewarms answered, what a turn chained on the first prewarm got)."""
    size = int(mb * 1024 * 1024)
    answered, first = 0, None
    async with connect(url, compression=None, max_size=None, open_timeout=30, ping_interval=None) as ws:
        for i in range(count):
            # Distinct text each time (the gateway could share equal strings otherwise).
            text = (f"prewarm {i} " * (size // 12 + 1))[:size]
            _, error, obj = await _turn(ws, {"type": "response.create", "input": text, "generate": False})
            if error is None:
                answered += 1
                first = first or obj["response"]["id"]
        if first is None:
            return answered, "no prewarm answered"
        _, error, _ = await _turn(ws, {"type": "response.create", "input": "go", "previous_response_id": first})
        return answered, error or "answered"


def _paired(sources, replay: Path, args, rnd: int) -> list[list]:
    """One round with every source's gateway serving at once, the clients split between them."""
    gateways = [Gateway(src, replay, args.serve_arg).__enter__() for _, src in sources]
    try:
        share = max(1, args.clients // len(gateways))
        cpu0 = [gw.cpu_s() for gw in gateways]

        async def together():
            return await asyncio.gather(*(_load(gw.url, share, args.turns) for gw in gateways))
        results = asyncio.run(together())
        cpu = [gw.cpu_s() - c for gw, c in zip(gateways, cpu0)]
    finally:
        for gw in gateways:
            gw.__exit__(None, None, None)
    rows = []
    for (name, _), (latencies, errors, _), seconds in zip(sources, results, cpu):
        err_text = ", ".join(f"{k}: {v}" for k, v in sorted(errors.items())) or "0"
        rows.append([name, rnd, share, len(latencies), err_text, percentile(latencies, 50) * 1000,
                     percentile(latencies, 99) * 1000, seconds * 1000 / max(1, len(latencies))])
    for row in rows:
        row.append(f"{row[7] / rows[0][7]:.3f}" if rows[0][7] else "-")
    return rows


def _row(name: str, rnd: int, gw: Gateway, args) -> tuple[list, list | None]:
    load0 = _loadavg()
    rss0 = gw.rss_kb()
    cpu0 = gw.cpu_s()
    latencies, errors, wall = asyncio.run(_load(gw.url, args.clients, args.turns))
    cpu = gw.cpu_s() - cpu0
    time.sleep(0.5)  # the gateway's connection clean-up
    rss1, peak = gw.rss_kb(), gw.rss_kb("VmHWM")
    err_text = ", ".join(f"{k}: {v}" for k, v in sorted(errors.items())) or "0"
    load_row = [name, rnd, len(latencies), err_text, percentile(latencies, 50) * 1000,
                percentile(latencies, 99) * 1000, len(latencies) / wall if wall else 0.0,
                cpu * 1000 / max(1, len(latencies)),
                rss0 / 1024, peak / 1024, rss1 / 1024, f"{load0} -> {_loadavg()}"]
    prewarm_row = None
    if args.prewarms:
        before = gw.rss_kb()
        answered, chained = asyncio.run(_prewarms(gw.url, args.prewarms, args.prewarm_mb))
        time.sleep(0.5)
        prewarm_row = [name, rnd, answered, before / 1024, gw.rss_kb() / 1024, gw.rss_kb("VmHWM") / 1024, chained]
    return load_row, prewarm_row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench gateway_load")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--prewarms", type=int, default=60, help="0: no prewarm row")
    parser.add_argument("--prewarm-mb", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--src", action="append", default=[], metavar="NAME=DIR",
                        help="a source tree to run the gateway from (repeatable; default: this checkout)")
    parser.add_argument("--paired", action="store_true",
                        help="also run every source at the same time, the clients split between them")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="an extra `steer serve` argument for every gateway (repeatable)")
    args = parser.parse_args(argv or [])
    here = Path(__file__).resolve().parent.parent
    sources = []
    for spec in args.src or [f"current={here}"]:
        name, _, path = spec.partition("=")
        sources.append((name, Path(path or name).resolve()))
    load_rows, prewarm_rows, paired_rows = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        replay = Path(tmp) / "answer.txt"
        replay.write_text(ANSWER)
        for rnd in range(1, args.rounds + 1):
            for name, src in sources:
                with Gateway(src, replay, args.serve_arg) as gw:
                    load_row, prewarm_row = _row(name, rnd, gw, args)
                tail = [line for line in gw.stderr.splitlines() if line.strip()]
                if tail:
                    print(f"[{name} round {rnd}] gateway stderr: {len(tail)} lines, last: {tail[-1][:200]}")
                load_rows.append(load_row)
                if prewarm_row:
                    prewarm_rows.append(prewarm_row)
            if args.paired and len(sources) > 1:
                paired_rows += _paired(sources, replay, args, rnd)
    base = {r[1]: r for r in load_rows if r[0] == sources[0][0]}
    for row in load_rows:
        ref = base.get(row[1])
        row.insert(6, f"{row[4] / ref[4]:.2f} / {row[5] / ref[5]:.2f}" if ref and ref[4] and ref[5] else "-")
        row.insert(9, f"{row[8] / ref[8]:.2f}" if ref and ref[8] else "-")
    print_table(f"gateway load: {args.clients} WebSocket clients x {args.turns} turns, replay engine at max rate "
                f"(~{len(ANSWER) // 4} deltas a turn), loopback",
                ["source", "round", "turns", "errors", "p50 ms", "p99 ms", f"p50/p99 vs {sources[0][0]}", "turns/s",
                 "gateway CPU ms/turn", f"CPU vs {sources[0][0]}", "RSS before MB", "RSS peak MB", "RSS after MB", "loadavg before -> after"], load_rows)
    if paired_rows:
        print_table(f"paired: every source serving at once, {args.clients} clients split between them x {args.turns} "
                    "turns", ["source", "round", "clients", "turns", "errors", "p50 ms", "p99 ms",
                              "gateway CPU ms/turn", f"CPU vs {sources[0][0]}"], paired_rows)
    if prewarm_rows:
        print_table(f"gateway memory: {args.prewarms} prewarms of {args.prewarm_mb:g} MB distinct input on one "
                    "connection", ["source", "round", "answered", "RSS before MB", "RSS after MB", "RSS peak MB",
                                   "turn chained on the first prewarm"], prewarm_rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
