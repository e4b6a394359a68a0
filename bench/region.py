"""Time to first token of a rewrite turn with and without the cursor's block prewarmed.

The embedded model behind a real `steer serve --engine local` child, driven by the Session
the app uses, on examples/inventory.py. Both rows run in this one process, interleaved: three
top-level blocks in rotation, the kind alternating (so every block is measured both ways and
no turn follows one on the same block, whose tokens would still be in the engine's cache).
"cold": the file is prewarmed (what opening it does) and the block is not; "warm": the cursor
rested in the block, so the app's prewarm_region evaluated it ahead and only the instruction is
left. Each turn is stopped at its first token and rejected.

`python -m bench region [--rounds N]` (default 4: 12 turns). Needs the `local` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
# 0-based, end-exclusive line ranges of three top-level blocks of examples/inventory.py.
BLOCKS = [("class Inventory", (12, 36)), ("def parse_line", (38, 41)), ("def load", (43, 48))]
ASKS = ["add a docstring to the first method", "strip whitespace from each field", "skip blank lines"]


async def first_token_of_edit(session, instruction: str, region) -> float:
    """Send an edit turn, stop it at its first token, reject it; Enter -> first token in seconds."""
    started = time.perf_counter()
    await session.send(instruction, region)
    while session.turn.ttft is None and not session._turn_task.done():
        await asyncio.sleep(0.002)
    ttft = session.turn.ttft if session.turn.ttft is not None else time.perf_counter() - started
    await session.stop()
    await session.wait()
    session.reject_all()
    return ttft


async def run(rounds: int) -> list[tuple[str, str, float]]:
    from steer_tui.config import Settings
    from steer_tui.files import Document
    from steer_tui.session import Session
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-region-"))
    path = tmp / "inventory.py"
    shutil.copy(ROOT / "examples" / "inventory.py", path)
    gateway = await GatewayProcess.start(["--engine", "local"], timeout=900)
    settings = Settings(backend=gateway.url)
    client = await open_backend(resolve_backend(settings))
    out = []
    try:
        session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
        await session.start()
        await session.warmed()
        for i in range(rounds * len(BLOCKS)):
            name, region = BLOCKS[i % len(BLOCKS)]
            kind = "warm" if i % 2 else "cold"
            if kind == "warm":
                session.prewarm_region(region)
                await session.warmed()
            ttft = await first_token_of_edit(session, f"{ASKS[i % len(ASKS)]} (turn {i})", region)
            out.append((kind, name, ttft))
    finally:
        await client.close()
        await gateway.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# The instructions issue 12 timed on examples/inventory.py (cursor never placed: the region comes
# from the name the instruction mentions).
TTFT_ASKS = ["make total_value skip items with zero quantity", "add a docstring to parse_line",
             "make cheapest return None when there are no items"]


def token_counts() -> list[list]:
    """Tokens the engine evaluates after Enter, per prewarm state, for TTFT_ASKS (tokenizer only, no decoding)."""
    from steer_tui import prompts
    from steer_tui.server.engines.local import LocalEngine, _common_prefix

    text = (ROOT / "examples" / "inventory.py").read_text(encoding="utf-8")
    fmt = prompts.REWRITE
    system = {"role": "system", "content": prompts.system_prompt(fmt)}
    engine = LocalEngine(n_ctx=4096, progress=False)
    engine.load()  # maps the weights; nothing is evaluated here
    try:
        file_warm = engine._prewarm_tokens([system, *prompts.prewarm_input(fmt, "inventory.py", text)])
        rows = [["(the prewarm after opening: system + file)", "", len(file_warm), "", ""]]
        for ask in TTFT_ASKS:
            region = prompts.rewrite_region(text, ask)
            turn = engine.tokenize_messages(prompts.build_messages(fmt, "inventory.py", text, ask, region=region))
            region_warm = engine._prewarm_tokens([system, *prompts.prewarm_input(fmt, "inventory.py", text, region)])
            after_file = len(turn) - _common_prefix(file_warm, len(file_warm), turn)
            after_region = len(turn) - _common_prefix(region_warm, len(region_warm), turn)
            rows.append([ask, f"lines {region[0] + 1}-{region[1]}", len(turn), after_file, after_region])
        return rows
    finally:
        asyncio.run(engine.close())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench region")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--tokens", action="store_true",
                        help="only count the tokens evaluated after Enter for issue 12's instructions (no decoding)")
    args = parser.parse_args(argv or [])
    if args.tokens:
        print_table("examples/inventory.py, rewrite format: prompt tokens evaluated after Enter",
                    ["instruction", "region", "turn prompt tokens", "file prewarmed", "file + region prewarmed"],
                    token_counts())
        return 0
    results = asyncio.run(run(args.rounds))
    rows = []
    for name, _region in BLOCKS:
        cold = [t for k, n, t in results if n == name and k == "cold"]
        warm = [t for k, n, t in results if n == name and k == "warm"]
        rows.append([name, len(cold) + len(warm), statistics.median(cold), statistics.median(warm),
                     f"{statistics.median(warm) / statistics.median(cold):.0%}"])
    cold = [t for k, _n, t in results if k == "cold"]
    warm = [t for k, _n, t in results if k == "warm"]
    rows.append(["all", len(results), statistics.median(cold), statistics.median(warm),
                 f"{statistics.median(warm) / statistics.median(cold):.0%}"])
    print_table("region prewarm: TTFT (s) of a rewrite turn, embedded model, medians",
                ["block", "turns", "file prewarmed only", "block prewarmed at the cursor", "warm / cold"], rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
