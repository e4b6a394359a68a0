"""`steer ask FILE -m "..."`: a question about the code, answered in prose on stdout; the file is never touched.

On a terminal the answer is drawn as markdown (Rich) while it streams; piped, stdout gets the
plain text as it arrives and progress goes to stderr. Exit codes: 0 answered, 2 usage or file
error, 3 backend error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

EXIT_OK, EXIT_USAGE, EXIT_BACKEND, EXIT_INTERRUPTED = 0, 2, 3, 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the file the question is about")
    parser.add_argument("-m", "--message", metavar="TEXT", help="the question (read from stdin when omitted)")
    parser.add_argument("--backend", help="local (default: the embedded model), openai, xai, cerebras, groq, "
                        "ollama, vllm, llamacpp, or a ws(s):// gateway URL")
    parser.add_argument("--model", help="model name, or a GGUF path for the local engine")
    parser.add_argument("--region", metavar="START:END",
                        help="the lines the question is about (1-based, inclusive); default: the whole file")
    parser.add_argument("--markdown", choices=("auto", "always", "never"), default="auto",
                        help="draw the answer as markdown (auto: on a terminal)")
    from steer_tui.commands.edit import add_context_arguments, add_daemon_argument

    add_context_arguments(parser)
    add_daemon_argument(parser)


def run(args) -> int:
    from steer_tui.commands.edit import UsageError, read_instruction

    try:
        question = read_instruction(args)
    except UsageError as exc:
        print(f"steer: {str(exc).replace('instruction', 'question')}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(_main(args, question))
    except KeyboardInterrupt:
        print("steer: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


async def _shared_engine_lost(client, answer) -> str | None:
    """Why the answer failed, when the shared engine died under it; None otherwise."""
    lease = getattr(client, "gateway", None)
    if answer.status != "error" or not hasattr(lease, "revive"):
        return None
    return await lease.death(2.0)


def _markdown(args, out) -> bool:
    if args.markdown != "auto":
        return args.markdown == "always"
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _inputs(args):
    """The settings, the file and the region the question is about; an exit code after saying why
    when one of them cannot be had."""
    from steer_tui.commands.edit import UsageError, parse_region
    from steer_tui.config import ConfigError, load_settings
    from steer_tui.files import Document, DocumentError

    err = sys.stderr
    try:
        settings = load_settings(backend=args.backend, model=args.model, daemon=getattr(args, "daemon", None))
    except ConfigError as exc:
        print(f"steer: {exc}", file=err)
        return EXIT_USAGE
    try:
        doc = Document.read(args.file)
    except (DocumentError, OSError) as exc:
        print(f"steer: cannot read {args.file}: {exc}", file=err)
        return EXIT_USAGE
    try:
        region = parse_region(args.region, len(doc.text.splitlines()))
    except UsageError as exc:
        print(f"steer: {exc}", file=err)
        return EXIT_USAGE
    return settings, doc, region


class _Printer:
    """Writes the answer as it grows: new text appended as it comes, or Markdown redrawn by a
    rich Live (`pretty`)."""

    def __init__(self, out, pretty: bool):
        self.out = out
        self.pretty = pretty
        self.live = None
        self.shown = 0
        self.asking = None  # the Asking whose answer is printed, set once it exists

    def start(self) -> None:
        if self.pretty:
            from rich.console import Console
            from rich.live import Live

            self.live = Live(console=Console(file=self.out), refresh_per_second=10, vertical_overflow="visible")
            self.live.start()

    def on_change(self) -> None:
        answer = self.asking.answer if self.asking is not None else None
        if answer is None:
            return
        text = answer.text
        if self.live is not None:
            from rich.markdown import Markdown

            self.live.update(Markdown(text))  # drawn by Live's own refresh, a few times a second
        elif len(text) > self.shown and text.startswith(text[:self.shown]):
            self.out.write(text[self.shown:])
            self.out.flush()
            self.shown = len(text)

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()  # draws the last state once more

    def end(self, text: str) -> None:
        if self.live is None and self.shown and not text.endswith("\n"):
            self.out.write("\n")
            self.out.flush()


async def _main(args, question: str) -> int:
    from steer_tui.backend import SessionError, open_backend

    got = _inputs(args)
    if isinstance(got, int):
        return got
    settings, doc, region = got
    err = sys.stderr

    def status(state: str, detail: str = "") -> None:
        print(f"steer: {state} {detail}".rstrip(), file=err)

    try:
        client = await open_backend(settings, status)
    except SessionError as exc:
        print(f"steer: backend error: {exc.message}", file=err)
        return EXIT_BACKEND
    try:
        return await _answer(args, question, settings, doc, region, client)
    finally:
        try:
            await asyncio.wait_for(client.close(), 5)
        except Exception:
            pass


async def _places(args, settings, question: str, index=None) -> list:
    """The project's lines the question names (steer_tui.project.where.Hit), paths as this shell
    sees them (none with --no-context or `context = false`); `index`: the project's, where built."""
    if getattr(args, "auto_context", None) is False or not getattr(settings, "context", True):
        return []
    from pathlib import Path

    from steer_tui.project.where import places_for

    try:
        return await asyncio.to_thread(places_for, Path(args.file), question, Path.cwd(), index=index)
    except Exception as exc:  # the answer is still worth having without them
        print(f"steer: could not search the project: {exc}", file=sys.stderr)
        return []


