"""Command-line entry: `steer [PATH]`, `steer edit`, `steer ask`, `steer apply`, `steer serve`.

Each sub-command lives in `steer_tui/commands/<name>.py` and exposes
`add_arguments(parser)` and `run(args) -> int`. Command modules keep heavy
imports (Textual, llama.cpp) inside `run()` so that `steer apply` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from steer_tui import __version__

SUBCOMMANDS = {
    "edit": "one-shot edit of FILE from an instruction (for scripts and CI)",
    "ask": "ask a question about FILE; the answer is printed, the file is not touched",
    "apply": "apply the edits in a model response to a file",
    "serve": "run the Responses-over-WebSocket gateway",
}


def _command_module(name: str):
    return importlib.import_module(f"steer_tui.commands.{name}")


def build_parser(name: str | None) -> argparse.ArgumentParser:
    if name is None:
        parser = argparse.ArgumentParser(
            prog="steer",
            description="Open a project (PATH: a folder, default the current one) or a file in it, say what to "
            "change, watch the edit stream in as a live diff. "
            "Sub-commands: " + ", ".join(f"'{k}' ({v})" for k, v in SUBCOMMANDS.items()),
        )
        parser.add_argument("--version", action="version", version=f"steer {__version__}")
        _command_module("tui").add_arguments(parser)
        return parser
    parser = argparse.ArgumentParser(prog=f"steer {name}", description=SUBCOMMANDS[name])
    _command_module(name).add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    name = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    rest = argv[1:] if name else argv
    parser = build_parser(name)
    args = parser.parse_args(rest)
    try:
        return int(_command_module(name or "tui").run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
