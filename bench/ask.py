"""Asking and new files with the embedded model: Enter -> first token of an answer, and writing a new file.

One `steer serve --engine local` child, the Session and the Asking the app use, on a copy of
examples/inventory.py; every row runs in this one process, interleaved per round:
- "answer, block prewarmed": the cursor rested in the block (prewarm_region), then a question
  about it: only the question is left to evaluate;
- "edit, block prewarmed" (the baseline): an edit turn on the same block, prewarmed the same way;
- "answer, file not cached": the same question about a file whose first line differs, so all
  but the system prompt is evaluated (about what `steer ask` pays on its one request).
Each turn is stopped at its first token. Then one new file is written whole (a curses snake
game): time to first token, to the last, lines and tokens.

`python -m bench ask [--rounds N] [--no-new-file]` (default 3 rounds; 0: the new file only).
Needs the `local` extra.
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

from bench.region import first_token_of_edit
from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
BLOCK = (12, 36)  # class Inventory in examples/inventory.py (0-based, end-exclusive)
QUESTIONS = ["what does total_value return for an empty inventory?", "can remove() leave a negative quantity?",
             "what does cheapest do when there are no items?"]
EDITS = ["make total_value return a float", "raise KeyError with a clear message in remove",
         "return None from cheapest when there are no items"]
NEW_FILE_ASK = ("write a snake game for the terminal with curses: arrow keys steer, food makes the snake longer, "
                "the score is shown on top, hitting a wall or itself ends the game, q quits")


async def _first_token_of_answer(session, question: str, text: str, region) -> float:
    from steer_tui.ask import Asking

    asking = Asking(session.client, stream_id=session.stream_id)
    started = time.perf_counter()
    answer = await asking.start(session.format, session.prompt_path, text, question, region)
    while answer.ttft_s is None and not answer.done:
        await asyncio.sleep(0.002)
    ttft = answer.ttft_s if answer.ttft_s is not None else time.perf_counter() - started
    await asking.stop()
    await asking.wait()
    return ttft


async def run(rounds: int, new_file: bool) -> tuple[list[tuple[str, float]], dict | None]:
    from steer_tui.config import Settings
    from steer_tui.files import Document
    from steer_tui.session import Session
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-ask-"))
    path = tmp / "inventory.py"
    shutil.copy(ROOT / "examples" / "inventory.py", path)
    gateway = await GatewayProcess.start(["--engine", "local"], timeout=900)
    settings = Settings(backend=gateway.url)
    client = await open_backend(resolve_backend(settings))
    out: list[tuple[str, float]] = []
    made = None
    try:
        session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
        await session.start()
        await session.warmed()
        text = session.document.text
        for i in range(rounds):
            session.prewarm(BLOCK)  # the cursor rested in the block (sent even if it was warm before)
            await session.warmed()
            out.append(("answer, block prewarmed", await _first_token_of_answer(session, QUESTIONS[i % 3], text, BLOCK)))
            session.prewarm(BLOCK)  # the answer's tokens follow the block in the cache: back to the block alone
            await session.warmed()
            out.append(("edit, block prewarmed", await first_token_of_edit(session, EDITS[i % 3], BLOCK)))
            other = f"# round {i}\n" + text  # differs from its first line on: none of the file is cached
            out.append(("answer, file not cached", await _first_token_of_answer(session, QUESTIONS[i % 3], other, BLOCK)))
        if new_file:
            doc = Document.new(tmp / "game.py")
            writer = Session(doc, settings, client=client)
            await writer.start()
            await writer.warmed()
            started = time.perf_counter()
            result = await writer.edit(NEW_FILE_ASK)
            elapsed = time.perf_counter() - started
            lines = len(writer.live.new_lines()) if writer.has_proposal else 0
            made = {"status": result.status, "seconds": elapsed, "ttft": result.ttft_s, "tokens": result.tokens,
                    "tokens_per_s": result.tokens_per_s, "lines": lines}
            if writer.has_proposal:
                writer.accept_all()
                made["written"] = (tmp / "game.py").exists()
    finally:
        await client.close()
        await gateway.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out, made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench ask")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-new-file", action="store_true")
    args = parser.parse_args(argv or [])
    load = os.getloadavg()
    results, made = asyncio.run(run(args.rounds, not args.no_new_file))
    if results:
        base = statistics.median([t for k, t in results if k == "edit, block prewarmed"])
        rows = []
        for kind in ("edit, block prewarmed", "answer, block prewarmed", "answer, file not cached"):
            times = [t for k, t in results if k == kind]
            med = statistics.median(times)
            rows.append([kind, len(times), med, min(times), max(times), f"{med / base:.2f}"])
        print_table(f"Enter -> first token (s), embedded model, load average {load[0]:.2f} at start",
                    ["turn", "n", "median", "min", "max", "/ edit"], rows)
    if made is not None:
        rate = made["tokens_per_s"]
        print_table(f"a new file written whole (curses snake game), load average {load[0]:.2f} at start",
                    ["status", "lines", "tokens", "first token (s)", "whole file (s)", "tokens/s"],
                    [[made["status"], made["lines"], made["tokens"], made["ttft"] or float("nan"), made["seconds"],
                      rate if rate else float("nan")]])
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