def _print_places(out, text: str, hits: list) -> None:
    """After the answer, the places it names without a line, one `path:line: code` each (as grep
    prints them, so a terminal or an editor opens them)."""
    from pathlib import Path

    from steer_tui.project.where import cited

    extra = cited(text, hits, Path.cwd())
    if extra:
        out.write("\n" + "".join(f"{h.path}:{h.line}: {h.text}\n" for h in extra))
        out.flush()


async def _context(args, settings, doc, region, question: str, engine: str | None):
    """What the question carries from the project's other files (steer_tui.project.context.RequestContext),
    after one stderr line saying what went in, and the project's index it was chosen from; None
    for either with none."""
    from steer_tui.commands.edit import project_context
    from steer_tui.project.context import summary
    from steer_tui.project.session_context import default_budget

    ctx = project_context(args, settings, args.file)
    if ctx is None:
        return None, None
    if settings.context_tokens is None:
        ctx.budget_tokens = default_budget(settings.backend, engine)
    try:
        await asyncio.to_thread(ctx.build)
        message = ctx.request(doc.text, region, question)
    except Exception as exc:  # the answer is still worth having without it
        print(f"steer: no project context: {exc}", file=sys.stderr)
        return None, None
    if ctx.last:
        print(f"steer: {summary(ctx.last)}", file=sys.stderr)
    return message, ctx.index


async def _answer(args, question: str, settings, doc, region, client) -> int:
    """Ask on `client`, print the answer as it comes (once more on a new engine if the shared one
    died), and say how it ended."""
    from steer_tui.ask import Asking
    from steer_tui.commands.interrupt import SigintCancels
    from steer_tui.project.where import places_block
    from steer_tui.prompts import default_format

    err = sys.stderr
    printer = _Printer(sys.stdout, _markdown(args, sys.stdout))
    sigint = SigintCancels.install()
    try:
        info = getattr(client, "server_info", None)
        engine = info.get("engine") if isinstance(info, dict) else None
        backend = "local" if engine == "local" else settings.backend
        model = settings.model if settings.backend != "local" else None
        fmt = settings.edit_format or default_format(backend, model)
        rel = os.path.relpath(args.file)
        path = rel if not rel.startswith("..") else os.path.basename(args.file)  # as the model sees it
        asking = Asking(client, model=model, max_output_tokens=settings.max_output_tokens,
                        temperature=settings.temperature, on_change=printer.on_change)
        printer.asking = asking
        from steer_tui.project.window import file_budget

        served = info.get("context_tokens") if isinstance(info, dict) else None
        budget = file_budget(getattr(settings, "file_tokens", None), settings.backend, engine, served)
        context, index = await _context(args, settings, doc, region, question, engine)
        hits = await _places(args, settings, question, index)
        places = places_block(hits)
        printer.start()
        try:
            await asking.start(fmt, path, doc.text, question, region, places=places, context=context,
                               file_tokens=budget)
            answer = await asking.wait()
            died = await _shared_engine_lost(client, answer)
            if died:
                # The client's next request connects to the next shared engine (Lease.revive).
                print(f"\nsteer: {died}; asking again on a new engine", file=err)
                printer.shown = 0
                await asking.start(fmt, path, doc.text, question, region, places=places, context=context,
                               file_tokens=budget)
                answer = await asking.wait()
        except asyncio.CancelledError:
            if not sigint.interrupted:
                raise
            await asking.stop()
            print("\nsteer: interrupted; the request was cancelled", file=err)
            return EXIT_INTERRUPTED
        finally:
            printer.stop()
        printer.end(answer.text)
        if answer.status == "error":
            print(f"steer: backend error: {answer.reason}", file=err)
            return EXIT_BACKEND
        _print_places(sys.stdout, answer.answer_text, hits)
        if answer.status == "cut_off":
            print(f"steer: the answer was {answer.reason}", file=err)
        return EXIT_OK
    finally:
        sigint.remove()