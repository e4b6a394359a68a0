"""Benchmark: parse + locate + apply of 10 blocks on a 20,000-line file, streaming-parse throughput,
and `steer apply` process start-up. Run alone with `python -m bench apply`."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from statistics import median

from bench.table import percentile, print_table
from steer_tui.spawn import python_argv, python_code_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

LINES = 20_000
BLOCKS = 10


def make_file(n: int = LINES) -> list[str]:
    """A Python-like file: classes of small methods, repetitive the way real code is."""
    out: list[str] = []
    k = 0
    while len(out) < n:
        out.append(f"class Service{k}:")
        for m in range(6):
            out += [
                f"    def method_{m}(self, value):",
                f'        """Handle case {k}.{m}."""',
                "        if value is None:",
                "            return None",
                f"        result = value * {m + 1} + {k}",
                "        return result",
                "",
            ]
        out.append("")
        k += 1
    return out[:n]


def make_blocks(lines: list[str], fmt: str, mistake: str = "") -> str:
    parts = ["I made the requested changes.\n"]
    step = len(lines) // BLOCKS
    for b in range(BLOCKS):
        # the `result = ...` line of a method near b*step, with its method header as context
        i = b * step + 100
        while not lines[i].startswith("        result ="):
            i += 1
        search = lines[i - 3 : i + 2]
        replace = search[:3] + [lines[i].replace("result =", "result = 1 +")] + search[4:]
        if mistake == "trailing":
            search = [x + "  " for x in search]
        if fmt == "sr":
            parts.append(
                "```python\n<<<<<<< SEARCH\n" + "".join(x + "\n" for x in search) + "=======\n"
                + "".join(x + "\n" for x in replace) + ">>>>>>> REPLACE\n```\n"
            )
        elif fmt == "patch":
            body = "".join(" " + x + "\n" for x in search[:3]) + "-" + search[3] + "\n+" + replace[3] + "\n"
            body += " " + search[4] + "\n"
            parts.append(("*** Begin Patch\n*** Update File: big.py\n" if b == 0 else "") + "@@\n" + body)
            if b == BLOCKS - 1:
                parts.append("*** End Patch\n")
        else:  # udiff
            body = "".join(" " + x + "\n" for x in search[:3]) + "-" + search[3] + "\n+" + replace[3] + "\n"
            body += " " + search[4] + "\n"
            head = "--- a/big.py\n+++ b/big.py\n" if b == 0 else ""
            parts.append(f"{head}@@ -{i - 2},5 +{i - 2},5 @@\n{body}")
    return "".join(parts)


def time_apply(text: str, response: str, reps: int) -> list[float]:
    from steer_tui.edits.apply import apply_response

    expect = apply_response(text, response).new_text
    assert expect != text
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        res = apply_response(text, response)
        times.append((time.perf_counter() - t0) * 1000)
        assert len(res.changes) == BLOCKS
    return times


def stream_throughput(response: str, chunk: int) -> float:
    from steer_tui.edits.parse import StreamParser

    pieces = [response[i : i + chunk] for i in range(0, len(response), chunk)]
    best = float("inf")
    for _ in range(3):
        p = StreamParser()
        t0 = time.perf_counter()
        for piece in pieces:
            p.feed(piece)
        p.finish()
        best = min(best, time.perf_counter() - t0)
    return len(response) / best


def startup_ms(args: list[str], env: dict[str, str] | None = None, reps: int = 15) -> list[float]:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, text=True, input="", env=env)
        times.append((time.perf_counter() - t0) * 1000)
        if proc.returncode not in (0, 1):
            raise RuntimeError(proc.stderr)
    return times


def main() -> int:
    lines = make_file()
    text = "".join(x + "\n" for x in lines)
    reps = 100
    rows = []
    for fmt, label in (("sr", "SEARCH/REPLACE"), ("patch", "apply_patch"), ("udiff", "unified diff")):
        t = time_apply(text, make_blocks(lines, fmt), reps)
        rows.append([f"{label}, exact", median(t), percentile(t, 99), "<= 5 ms"])
    t = time_apply(text, make_blocks(lines, "sr", "trailing"), reps // 4)
    rows.append(["SEARCH/REPLACE, trailing-space mistake", median(t), percentile(t, 99), "(tolerant path)"])
    print_table(
        f"parse + locate + apply, {BLOCKS} blocks on a {LINES:,}-line file (ms, {reps} runs)",
        ["case", "median ms", "p99 ms", "target"],
        rows,
    )

    # Streaming parse: a long response (many blocks with prose) fed token-sized pieces.
    big = make_blocks(lines, "sr") * 200
    rows = []
    whole = stream_throughput(big, len(big))
    for chunk in (4, 16):
        cps = stream_throughput(big, chunk)
        rows.append([f"streaming, {chunk}-char chunks", cps, cps / 4, f"{cps / whole:.2f}x of whole"])
    rows.append(["baseline: whole response in one feed", whole, whole / 4, "1.00x"])
    print_table(
        f"streaming parse throughput ({len(big):,}-char response)",
        ["case", "chars/s", "~tokens/s (4 chars)", "vs whole"],
        rows,
    )

    # `steer apply` start-up: a whole process applying one block to a small file.
    with tempfile.TemporaryDirectory() as d:
        target = os.path.join(d, "small.py")
        resp = os.path.join(d, "resp.md")
        with open(target, "w") as f:
            f.write("a = 1\nb = 2\n")
        with open(resp, "w") as f:
            f.write("<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE\n")
        cmd = [*STEER, "apply", "--dry-run", target, resp]
        nop = python_code_argv("pass")  # the same interpreter flags as the command timed
        # As installed, Python loads cached bytecode; this box may set PYTHONDONTWRITEBYTECODE,
        # which makes every run compile every module. Measure both.
        cached = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(d, "pycache"))
        cached.pop("PYTHONDONTWRITEBYTECODE", None)
        nocache = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        startup_ms(cmd, cached, reps=2)  # fill the bytecode cache
        rows = []
        for label, env in (("bytecode cached (as installed)", cached), ("no bytecode (compiles each run)", nocache)):
            t_apply = startup_ms(cmd, env)
            t_py = startup_ms(nop, env)
            rows.append([f"steer apply --dry-run, {label}", median(t_apply), percentile(t_apply, 99),
                         median(t_apply) - median(t_py), "< 150 ms"])
            rows.append([f"baseline: python -c pass, {label}", median(t_py), percentile(t_py, 99), 0.0, ""])
    print_table(
        "`steer apply` process start to exit, small file (ms, 15 runs)",
        ["case", "median ms", "p99 ms", "over python", "target"],
        rows,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
