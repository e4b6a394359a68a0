"""`steer edit FILE -m "..."`: one instruction, one minimal edit, applied; a result scripts can trust.

It drives the same Session as the app, without a screen. On a terminal it shows the live
diff while the answer streams and the final diff after; piped, stdout carries only the
final unified diff and progress goes to stderr; `--json` prints one JSON object.

Exit codes: 0 applied (or nothing to change: already applied, or the instruction allowed no
change), 1 the model's edit could not be applied or changed nothing (file untouched), 2 usage or file error, 3 backend error, 130 interrupted (Ctrl+C: the
request is cancelled and the file untouched).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_BACKEND, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
FORMAT_CHOICES = ("search_replace", "apply_patch", "udiff", "rewrite")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the file to edit")
    parser.add_argument("-m", "--message", metavar="TEXT", help="what to change (read from stdin when omitted)")
    parser.add_argument("--backend", help="local (default: the embedded model), openai, xai, cerebras, groq, "
                        "ollama, vllm, llamacpp, or a ws(s):// gateway URL")
    parser.add_argument("--model", help="model name, or a GGUF path for the local engine")
    parser.add_argument("--region", metavar="START:END",
                        help="only edit lines START..END (1-based, inclusive); rewrite format without it: the "
                             "definitions the instruction names, else the whole file")
    parser.add_argument("--format", choices=FORMAT_CHOICES,
                        help="edit format to ask for (default: the best one for the backend)")
    parser.add_argument("--dry-run", action="store_true", help="show the diff, do not write the file")
    parser.add_argument("--json", action="store_true", help="print a JSON result (applied, diff, tokens, ttft_s, "
                        "tokens_per_s, attempts, reason, answer) on stdout")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the diff (auto: on a terminal)")
    add_context_arguments(parser)
    add_daemon_argument(parser)
    from steer_tui.commands.edit_attempts import add_arguments as add_attempt_arguments

    add_attempt_arguments(parser)


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--context", metavar="PATH", nargs="+", action="extend", default=[],
                        help="also show the model these files (or definitions, by name) of the project, read-only")
    parser.add_argument("--no-context", dest="auto_context", action="store_false", default=None,
                        help="send no automatic context from the project's other files (config: context = false)")


def project_context(args, settings, path):
    """The project context the command's request carries (steer_tui.project.session_context), or None."""
    from steer_tui.project.session_context import for_file

    from pathlib import Path

    # A path is as the user typed it, from here; a word that is no file is a definition's name.
    pinned = tuple(str(Path(p).resolve()) if Path(p).exists() else p for p in getattr(args, "context", None) or ())
    return for_file(path, settings, pinned=pinned, enabled=getattr(args, "auto_context", None))


def add_daemon_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-daemon", dest="daemon", action="store_false", default=None,
                        help="local backend: start a private engine for this command instead of using (or "
                             "starting) the shared one that stays loaded between commands (config: daemon = false)")


class UsageError(Exception):
    pass


def parse_region(value: str | None, n_lines: int) -> tuple[int, int] | None:
    """'START:END' (1-based, inclusive) -> 0-based end-exclusive range; UsageError if invalid."""
    if value is None:
        return None
    try:
        a, b = value.split(":", 1)
        start, end = int(a), int(b)
    except ValueError:
        raise UsageError(f"--region must be START:END (line numbers), not {value!r}") from None
    if not 1 <= start <= end:
        raise UsageError(f"--region {value}: need 1 <= START <= END")
    if end > n_lines:
        raise UsageError(f"--region {value}: the file has {n_lines} lines")
    return start - 1, end


def read_instruction(args) -> str:
    if args.message is not None:
        text = args.message
    elif sys.stdin is None or sys.stdin.isatty():
        raise UsageError("no instruction: give -m TEXT or pipe it on stdin")
    else:
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the instruction is empty")
    return text.strip()


# ------------------------------------------------------------------ output


