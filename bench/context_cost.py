"""What the project context costs before the first token: the demo file in a project, context on against off.

The embedded model behind one real `steer serve --engine local` child, driven by the Session the app
uses. The project: examples/inventory.py, a `money.py` with the price helper an instruction can name
by its role, a `settings.py`, and 300 generated modules (so the index has something to search). For
each round and each mode (off: the session has no project context, the prompt is the file alone;
on: the app's ProjectContext over the project's index), interleaved and in alternating order:

- open: a new Session starts (with context: its index built, or read from its cache on rounds after
  the first) until its prewarm has finished: what opening a file costs before Enter can be answered
  from the cache;
- Enter -> first token of a rewrite turn with the cursor's block prewarmed, for an instruction that
  names nothing in other files and one that names the price helper by its role ("the project's
  price helper": the context then carries `format_price`, chosen from the words, so it is evaluated
  after Enter unless the words were prewarmed as they were typed);
- the same, typed: the words typed a key every 60 ms into the app's TypingPrewarmer (which prewarms
  them, and what they name, while they are typed), Enter 60 ms after the last key: the app's flow.

Each turn is stopped at its first token and rejected. `python -m bench context_cost [--rounds N]`.
Wrap it in `flock /tmp/steer-model.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.region import first_token_of_edit
from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
REGION = (13, 37)  # class Inventory in examples/inventory.py, below the bench's first line
ASKS = {
    "names nothing elsewhere": "make total_value skip items with zero quantity",
    "names the price helper": "make total_value return its sum formatted with the project's price helper",
}
MONEY = '''"""Money helpers shared by the shop."""


def format_price(cents: int) -> str:
    """Format an amount in cents as a price with two decimals and a dollar sign."""
    return f"${cents / 100:.2f}"


def parse_price(text: str) -> int:
    """Parse a price such as "$3.50" into cents."""
    return round(float(text.strip().lstrip("$")) * 100)
'''
SETTINGS = '''"""Shop settings."""

LOW_STOCK = 3  # an item with fewer left is reordered
CURRENCY = "USD"
'''


def make_project(root: Path, modules: int = 300) -> Path:
    shutil.copy(ROOT / "examples" / "inventory.py", root / "inventory.py")
    (root / "money.py").write_text(MONEY)
    (root / "settings.py").write_text(SETTINGS)
    pkg = root / "shop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(modules):
        (pkg / f"module_{i:03}.py").write_text(
            f'"""Generated module {i}."""\n\nLIMIT_{i} = {i}\n\n\n'
            f"class Record{i}:\n    \"\"\"A record of kind {i}.\"\"\"\n\n    def total(self, values):\n"
            f"        return sum(values) + {i}\n\n\ndef helper_{i}(x, y=1):\n    \"\"\"Combine x and y.\"\"\"\n"
            f"    return x * y + {i}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-qm", "project"], cwd=root,
                   check=True)
    return root / "inventory.py"


async def _open(path: Path, settings, client, context: bool, cache: Path):
    from steer_tui.files import Document
    from steer_tui.project.session_context import ProjectContext
    from steer_tui.session import Session

    started = time.perf_counter()
    session = Session(Document.read(path), settings, client=client, edit_format="rewrite")
    if context:
        session.context = ProjectContext(path, 800, cache_dir=cache)
    await session.start()
    if context:
        await asyncio.to_thread(session.context.wait, 60)
        await asyncio.sleep(0)  # the re-prewarm an index that became ready asks for
    await session.warmed()
    return session, time.perf_counter() - started


async def _type(session, words: str, key_s: float = 0.06) -> None:
    """Type `words` as a person does, the app's TypingPrewarmer fed each keystroke; Enter follows."""
    from steer_tui.typing_prewarm import TypingPrewarmer

    typing = TypingPrewarmer(session)
    for i in range(1, len(words) + 1):
        typing.typed(words[:i], lambda: REGION)
        await asyncio.sleep(key_s)
    await asyncio.sleep(key_s)


LABELS = [label + typed for label in ASKS for typed in ("", ", typed")]


async def run(rounds: int) -> list[dict]:
    from steer_tui.config import Settings
    from steer_tui.transport.backends import open_backend, resolve_backend
    from steer_tui.transport.launcher import GatewayProcess

    tmp = Path(tempfile.mkdtemp(prefix="steer-bench-context-"))
    (tmp / "shop").mkdir()
    path = make_project(tmp / "shop")
    demo = path.read_text()
    gateway = await GatewayProcess.start(["--engine", "local"], timeout=900)
    settings = Settings(backend=gateway.url)
    client = await open_backend(resolve_backend(settings))
    rows = []
    try:
        for r in range(rounds):
            for mode in (("off", "on") if r % 2 == 0 else ("on", "off")):
                # A first line of its own: no session finds the file's prefix cached by another.
                path.write_text(f"# round {r}, context {mode}\n" + demo)
                session, open_s = await _open(path, settings, client, mode == "on", tmp / "cache")
                try:
                    row = {"round": r, "mode": mode, "open_s": open_s}
                    for label, ask in ASKS.items():
                        for typed in (False, True):
                            session.prewarm_region(REGION)
                            await session.warmed()
                            words = f"{ask} (round {r}{', typed' if typed else ''})"
                            if typed:
                                await _type(session, words)
                            key = label + (", typed" if typed else "")
                            row[key] = await first_token_of_edit(session, words, REGION)
                            if session.context is not None:
                                row[key + " items"] = ", ".join(i.name for i in session.context.last)
                    rows.append(row)
                finally:
                    await session.close()
    finally:
        await client.close()
        await gateway.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench context_cost")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv or [])
    rows = asyncio.run(run(args.rounds))
    table = []
    for what in ("open_s", *LABELS):
        off = statistics.median(r[what] for r in rows if r["mode"] == "off")
        on = statistics.median(r[what] for r in rows if r["mode"] == "on")
        name = "open -> prewarm done" if what == "open_s" else f"Enter -> first token: {what}"
        table.append([name, off, on, f"{on - off:+.2f}"])
    print_table(f"project context on vs off, examples/inventory.py in a 303-file project, embedded model, "
                f"medians of {args.rounds} (s)", ["", "context off", "context on", "on - off"], table)
    for label in LABELS:
        items = {r.get(label + " items", "") for r in rows if r["mode"] == "on"}
        print(f"context items, {label}: {'; '.join(sorted(items)) or '(none)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
