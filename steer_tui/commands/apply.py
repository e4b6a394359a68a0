"""`steer apply PATH [RESPONSE]`: apply the edits in a model response to a file, all or nothing.

Exit status: 0 applied (the unified diff is printed) or already applied (a message,
nothing written); 1 refused (file untouched; reason and feedback on stderr); 2 usage
or I/O error. Imports stay light (no Textual) so the command starts fast.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="the file to edit")
    parser.add_argument(
        "response", metavar="RESPONSE", nargs="?", default="-",
        help="file holding the model's response ('-' or nothing: read stdin)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    parser.add_argument("--json", action="store_true", help="print a machine-readable result")
    parser.add_argument(
        "--region", metavar="START:END",
        help="the response rewrites lines START..END (1-based, inclusive) of PATH in full",
    )


def _read_response(name: str) -> str:
    if name == "-":
        if sys.stdin.isatty():
            print("steer apply: reading the response from the terminal (end with Ctrl-D)", file=sys.stderr)
        data = sys.stdin.buffer.read()
    else:
        with open(name, "rb") as f:
            data = f.read()
    return data.decode("utf-8-sig", errors="replace")  # a BOM is not part of the first marker line


def _region(spec: str, text: str) -> tuple[str, int]:
    try:
        a, b = (int(x) for x in spec.split(":", 1))
    except ValueError:
        raise ValueError(f"--region wants START:END line numbers, got {spec!r}") from None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if not 1 <= a <= b <= len(lines):
        raise ValueError(f"--region {spec} is outside the file's lines 1..{len(lines)}")
    return "".join(ln + "\n" for ln in lines[a - 1 : b]), a - 1


def _diff(old: str, new: str, path: str) -> str:
    from steer_tui.edits.lines import unified_diff  # marks a last line without a newline, as diff does

    return unified_diff(path, old, new) if old != new else ""


def _emit_json(payload: dict) -> None:
    import json

    print(json.dumps(payload, indent=2))


def run(args: argparse.Namespace) -> int:
    from steer_tui.edits.apply import ApplyError, apply_response
    from steer_tui.files import Document, DocumentError

    try:
        doc = Document.read(args.path)
    except DocumentError as e:
        return _fail_io(args, str(e))
    try:
        response = _read_response(args.response)
    except OSError as e:
        return _fail_io(args, f"{args.response}: {e.strerror}")
    region_text = region_start = None
    if args.region:
        try:
            region_text, region_start = _region(args.region, doc.text)
        except ValueError as e:
            return _fail_io(args, str(e))

    try:
        result = apply_response(
            doc.text, response, region_text=region_text, region_start=region_start, path=str(args.path)
        )
    except ApplyError as e:
        if args.json:
            _emit_json(
                {"applied": False, "already_applied": False, "blocks": [], "reason": e.reason,
                 "message": e.message, "block": e.block_index, "feedback": e.feedback, "diff": ""}
            )
        print(f"steer apply: refused: {e.message}", file=sys.stderr)
        print(e.feedback, file=sys.stderr)
        return 1

    old_text, new_text = doc.text, result.new_text
    changed = new_text != old_text
    diff = _diff(old_text, new_text, str(args.path))
    already = bool(result.already_applied) and not result.changes  # some block skipped as made, none applied
    blocks = [
        {"index": b.index, "kind": b.kind, "status": b.status, "strategy": b.strategy,
         "start_line": None if b.start is None else b.start + 1, "end_line": b.end}
        for b in result.blocks
    ]
    if changed and not args.dry_run:
        try:
            doc.write(new_text)
        except DocumentError as e:
            return _fail_io(args, str(e))
        except OSError as e:
            return _fail_io(args, f"{args.path}: {e.strerror}")
    if args.json:
        _emit_json(
            {"applied": changed and not args.dry_run, "changed": changed,
             "already_applied": already and not changed,
             "dry_run": bool(args.dry_run), "blocks": blocks, "reason": None, "diff": diff}
        )
        return 0
    if diff:
        sys.stdout.write(diff)
        if args.dry_run:
            print("steer apply: dry run, nothing written", file=sys.stderr)
    elif already:  # (not changed: every block was skipped)
        print(f"steer apply: already applied: {args.path} already has these changes; nothing written")
    else:
        print(f"steer apply: the edits change nothing in {args.path}; nothing written")
    return 0


def _fail_io(args: argparse.Namespace, message: str) -> int:
    if getattr(args, "json", False):
        _emit_json({"applied": False, "already_applied": False, "blocks": [], "reason": "io_error",
                    "message": message, "diff": ""})
    print(f"steer apply: {message}", file=sys.stderr)
    return 2