class Output:
    """Where things go: live diff on a terminal, progress on stderr, final diff or JSON on stdout."""

    def __init__(self, args, stdout=None, stderr=None):
        self.out = stdout or sys.stdout
        self.err = stderr or sys.stderr
        self.json = args.json
        self.tty = _isatty(self.out)
        self.live_view = self.tty and not self.json
        color = args.color
        self.color = color == "always" or (color == "auto" and self.tty and not os.environ.get("NO_COLOR"))
        self.err_color = color == "always" or (color == "auto" and _isatty(self.err) and not os.environ.get("NO_COLOR"))
        self._printed: dict = {}  # streaming hunk key -> complete new lines already shown
        self._headers: set = set()
        self._rows = -1

    def progress(self, text: str) -> None:
        if self.live_view:
            self.out.write(self._paint(f"steer: {text}\n", "2", self.color))
            self.out.flush()
        else:
            self.err.write(self._paint(f"steer: {text}\n", "2", self.err_color))
            self.err.flush()

    def live(self, session) -> None:
        """Print the complete new lines of streaming hunks as they arrive (terminal only)."""
        if not self.live_view:
            return
        live = session.live
        if live.row_count == self._rows:
            return  # only a partial line grew: print whole lines only
        self._rows = live.row_count
        for h in live.hunks():
            if not h.streaming:
                continue
            done = len(h.new)
            shown = self._printed.get(h.key, 0)
            if done <= shown:
                continue
            if h.key not in self._headers:
                self._headers.add(h.key)
                self.out.write(self._paint(f"@@ line {h.start + 1} @@\n", "36", self.color))
                for line in live.lines[h.start : h.end]:
                    self.out.write(self._paint(f"-{line}\n", "31", self.color))
            for line in h.new[shown:done]:
                self.out.write(self._paint(f"+{line}\n", "32", self.color))
            self._printed[h.key] = done
        self.out.flush()

    def final_diff(self, diff: str) -> None:
        if self.json or not diff:
            return
        if self.live_view:
            self.out.write(self._paint("--- final diff ---\n", "1", self.color))
        for line in diff.splitlines(keepends=True):
            code = {"+": "32", "-": "31", "@": "36"}.get(line[:1], "")
            if line.startswith(("+++", "---")):
                code = "1"
            self.out.write(self._paint(line, code, self.color) if code else line)
        self.out.flush()

    def result(self, payload: dict) -> None:
        if self.json:
            self.out.write(json.dumps(payload, indent=2) + "\n")
            self.out.flush()

    @staticmethod
    def _paint(text: str, code: str, on: bool) -> str:
        if not on or not code:
            return text
        body = text.rstrip("\n")
        return f"\x1b[{code}m{body}\x1b[0m" + text[len(body) :]


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------ run


def run(args) -> int:
    out = Output(args)
    try:
        instruction = read_instruction(args)
    except UsageError as exc:
        return _fail(out, args, EXIT_USAGE, str(exc))
    try:
        return asyncio.run(_main(args, instruction, out))
    except KeyboardInterrupt:
        # Ctrl+C before the loop could install its handler: nothing was written.
        return _fail(out, args, EXIT_INTERRUPTED, "interrupted; the file is untouched")


def _fail(out: Output, args, code: int, reason: str, **extra) -> int:
    out.progress(reason) if not out.json else out.err.write(f"steer: {reason}\n")
    payload = _payload(args, applied=False, status=extra.pop("status", _STATUS.get(code, "error")), reason=reason,
                       exit_code=code, **extra)
    out.result(payload)
    return code


_STATUS = {EXIT_REFUSED: "refused", EXIT_USAGE: "usage_error", EXIT_BACKEND: "backend_error",
           EXIT_INTERRUPTED: "interrupted"}


def _payload(args, **fields) -> dict:
    base = {
        "file": getattr(args, "file", None),
        "applied": False,
        "status": "error",
        "dry_run": bool(getattr(args, "dry_run", False)),
        "diff": "",
        "hunks": 0,
        "tokens": 0,
        "ttft_s": None,
        "tokens_per_s": None,
        "attempts": 0,
        "reason": "",
        "exit_code": None,
        "backend": None,
        "model": None,
        "format": None,
        "engine": None,  # "warm": the engine was running already; "cold": this command started it
        "connect_s": None,  # seconds from start to a connected engine (a cold one: its whole start)
        "context": [],  # what the project's other files gave the request: {path, name, reason, tokens}
    }
    base.update(fields)
    for k in ("ttft_s", "tokens_per_s", "connect_s"):
        if isinstance(base[k], float):
            base[k] = round(base[k], 4)
    return base


