"""Runs the benchmarks: `python -m bench [NAME ...]` (default: all that exist)."""

from __future__ import annotations

import importlib
import inspect
import sys

ALL = ["apply", "transport", "local", "pipeline", "syntaxguard", "finder", "index", "bigfile"]


def main(argv: list[str]) -> int:
    # `python -m bench NAME --opt ...`: leading words are benchmarks, the rest their options.
    split = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))
    names, options = argv[:split] or ALL, argv[split:]
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
        takes_options = bool(inspect.signature(module.main).parameters)
        if options and not takes_options:
            print(f"bench {name}: takes no options", file=sys.stderr)
            status = 2
            continue
        rc = (module.main(options) if takes_options else module.main()) or 0
        status = status or rc
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
