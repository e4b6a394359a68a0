"""The file finder: keystroke -> ranked list on 50,000 paths, and listing a real repository.

`python -m bench finder [--paths N] [--repo PATH] [--rounds R] [--tree]`. No model.

The paths are synthetic but shaped like a big repository: nested folders drawn from common
folder names (a few deep trees, many shallow ones), common file names with extensions in
realistic proportions. A set of queries a user would type (a file's name, a name's initials,
a folder and a name with '/', one that matches nothing) is typed keystroke by keystroke on a
fresh index each round, the first keystroke included: each keystroke's time is
`FuzzyIndex.search` (filter, rank, top 50). The baselines run in the same process on the
same paths: rapidfuzz's `process.extract` (WRatio, C++) over all paths, and a plain Python
scan that keeps the paths holding the query's characters in order and sorts them by length.
The listing times `list_files` on a real repository (this checkout by default): git's list,
and the walk the same folder gets where git is not used; `--tree` also writes the synthetic
paths as files into a new git repository (half committed, half untracked) and lists that.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import percentile, print_table

FOLDERS = ("src lib app core api utils util common shared internal pkg cmd services service models views "
           "controllers handlers components hooks store reducers actions routes middleware schemas serializers "
           "forms helpers templates static assets styles tests test spec fixtures docs examples scripts tools "
           "config migrations db auth users admin billing payments invoices reports server client web mobile "
           "android ios platform plugins extensions vendor third_party generated proto i18n locales").split()
NAMES = ("index main app utils helpers config settings constants types models views urls routes handler "
         "handlers service client server api auth user users session middleware schema serializer forms "
         "tests test_models test_views test_api conftest fixtures README CHANGELOG setup init __init__ base "
         "errors exceptions logging cache database migrations manager factory builder parser lexer tokenizer "
         "renderer layout button modal table list item card header footer sidebar navbar dashboard profile "
         "invoice payment billing report export import upload download search filter sort pagination").split()
EXTS = [(".py", 30), (".ts", 15), (".tsx", 10), (".js", 12), (".go", 6), (".md", 6), (".json", 6), (".yaml", 4),
        (".html", 3), (".css", 3), (".rs", 3), (".java", 2)]
QUERIES = ["invoiceservice", "usrprof", "billing/inv", "cfg", "testmodels", "README", "qqqzz"]


def synthetic_paths(n: int, seed: int = 7) -> list[str]:
    """`n` distinct repository-like paths (deterministic for a seed)."""
    rnd = random.Random(seed)
    exts = [e for e, w in EXTS for _ in range(w)]
    # A few large subtrees, as monorepos have: the same top folders again and again.
    tops = [rnd.choice(FOLDERS) for _ in range(12)]
    paths: set[str] = set()
    while len(paths) < n:
        depth = min(int(rnd.expovariate(0.45)) + 1, 9)
        parts = [rnd.choice(tops)] + [rnd.choice(FOLDERS) for _ in range(depth - 1)]
        name = rnd.choice(NAMES)
        r = rnd.random()
        if r < 0.3:
            name += "_" + rnd.choice(NAMES)
        elif r < 0.4:
            name += str(rnd.randint(1, 40))
        paths.add("/".join(parts + [name + rnd.choice(exts)]))
    return sorted(paths)


def naive_scan(paths: list[str], query: str, limit: int = 50) -> list[str]:
    """The baseline a finder without an index does: each path checked in Python, then sorted."""
    q = query.lower()
    found = []
    for p in paths:
        it = iter(p.lower())
        if all(ch in it for ch in q):
            found.append(p)
    found.sort(key=len)
    return found[:limit]


def time_typing(name: str, make, search, queries: list[str], rounds: int) -> dict:
    """Type every query keystroke by keystroke on a fresh `make()` each round: per-keystroke ms."""
    per_key: list[float] = []
    first: list[float] = []
    for _ in range(rounds):
        for query in queries:
            index = make()
            for k in range(1, len(query) + 1):
                t = time.perf_counter()
                search(index, query[:k])
                ms = (time.perf_counter() - t) * 1000
                per_key.append(ms)
                if k == 1:
                    first.append(ms)
    return {"name": name, "median": statistics.median(per_key), "p95": percentile(per_key, 95),
            "max": max(per_key), "first": statistics.median(first), "keys": len(per_key)}


def main(argv: list[str] | None = None) -> int:
    from steer_tui.project.fuzzy import FuzzyIndex
    from steer_tui.project.listing import _walk, list_files

    parser = argparse.ArgumentParser(prog="python -m bench finder")
    parser.add_argument("--paths", type=int, default=50_000)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="store_true", help="also list the synthetic paths written as a git repository")
    args = parser.parse_args(argv or [])

    paths = synthetic_paths(args.paths)
    t = time.perf_counter()
    FuzzyIndex(paths)
    build_ms = (time.perf_counter() - t) * 1000
    rows = []
    steer = time_typing("steer FuzzyIndex.search (top 50)", lambda: FuzzyIndex(paths),
                        lambda ix, q: ix.search(q), QUERIES, args.rounds)
    rows.append(steer)
    try:
        from rapidfuzz import fuzz, process

        rows.append(time_typing("baseline: rapidfuzz process.extract WRatio (top 50)", lambda: paths,
                                lambda ps, q: process.extract(q, ps, scorer=fuzz.WRatio, limit=50),
                                QUERIES, 1))
    except ImportError:
        pass
    rows.append(time_typing("baseline: naive Python subsequence scan + sort", lambda: paths, naive_scan, QUERIES, 1))
    print(f"{len(paths):,} synthetic paths; index built in {build_ms:.0f} ms (in the finder's worker, once per "
          f"listing); queries typed keystroke by keystroke: {', '.join(QUERIES)}")
    print_table("Finder: keystroke -> ranked top 50 (ms)", ["matcher", "median", "p95", "max", "first key (median)",
                                                           "keystrokes"],
                [[r["name"], r["median"], r["p95"], r["max"], r["first"], r["keys"]] for r in rows])

    repos = [args.repo.resolve()]
    with tempfile.TemporaryDirectory() as tmp:
        if args.tree:
            repos.append(write_tree(Path(tmp) / "synthetic", paths))
        listing_rows = []
        for repo in repos:
            for name, fn in (("list_files (git ls-files, one call)", list_files), ("walk honouring .gitignore", _walk)):
                times, count = [], 0
                for _ in range(3):
                    t = time.perf_counter()
                    count = len(fn(repo))
                    times.append((time.perf_counter() - t) * 1000)
                listing_rows.append([repo.name, name, count, statistics.median(times)])
        print_table("Listing (ms, median of 3)", ["repository", "how", "files", "ms"], listing_rows)
    return 0 if steer["p95"] < 16 else 1


def write_tree(root: Path, paths: list[str]) -> Path:
    """`paths` as small files in a new git repository at `root`: the first half committed, the rest untracked."""
    for rel in paths:
        full = root / rel
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text("x = 1\n")
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "b@b", "PATH": os.environ.get("PATH", "")}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    half = paths[: len(paths) // 2]
    for i in range(0, len(half), 2000):
        subprocess.run(["git", "add", "--", *half[i:i + 2000]], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "half"], cwd=root, check=True, env=env)
    return root


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