async def _main(args, instruction: str, out: Output) -> int:
    from steer_tui.config import ConfigError, load_settings
    from steer_tui.files import Document, DocumentError

    try:
        settings = load_settings(backend=args.backend, model=args.model, edit_format=args.format,
                                 daemon=getattr(args, "daemon", None))
    except ConfigError as exc:
        return _fail(out, args, EXIT_USAGE, str(exc))
    try:
        doc = Document.open(args.file)  # a path that does not exist yet: an empty file, created on accept
    except FileNotFoundError:
        return _fail(out, args, EXIT_USAGE, f"no such file: {args.file}")
    except (DocumentError, OSError) as exc:
        return _fail(out, args, EXIT_USAGE, f"cannot edit {args.file}: {exc}")
    try:
        region = parse_region(args.region, len(doc.text.splitlines()))
    except UsageError as exc:
        return _fail(out, args, EXIT_USAGE, str(exc))
    before = doc.text
    ran = await _edit(args, instruction, out, settings, doc, region)
    if isinstance(ran, int):
        return ran
    session, result, common = ran
    try:
        code = _report(args, out, session, result, common)
        if session.document.text != before and _on_shared_engine(session):
            from steer_tui.prewarm_request import leave_warm

            # Written: the next command on this file finds it evaluated (the engine outlives us).
            await leave_warm(session)
        return code
    finally:
        await _cleanup(session)


def _progress_events(out: Output, get_session):
    """The session's events as `steer edit` shows them: the live diff and a line of progress each."""
    from steer_tui.events import VERDICTS, ConnectionChanged, Notice, ProposalUpdated, StateChanged
    from steer_tui.state import State

    def on_event(ev) -> None:
        match ev:
            case ProposalUpdated():
                out.live(get_session())
            case Notice() if ev.code not in VERDICTS:  # the final verdict is printed once, below
                out.progress(ev.text)
            case ConnectionChanged(state="connecting" | "loading" | "lost"):
                out.progress(f"{ev.state} {ev.detail}".strip())
            case StateChanged(state=State.GENERATING):
                out.progress("generating…")

    return on_event


async def _edit(args, instruction: str, out: Output, settings, doc, region):
    """Connect and ask (once more on a new engine if the shared one died mid-answer): the session,
    its result and what the report says of the backend; or an exit code, after saying why."""
    from steer_tui.backend import SessionError
    from steer_tui.commands.interrupt import SigintCancels
    from steer_tui.files import Document
    from steer_tui.session import Session

    session: Session | None = None
    on_event = _progress_events(out, lambda: session)
    session = Session(doc, settings, on_event, edit_format=args.format)
    session.context = project_context(args, settings, args.file)
    session.region_once = True  # nothing reads the file ahead of the request
    common = {"backend": settings.backend, "model": settings.model, "format": session.format}
    sigint = SigintCancels.install()
    try:
        for tries_left in (1, 0):
            started = time.perf_counter()
            try:
                # The index is built (or read from its cache) while the engine connects.
                await asyncio.gather(session.start(prewarm=False), _build_context(session.context))
            except SessionError as exc:
                return _fail(out, args, EXIT_BACKEND, f"backend error: {exc.message}", error_code=exc.code, **common)
            # What the gateway serves is known once connected: the format may follow it, and the
            # report names the model that answered.
            if session.context is not None and settings.context_tokens is None:
                from steer_tui.project.session_context import default_budget

                session.context.budget_tokens = default_budget(settings.backend, session.server_engine)
            common.update(model=settings.model or session.server_model, format=session.format,
                          engine=getattr(session.client, "engine_start", None),
                          connect_s=time.perf_counter() - started)
            result = await _ask(args, session, instruction, region, out)
            died = await _shared_engine_lost(session, result)
            if not died or not tries_left:
                break
            # Nothing was written (an edit applies only once whole): ask again on the next engine.
            out.progress(f"{died}; asking again on a new engine")
            await _cleanup(session)
            context, session = session.context, Session(Document.open(args.file), settings, on_event,
                                                        edit_format=args.format)
            session.context = context
    except asyncio.CancelledError:
        if not sigint.interrupted:
            raise
        await _cleanup(session)
        return _fail(out, args, EXIT_INTERRUPTED, "interrupted; the request was cancelled and the file is untouched",
                     **common)
    finally:
        sigint.remove()
    return session, result, common


async def _ask(args, session, instruction: str, region, out: Output):
    """The turn's result; with --attempts N or --check, the alternatives asked (edit_attempts.Asked)."""
    from steer_tui.commands import edit_attempts

    if edit_attempts.wanted(args):
        return await edit_attempts.ask(args, session, instruction, region, out)
    return await session.edit(instruction, region)


