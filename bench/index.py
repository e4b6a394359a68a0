"""The project index's costs on a 5,000-file Python/JS tree: cold build, warm start from the cache,
an update after a file save, memory; with two baselines beside them (reading every file, and the
language layer's own definitions pass over every file).

The tree is a copy of this Python's standard library (.py files) topped up with generated
JavaScript modules (imports, constants, functions, classes, JSDoc), deterministic by seed. Each
measurement of a build runs in a fresh child process (its peak RSS is the build's memory; the
interpreter with steer imported is measured the same way and given as its floor).

`python -m bench index [--files 5000] [--saves 30] [--out bench/results/index.md]`
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
SEED = 41

_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
mode, root, cache = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
from steer_tui import lang
from steer_tui.project.index import ProjectIndex, _indexable
t1 = time.perf_counter()
out = {}
if mode == "read":
    n = sum(len((root / rel).read_bytes()) for rel in _indexable(root))
    out["files"] = len(_indexable(root))
elif mode == "defs":
    for rel in _indexable(root):
        lang.definitions(rel, (root / rel).read_bytes().decode("utf-8", "replace"))
elif mode == "floor":
    pass
else:
    index = ProjectIndex(root, cache).build()
    out["files"] = len(index)
    out["parsed"] = index.parsed
    out["symbols"] = sum(1 for _ in index.all_symbols())
out["seconds"] = time.perf_counter() - t1
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def _js_module(rng: random.Random, i: int, n: int) -> str:
    words = ["user", "order", "price", "cart", "item", "page", "status", "retry", "token", "cache", "route", "money"]
    a, b = rng.choice(words), rng.choice(words)
    lines = ["'use strict';", ""]
    for k in range(rng.randint(1, 3)):
        j = rng.randrange(n)
        lines.append(f"const {{ helper{j % 7}, LIMIT_{j % 5} }} = require('../m{j // 100}/mod{j}');")
    lines += ["", f"// How many {a}s a {b} holds.", f"const MAX_{a.upper()}_{i} = {rng.randint(1, 500)};", ""]
    for k in range(rng.randint(3, 9)):
        lines += [f"/**", f" * Computes the {a} {b} of step {k}.", f" * @param {{number}} x", " */",
                  f"function {a}{b.title()}{k}(x, y = {k}) {{",
                  f"  const total = x * y + MAX_{a.upper()}_{i};",
                  "  if (total > 100) {", "    return total - 1;", "  }", "  return total;", "}", ""]
    lines += [f"class {a.title()}{b.title()}{i} {{", "  constructor(opts = {}) {", "    this.opts = opts;", "  }"]
    for k in range(rng.randint(2, 6)):
        lines += [f"  method{k}(v) {{", f"    return v + {k};", "  }"]
    lines += ["}", "", f"module.exports = {{ {a}{b.title()}0, {a.title()}{b.title()}{i} }};", ""]
    return "\n".join(lines)


def make_tree(dest: Path, files: int) -> tuple[int, int]:
    """The stdlib's .py files, then generated JS modules up to `files`: (python files, js files)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    py = 0
    for src in sorted(stdlib.rglob("*.py")):
        if py >= files or "site-packages" in src.parts or src.stat().st_size > 1 << 20:
            continue
        target = dest / "py" / src.relative_to(stdlib)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        py += 1
    rng = random.Random(SEED)
    js = files - py
    for i in range(js):
        target = dest / "js" / f"m{i // 100}" / f"mod{i}.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_js_module(rng, i, js))
    return py, js


def _child(mode: str, root: Path, cache: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(root), str(cache)], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _saves(root: Path, cache: Path, saves: int) -> list[float]:
    from steer_tui.project.index import ProjectIndex

    index = ProjectIndex(root, cache).build()
    files = index.files()
    rng = random.Random(SEED)
    times = []
    for rel in rng.sample(files, min(saves, len(files))):
        path = root / rel
        text = path.read_text(encoding="utf-8", errors="replace")
        path.write_text(text + "\n\ndef added_by_the_bench(x):\n    return x\n" if rel.endswith(".py")
                        else text + "\nfunction addedByTheBench(x) { return x; }\n")
        t = time.perf_counter()
        index.update(rel)
        times.append(time.perf_counter() - t)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench index")
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--saves", type=int, default=30)
    parser.add_argument("--out", help="also write the tables (markdown) to this file")
    args = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        root, cache = Path(tmp) / "tree", Path(tmp) / "cache"
        py, js = make_tree(root, args.files)
        floor = _child("floor", root, cache)
        read = _child("read", root, cache)
        defs = _child("defs", root, cache)
        cold = _child("build", root, cache)
        warm = _child("build", root, cache)
        saves = _saves(root, cache, args.saves)
        cache_mb = sum(p.stat().st_size for p in cache.iterdir()) / 1e6
    load = os.getloadavg()
    rows = [
        ["read every file (baseline: I/O alone)", read["files"], f"{read['seconds']:.2f}", f"{read['rss_mb']:.0f}", ""],
        ["lang.definitions of every file (baseline: the layer's own pass)", read["files"], f"{defs['seconds']:.2f}",
         f"{defs['rss_mb']:.0f}", ""],
        ["index cold build (no cache)", cold["files"], f"{cold['seconds']:.2f}", f"{cold['rss_mb']:.0f}",
         f"{cold['symbols']:,} symbols, {cold['parsed']} parsed"],
        ["index warm start (from the cache)", warm["files"], f"{warm['seconds']:.2f}", f"{warm['rss_mb']:.0f}",
         f"{warm['parsed']} parsed; cache {cache_mb:.1f} MB"],
    ]
    title = (f"Project index, {args.files:,} files ({py:,} stdlib .py, {js:,} generated .js), "
             f"{os.cpu_count()} CPUs, load {load[0]:.2f}")
    headers = ["what", "files", "seconds", "peak RSS MB", "notes"]
    print_table(title, headers, rows)
    upd = [["update after a file save", len(saves), f"{statistics.median(saves) * 1000:.1f}",
            f"{max(saves) * 1000:.1f}"]]
    print_table("Index update after a save", ["what", "saves", "median ms", "max ms"], upd)
    print(f"\nthe interpreter with steer's index imported, before any work: {floor['rss_mb']:.0f} MB peak RSS "
          f"(a build's memory is its peak RSS less this)")
    print("targets: cold build < 10 s on two cores, warm start much faster, update < 50 ms, memory < 200 MB")
    if args.out:
        lines = [f"# bench index ({time.strftime('%Y-%m-%d')})", "", f"`python -m bench index --files {args.files}`", "",
                 f"## {title}", "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        lines += ["", "## Index update after a save", "", "| what | saves | median ms | max ms |", "|---|---|---|---|"]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in upd]
        lines += ["", f"Floor: the interpreter with steer's index imported, {floor['rss_mb']:.0f} MB peak RSS.",
                  "Targets: cold build < 10 s on two cores, warm start much faster, update < 50 ms, memory < 200 MB."]
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
