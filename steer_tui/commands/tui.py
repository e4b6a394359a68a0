"""`steer [PATH]`: open the interactive app on a project or a file in it (Textual is imported only when it runs)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="PATH",
                        help="a file to edit (opened within its project: the git repository around it, else its "
                             "folder), or a folder whose project to open; default: the current folder")
    parser.add_argument("--backend", help="local (default: the embedded model), openai, xai, cerebras, groq, "
                        "ollama, vllm, llamacpp, or a ws(s):// gateway URL")
    parser.add_argument("--model", help="model name, or a GGUF path for the local engine")
    parser.add_argument("--theme", help="dark, light, a theme from the config dir, or any Textual theme")
    parser.add_argument("--format", dest="edit_format", help="edit format to ask the model for")
    parser.add_argument("--test-command", dest="test_command", help="command Ctrl+T runs (only when asked)")
    from steer_tui.commands.edit import add_daemon_argument

    add_daemon_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from steer_tui.config import ConfigError, load_settings

    path = Path(args.file) if args.file else Path(".")  # a folder opens its project, the finder first
    try:
        settings = load_settings(
            backend=args.backend, model=args.model, theme=args.theme,
            edit_format=getattr(args, "edit_format", None), test_command=getattr(args, "test_command", None),
            daemon=getattr(args, "daemon", None),
        )
    except ConfigError as exc:
        print(f"steer: {exc}", file=sys.stderr)
        return 2
    from steer_tui.ui.app import make_app

    app = make_app(path, settings)
    app.run()
    return int(app.return_code or 0)