async def _build_context(context) -> None:
    if context is not None:
        await asyncio.to_thread(context.build)


def _report(args, out: Output, session, result, common: dict) -> int:
    """Say how the edit ended, write it unless it is a dry run or failed, and give the exit code."""
    from steer_tui.commands import edit_attempts
    from steer_tui.state import State

    if isinstance(result, edit_attempts.Asked):
        via = edit_attempts.Reporting(_report, _fail, _payload, EXIT_OK, EXIT_REFUSED)
        return edit_attempts.report(args, out, session, result, common, via)

    if session.context is not None:
        from steer_tui.project.context import summary

        common["context"] = [item.as_json() for item in session.context.last]
        if session.context.last:
            out.progress(summary(session.context.last))
    stats = {"tokens": result.tokens, "draft_tokens_accepted": result.draft_accepted,
             "ttft_s": result.ttft_s, "tokens_per_s": result.tokens_per_s,
             "attempts": result.attempts, "answer": result.raw_text, **common}
    if result.status == "error" or (result.status == "stopped" and (session.state is State.INTERRUPTED
                                                                     or _connection_lost(result))):
        return _fail(out, args, EXIT_BACKEND, f"backend error: {result.reason}", error_code=result.error_code,
                     **stats)
    if result.no_change:
        # Never "nothing to change" when the instruction asked for a change: the model failed it.
        return _fail(out, args, EXIT_REFUSED, f"{result.reason}; the file is untouched", status="no_change", **stats)
    if result.status == "refused":
        return _fail(out, args, EXIT_REFUSED, f"the edit could not be applied: {result.reason}", **stats)
    if result.status != "proposal":
        reason = "nothing to change: " + (result.reason or "the edit changes nothing")
        out.progress(reason)
        out.result(_payload(args, applied=False, status="nothing", reason=reason, exit_code=EXIT_OK, **stats))
        return EXIT_OK
    diff = session.proposal_diff()
    hunks = session.live.hunk_count
    if args.dry_run:
        out.final_diff(diff)
        out.progress(f"dry run: {hunks} hunk(s) not written {_stats_line(result)}")
        out.result(_payload(args, applied=False, status="proposal", diff=diff, hunks=hunks, exit_code=EXIT_OK,
                            reason="dry run", **stats))
        return EXIT_OK
    created = session.document.is_new
    if not session.accept_all():
        return _fail(out, args, EXIT_REFUSED, "the edit could not be written: the file changed on disk meanwhile",
                     diff=diff, **stats)
    out.final_diff(diff)
    done = f"created {args.file}" if created else f"applied {hunks} hunk(s) to {args.file}"
    out.progress(f"{done} {_stats_line(result)}")
    out.result(_payload(args, applied=True, status="applied", diff=diff, hunks=hunks, exit_code=EXIT_OK,
                        reason="", **stats))
    return EXIT_OK


def _connection_lost(result) -> bool:
    """The answer stopped because the connection dropped (never "nothing to change", exit 0)."""
    return result.status == "stopped" and (result.reason or "").startswith("connection lost")


def _on_shared_engine(session) -> bool:
    """The session's engine is the shared one, which outlives this command (not --no-daemon's own)."""
    return hasattr(getattr(session.client, "gateway", None), "revive")


async def _shared_engine_lost(session, result) -> str | None:
    """Why the answer stopped, when the shared engine's connection dropped under it (the engine
    was killed or crashed); None otherwise. A private engine's loss is reported, not retried."""
    if not _connection_lost(result) or not _on_shared_engine(session):
        return None
    return await session.client.gateway.death(2.0) or f"the shared engine's connection dropped ({result.reason})"


async def _cleanup(session) -> None:
    if session is None:
        return
    try:
        await asyncio.wait_for(session.close(), timeout=5)
    except (asyncio.TimeoutError, Exception):
        pass


def _stats_line(result) -> str:
    parts = [f"{result.tokens} tokens"]
    if result.ttft_s is not None:
        parts.append(f"ttft {result.ttft_s:.2f}s")
    if result.tokens_per_s:
        parts.append(f"{result.tokens_per_s:.1f} tok/s")
    parts.append(f"{result.attempts} attempt{'s' if result.attempts != 1 else ''}")
    return "(" + ", ".join(parts) + ")"
