"""Candidates for a file checked with the user's own command, each in a scratch copy of the project.

Run only because the user asked (`steer edit --check CMD`): each candidate is written into a fresh
copy of the project around the file (steer_tui.project.root.project_root: the git work tree, else
the file's folder; its files as steer_tui.project.listing.list_files gives them), CMD runs there
through the shell (cwd: the copy's root; `STEER_CHECK_FILE`: the candidate's path in the copy)
under a time limit, its whole process group killed when over, and the copy is removed after. The
user's tree is never written. Candidates are checked in the order given (most likely first), `jobs`
at once; the first in that order to pass (exit 0) wins, and the checks after it are stopped.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_JOBS = 2  # checks at once (a test run takes a core; more starve the others on a small machine)
TAIL_LINES = 12  # of CMD's output kept for the summary
_KEEP_BYTES = 64 * 1024  # of CMD's output held while it runs (the tail)


@dataclass
class CheckOutcome:
    """How CMD ended on one candidate."""

    passed: bool
    exit_code: int | None  # None: timed out, or not run
    seconds: float
    output: str  # the tail of what it printed (stdout and stderr together)
    timed_out: bool = False
    ran: bool = True  # False: not needed (an earlier candidate passed) or could not start

    def summary(self) -> str:
        """One line: how it ended and its last line of output."""
        if not self.ran:
            return self.output or "not checked"
        last = next((ln.strip() for ln in reversed(self.output.splitlines()) if ln.strip()), "")
        how = ("passed" if self.passed else f"timed out after {self.seconds:.0f} s" if self.timed_out
               else f"failed (exit {self.exit_code})")
        return f"{how}: {last[:160]}" if last and not self.passed else how

    def as_json(self) -> dict:
        return {"passed": self.passed, "exit_code": self.exit_code, "timed_out": self.timed_out, "ran": self.ran,
                "seconds": round(self.seconds, 3), "output": self.output}


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return "\n".join(text.rstrip("\n").splitlines()[-TAIL_LINES:])


async def run_command(command: str, cwd: Path, timeout_s: float, env: dict | None = None) -> CheckOutcome:
    """Run `command` through the shell in `cwd` in a process group of its own; over `timeout_s`
    (or cancelled) the group is killed. Its output's tail comes back."""
    t0 = time.perf_counter()
    try:
        proc = await asyncio.create_subprocess_shell(
            command, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return CheckOutcome(False, None, time.perf_counter() - t0, f"could not run the check: {exc}", ran=False)
    buf = bytearray()

    async def drain() -> None:
        while chunk := await proc.stdout.read(65536):
            buf.extend(chunk)
            del buf[:-_KEEP_BYTES]

    reader = asyncio.ensure_future(drain())
    timed_out = False
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except asyncio.TimeoutError:
            timed_out = True
    finally:
        if proc.returncode is None or timed_out:
            _kill_group(proc.pid)
            await proc.wait()
        # A child that left the group keeps the pipe open: its output is not waited for.
        try:
            await asyncio.wait_for(asyncio.shield(reader), 2.0)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            reader.cancel()
    seconds = time.perf_counter() - t0
    if timed_out:
        return CheckOutcome(False, None, seconds, _tail(bytes(buf)), timed_out=True)
    return CheckOutcome(proc.returncode == 0, proc.returncode, seconds, _tail(bytes(buf)))


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ScratchProject:
    """The project around `path`, copied into a temp folder once per candidate (`copy`), and removed."""

    def __init__(self, path: str | os.PathLike[str]):
        from steer_tui.project.root import project_root

        self.path = Path(path).absolute()
        self.root = project_root(self.path)
        self.relative = self.path.resolve().relative_to(self.root) if self.path.exists() else \
            self.path.parent.resolve().relative_to(self.root) / self.path.name
        self._files: list[str] | None = None

    def files(self) -> list[str]:
        """The project's files (listed once)."""
        if self._files is None:
            from steer_tui.project.listing import list_files

            self._files = list_files(self.root)
        return self._files

    def copy(self, text: str, encode=None) -> Path:
        """A new temp folder holding the project with `text` as the file (its bytes: `encode(text)`)."""
        dest = Path(tempfile.mkdtemp(prefix="steer-check-"))
        try:
            for rel in self.files():
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    shutil.copy2(self.root / rel, target, follow_symlinks=True)
                except OSError:
                    continue  # gone or unreadable since it was listed: the check sees the tree as it is
            target = dest / self.relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(encode(text) if encode is not None else text.encode("utf-8"))
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        return dest


class Checker:
    """Checks candidates of one file with `command`, most likely first, `jobs` at once."""

    def __init__(self, path: str | os.PathLike[str], command: str, timeout_s: float = DEFAULT_TIMEOUT_S,
                 jobs: int = DEFAULT_JOBS, encode=None):
        if not command.strip():
            raise ValueError("the check command is empty")
        if timeout_s <= 0 or jobs < 1:
            raise ValueError("the check needs a time limit over 0 s and at least one job")
        self.project = ScratchProject(path)
        self.command = command
        self.timeout_s = timeout_s
        self.jobs = jobs
        self.encode = encode  # the file's own encoding of a text (steer_tui.files.Document.encode)

    async def check(self, text: str) -> CheckOutcome:
        """Run the command on one candidate in a scratch copy of its own (removed after)."""
        dest = await asyncio.to_thread(self.project.copy, text, self.encode)
        try:
            env = dict(os.environ, STEER_CHECK_FILE=str(dest / self.project.relative))
            return await run_command(self.command, dest, self.timeout_s, env)
        finally:
            await asyncio.to_thread(shutil.rmtree, dest, True)

    async def first_passing(self, candidates: list[tuple[object, str]],
                            on_outcome=None) -> tuple[object | None, dict]:
        """(the key of the first candidate in order whose check passes, or None; {key: CheckOutcome}).
        A check after the winner still running is stopped (its process group killed); those not
        started are not run."""
        outcomes: dict[int, CheckOutcome] = {}
        running: dict[asyncio.Task, int] = {}
        nxt, winner = 0, None
        try:
            while True:
                # One passed already: those after it need no check (an earlier one may yet win).
                passed = min((i for i, o in outcomes.items() if o.passed), default=len(candidates))
                while winner is None and len(running) < self.jobs and nxt < passed:
                    running[asyncio.ensure_future(self.check(candidates[nxt][1]))] = nxt
                    nxt += 1
                if not running:
                    break
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    i = running.pop(task)
                    outcomes[i] = task.result()
                    if on_outcome is not None:
                        on_outcome(candidates[i][0], outcomes[i])
                for i in range(len(candidates)):
                    if i not in outcomes:
                        break  # an earlier one is still to end: it may yet win
                    if outcomes[i].passed:
                        winner = i
                        break
                if winner is not None:
                    break
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)
        for i in range(len(candidates)):
            outcomes.setdefault(i, CheckOutcome(False, None, 0.0, f"not checked: attempt {candidates[winner][0]} "
                                                f"passed first" if winner is not None else "not checked", ran=False))
        return (candidates[winner][0] if winner is not None else None), {candidates[i][0]: o for i, o in outcomes.items()}
