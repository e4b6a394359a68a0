"""Enter -> first token in the app's flow, with and without prewarming the instruction as it is typed.

The embedded model behind a real `steer serve --engine local` child, driven by the Session the
app uses, on examples/inventory.py, with issue 12's three instructions. Each turn: the cache is
reset to the file alone (the prewarm after opening), the instruction is typed a character at a
time at a human pace (`--key-ms`, default 60) with the app's TypingPrewarmer fed each keystroke
(in the "typed" rows), then Enter (`--enter-ms` after the last key, default 60: no pause; the
"pause" rows wait 600 ms), and the turn is stopped at its first token and rejected. Rows:

- file only (today's floor when the cursor was never placed): nothing typed is prewarmed;
- cursor block (today): the cursor rested in the function's top-level block, which was prewarmed;
- typed, named / typed, cursor (new): the same two, with the words prewarmed as they are typed.

Columns: Enter -> first token (s), prompt tokens the turn evaluated after Enter (the gateway's
usage.evaluated_tokens), and the tokens of a prewarm still in flight at Enter (the turn waits for
one it starts with; it cancels any other), and how many prewarms typing sent. One process, rows
interleaved per instruction. `--replay FILE` checks the bench itself on a recorded answer.

`python -m bench typing [--rounds N]` (default 1: 18 turns). Needs the `local` extra; wrap it in
`flock /tmp/steer-model.lock`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
# Issue 12's instructions; the cursor's region is the top-level block around the function, as
# the app's region_for_send gives it (a method: its class, decorator included).
ASKS = [("make total_value skip items with zero quantity", (12, 36)),
        ("add a docstring to parse_line", (38, 41)),
        ("make cheapest return None when there are no items", (12, 36))]
MODES = [  # (row, cursor block prewarmed first, typed words prewarmed, Enter after a pause)
    ("file only (today)", False, False, False),
    ("cursor block (today)", True, False, False),
    ("typed, named (new)", False, True, False),
    ("typed, cursor (new)", True, True, False),
    ("typed, named, pause before Enter (new)", False, True, True),
    ("typed, cursor, pause before Enter (new)", True, True, True),
]
PAUSE_S = 0.6


class Recording:
    """Wraps the client's create(): keeps every stream (prewarms included) with its start time."""

    def __init__(self, client):
        self.streams: list[tuple[float, bool, object]] = []
        original = client.create

        async def create(*args, generate: bool = True, **kwargs):
            stream = await original(*args, generate=generate, **kwargs)
            self.streams.append((time.perf_counter(), generate, stream))
            return stream

        client.create = create


async def _usage(stream, timeout: float = 10.0) -> dict:
    end = time.perf_counter() + timeout
    while not stream.stats.usage and time.perf_counter() < end:
        await asyncio.sleep(0.01)
    return stream.stats.usage or {}


async def one_turn(session, rec: Recording, instruction: str, cursor, *, block: bool, typed: bool,
                   pause: bool, key_s: float, enter_s: float) -> tuple[float, int, int, int]:
    """(Enter -> first token s, tokens the turn evaluated, tokens of prewarms in flight at Enter,
    prewarms sent while typing)."""
    from steer_tui.typing_prewarm import TypingPrewarmer

    session.prewarm()  # back to the file alone (drops the last turn's region and words from the cache)
    await session.warmed()
    if block:
        session.prewarm_region(cursor)
        await session.warmed()
    typing = TypingPrewarmer(session)
    region = cursor if block else None
    typing_from = len(rec.streams)
    for i in range(1, len(instruction) + 1):
        if typed:
            typing.typed(instruction[:i], lambda: region)
        await asyncio.sleep(key_s)
    await asyncio.sleep(PAUSE_S if pause else enter_s)
    started = time.perf_counter()
    in_flight = [s for _t, gen, s in rec.streams if not gen and not s.stats.usage and s.final is None]
    n = len(rec.streams)
    sent = sum(1 for _t, gen, _s in rec.streams[typing_from:] if not gen)
    await session.send(instruction, region)
    typing.typed("", lambda: region)  # the app empties the prompt on Enter
    while session.turn.ttft is None and not session._turn_task.done():
        await asyncio.sleep(0.002)
    ttft = time.perf_counter() - started
    turn = next(s for _t, gen, s in rec.streams[n:] if gen)
    await session.stop()
    await session.wait()
    session.reject_all()
    evaluated = int((await _usage(turn)).get("evaluated_tokens") or 0)
    ahead = 0
    for s in in_flight:
        ahead += int((await _usage(s)).get("evaluated_tokens") or 0)
    return ttft, evaluated, ahead, sent


async def run(rounds: int, key_s: float, enter_s: float, engine: list[str]) -> list[tuple]:
    from steer_tui.config import Settings
    from steer_tui.files import Document
    from steer_tui.session import Session
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-typing-"))
    path = tmp / "inventory.py"
    shutil.copy(ROOT / "examples" / "inventory.py", path)
    gateway = await GatewayProcess.start(engine, timeout=900)
    settings = Settings(backend=gateway.url)
    client = await open_backend(resolve_backend(settings))
    rec = Recording(client)
    out = []
    try:
        session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
        await session.start()
        await session.warmed()
        for _ in range(rounds):
            for instruction, cursor in ASKS:
                for name, block, typed, pause in MODES:
                    ttft, evaluated, ahead, sent = await one_turn(session, rec, instruction, cursor, block=block,
                                                            typed=typed, pause=pause, key_s=key_s, enter_s=enter_s)
                    out.append((name, instruction, ttft, evaluated, ahead, sent))
                    print(f"  {name:42} {instruction[:30]:30} {ttft:6.2f} s  {evaluated:3} + {ahead:3} tokens, "
                          f"{sent} prewarms while typing", flush=True)
    finally:
        await client.close()
        await gateway.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench typing")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--key-ms", type=float, default=60.0, help="time between keystrokes")
    parser.add_argument("--enter-ms", type=float, default=60.0, help="last key -> Enter in the rows without a pause")
    parser.add_argument("--replay", metavar="FILE", help="check the bench itself on a recorded answer (not a model)")
    args = parser.parse_args(argv or [])
    engine = ["--engine", "replay", "--replay", args.replay] if args.replay else ["--engine", "local"]
    load = os.getloadavg()
    results = asyncio.run(run(args.rounds, args.key_ms / 1000, args.enter_ms / 1000, engine))
    base = {ask: statistics.median([r[2] for r in results if r[0] == MODES[0][0] and r[1] == ask]) for ask, _ in ASKS}
    rows = []
    for name, *_ in MODES:
        mine = [r for r in results if r[0] == name]
        for ask, _ in ASKS:
            got = [r for r in mine if r[1] == ask]
            ttft = statistics.median(r[2] for r in got)
            rows.append([name, ask, ttft, f"{ttft / base[ask]:.0%}",
                         "/".join(str(r[3]) for r in got), "/".join(str(r[4]) for r in got),
                         "/".join(str(r[5]) for r in got)])
    print_table(f"Enter -> first token, embedded model, examples/inventory.py, {args.key_ms:g} ms a key, "
                f"Enter {args.enter_ms:g} ms after the last key (pause rows: {PAUSE_S * 1000:g} ms); "
                f"loadavg before {load[0]:.2f} {load[1]:.2f}, after {os.getloadavg()[0]:.2f}",
                ["row", "instruction", "Enter -> first token (s)", "vs file only",
                 "tokens evaluated after Enter", "in-flight prewarm tokens", "prewarms while typing"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
