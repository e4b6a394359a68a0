"""Runs the benchmarks: `python -m bench [NAME ...]` (default: all that exist)."""

from __future__ import annotations

import importlib
import sys

ALL = ["apply", "transport", "local", "pipeline"]


def main(argv: list[str]) -> int:
    names = argv or ALL
    status = 0
    for name in names:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bench.{name}" and not argv:
                continue
            print(f"bench {name}: {exc}", file=sys.stderr)
            status = 2
            continue
        rc = module.main() or 0
        status = status or rc
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
