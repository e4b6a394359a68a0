"""Big files with the embedded model: a real module of 2,633 lines (the standard library's argparse.py)
and a generated one of 20,000, against the same kind of edit in a generated 200-line file.

Two parts, each on a copy of the three files in a folder of its own:

- `steer edit FILE -m ...` (a private engine, `--no-daemon`): exit code, whether the diff is the
  right change and nothing else, wall time, first token; a row "whole file (today)" runs argparse
  with `file_tokens` set past its size (the whole file in every request, as before the window).
- Enter -> first token in the app's flow: a Session (the one the app uses) on a real
  `steer serve --engine local` child, the region of the named definition prewarmed
  (Session.prewarm_region, what the cursor resting in it does) and waited for, then the turn sent
  on it and stopped at its first token and rejected. Rounds interleave the files, each with a new
  suffix on its instruction so no turn finds the last one's words cached. The prompt tokens of the
  turn, those it evaluated after Enter, and what the prewarm took are from the gateway's usage.

`python -m bench bigfile [--rounds N] [--out FILE]` (default 3 rounds). Needs the `local` extra;
wrap it in `flock /tmp/steer-model.lock`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.bigfile_gen import CHANGED, INSTRUCTION, generate
from bench.checkout import steer_argv
from bench.table import print_table, write_report
from bench.typing import Recording, _usage

ROOT = Path(__file__).resolve().parents[1]
ARGPARSE = Path("/usr/lib/python3.11/argparse.py")


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    text: str
    instruction: str
    changed: str  # the region's line as the right answer leaves it


def cases() -> list[Case]:
    import argparse as argparse_module

    source = ARGPARSE if ARGPARSE.exists() else Path(argparse_module.__file__)
    return [
        Case("200-line file (baseline)", "reports.py", generate(200), INSTRUCTION, CHANGED),
        Case("argparse.py, 2,633 lines", "argparse.py", source.read_text(encoding="utf-8"),
             "make _get_formatter pass width=100 to the formatter class",
             "        return self.formatter_class(prog=self.prog, width=100)"),
        Case("generated, 20,000 lines", "operations.py", generate(20000), INSTRUCTION, CHANGED),
    ]


def judge(before: str, after: str, changed: str) -> str:
    """"right" when `after` is `before` with exactly one line replaced by `changed` (spacing aside),
    else what differs."""
    old, new = before.splitlines(), after.splitlines()
    if old == new:
        return "unchanged"
    if len(old) != len(new):
        return f"{len(new) - len(old):+d} lines"
    diff = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    if len(diff) != 1:
        return f"{len(diff)} lines changed"
    got = new[diff[0]]
    return "right" if got.replace(" ", "") == changed.replace(" ", "") else f"line {diff[0] + 1}: {got.strip()}"


# ---------------------------------------------------------------------------- steer edit


def steer_edit(case: Case, tmp: Path, file_tokens: int | None = None) -> dict:
    folder = tmp / f"edit-{case.file}-{file_tokens or 'window'}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / case.file
    path.write_text(case.text, encoding="utf-8")
    env = dict(os.environ)
    config = folder / "config.toml"
    config.write_text(f"file_tokens = {file_tokens}\n" if file_tokens else "", encoding="utf-8")
    env["STEER_CONFIG"] = str(config)
    started = time.perf_counter()
    proc = subprocess.run([*steer_argv(), "edit", case.file, "-m", case.instruction, "--json",
                           "--no-daemon"], cwd=folder, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    try:
        out = json.loads(proc.stdout)
    except ValueError:
        out = {}
    after = path.read_text(encoding="utf-8")
    said = out.get("reason") or next(iter(proc.stderr.strip().splitlines()[-1:]), "")
    return {"exit": proc.returncode, "wall": wall, "ttft": out.get("ttft_s"), "verdict": judge(case.text, after, case.changed),
            "reason": said if proc.returncode else "", "diff": out.get("diff", "")}


# ---------------------------------------------------------------------------- Enter -> first token


async def first_token(session, rec: Recording, instruction: str, region) -> dict:
    """Prewarm `region` (the cursor resting in it), wait for it, send the turn; its numbers. The
    prewarm is sent every round, so the engine holds the region and none of the last turn's words
    (a turn's words after the region are all evaluated after Enter, every round alike)."""
    n = len(rec.streams)
    started = time.perf_counter()
    session.prewarm(region)
    await session.warmed()
    prewarm_s = time.perf_counter() - started
    warms = [s for _at, gen, s in rec.streams[n:] if not gen]
    warm_usage = await _usage(warms[-1], timeout=30.0) if warms else {}
    n = len(rec.streams)
    enter = time.perf_counter()
    await session.send(instruction, region)
    while session.turn.ttft is None and not session.turn_task.done():
        await asyncio.sleep(0.002)
    # From the send (Enter), not from the turn's start: choosing the region and building the
    # request on a big file count too.
    ttft = session.turn.t0 - enter + session.turn.ttft if session.turn.ttft is not None else float("nan")
    turn = next((s for _at, gen, s in rec.streams[n:] if gen), None)
    await session.stop()
    await session.wait()
    session.reject_all()
    usage = await _usage(turn, timeout=30.0) if turn is not None else {}
    return {"ttft": ttft, "prewarm_s": prewarm_s, "prewarm_evaluated": int(warm_usage.get("evaluated_tokens") or 0),
            "input": int(usage.get("input_tokens") or 0), "evaluated": int(usage.get("evaluated_tokens") or 0),
            "result": session.last_result.status if session.last_result else "?"}


async def enter_to_first_token(all_cases: list[Case], tmp: Path, rounds: int,
                               engine: list[str]) -> dict[str, list[dict]]:
    from steer_tui import prompts
    from steer_tui.config import Settings
    from steer_tui.files import Document
    from steer_tui.session import Session
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    gateway = await GatewayProcess.start(engine, timeout=900)
    settings = Settings(backend=gateway.url)
    out: dict[str, list[dict]] = {c.name: [] for c in all_cases}
    sessions = []
    try:
        for case in all_cases:
            folder = tmp / f"session-{case.file}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / case.file
            path.write_text(case.text, encoding="utf-8")
            client = await open_backend(resolve_backend(settings))
            rec = Recording(client)
            session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
            await session.start(prewarm=False)
            region = prompts.rewrite_region(case.text, case.instruction, path=str(path))
            sessions.append((case, session, rec, region))
        for i in range(rounds):
            for case, session, rec, region in sessions:
                got = await first_token(session, rec, f"{case.instruction} (turn {i})", region)
                got["region"] = region
                out[case.name].append(got)
                print(f"  round {i}: {case.name:28} Enter -> first token {got['ttft']:.3f} s, prompt {got['input']:,} "
                      f"tokens, {got['evaluated']} evaluated after Enter; prewarm {got['prewarm_s']:.1f} s "
                      f"({got['prewarm_evaluated']:,} tokens)", flush=True)
    finally:
        for _case, session, _rec, _region in sessions:
            await session.close()
            await session.client.close()
        await gateway.stop()
    return out


# ---------------------------------------------------------------------------- the report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench bigfile")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, help="also write the tables (markdown) to this file")
    parser.add_argument("--no-edit", action="store_true", help="skip the `steer edit` part")
    parser.add_argument("--replay", metavar="FILE", help="check the bench itself on a recorded answer (not a model)")
    args = parser.parse_args(argv or [])
    from steer_tui.project.window import LOCAL_FILE_TOKENS, estimate_tokens, file_view
    from steer_tui import prompts

    all_cases = cases()
    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-bigfile-"))
    load = os.getloadavg()
    try:
        views = []
        for c in all_cases:
            region = prompts.rewrite_region(c.text, c.instruction, path=c.file)
            started = time.perf_counter()
            view = file_view(c.file, c.text, region, LOCAL_FILE_TOKENS)
            views.append([c.name, f"{len(c.text.splitlines()):,}", f"{estimate_tokens(c.text):,}",
                          f"lines {region[0] + 1}-{region[1]}", f"{view.count(chr(10)):,}", f"{estimate_tokens(view):,}",
                          f"{(time.perf_counter() - started) * 1000:.0f} ms"])
        tables = [("the file's view for the embedded model (budget %d tokens, counted at 3.5 characters)" % LOCAL_FILE_TOKENS,
                   ["file", "lines", "file tokens (est.)", "region", "view lines", "view tokens (est.)", "file_view time"],
                   views)]
        if not args.no_edit:
            rows = []
            runs = [(c, None) for c in all_cases] + [(all_cases[1], 10 ** 7)]
            for case, tokens in runs:
                got = steer_edit(case, tmp, tokens)
                label = case.name + (" - whole file (today)" if tokens else "")
                print(f"  steer edit {label}: exit {got['exit']}, {got['verdict']}, {got['wall']:.1f} s {got['reason']}",
                      flush=True)
                rows.append([label, got["exit"], got["verdict"], got["wall"],
                             got["ttft"] if got["ttft"] is not None else "-", got["reason"][:120]])
            tables.append(("`steer edit FILE -m ... --no-daemon` (a private engine: the model is loaded in each)",
                           ["file", "exit", "edit", "wall s", "first token s (its ttft_s)", "why it failed"], rows))
        engine = ["--engine", "replay", "--replay", args.replay] if args.replay else ["--engine", "local"]
        timed = asyncio.run(enter_to_first_token(all_cases, tmp, args.rounds, engine))
        base = statistics.median(r["ttft"] for r in timed[all_cases[0].name])
        rows = []
        for c in all_cases:
            got = timed[c.name]
            ttft = statistics.median(r["ttft"] for r in got)
            rows.append([c.name, len(got), ttft, f"{ttft - base:+.3f}", "/".join(f"{r['ttft']:.3f}" for r in got),
                         f"{got[0]['input']:,}", "/".join(str(r["evaluated"]) for r in got),
                         f"{got[0]['prewarm_s']:.1f} s ({got[0]['prewarm_evaluated']:,} tokens)",
                         "/".join(r["result"] for r in got)])
        tables.append(("Enter -> first token, region prewarmed, embedded model (Session + `steer serve --engine local`)",
                       ["file", "turns", "median s", "vs 200-line", "each s", "prompt tokens", "evaluated after Enter",
                        "first region prewarm", "turn ended"], rows))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    after = os.getloadavg()
    for title, headers, rows in tables:
        print_table(title, headers, rows)
    if args.out:
        write_report(args.out, f"# bench bigfile, {time.strftime('%Y-%m-%d %H:%M')}: `python -m bench bigfile "
                     f"{' '.join(argv or [])}` (bench/bigfile.py)",
                     [f"Load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after {after[0]:.2f} "
                      f"{after[1]:.2f} {after[2]:.2f} (2 cores, shared with other work)."], tables)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
