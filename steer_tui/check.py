"""Candidates for a file checked with the user's own command, each in a scratch copy of the project.

Run only because the user asked (`steer edit --check CMD`): each candidate is written into a fresh
copy of the project around the file (steer_tui.scratch: the git work tree, else the file's folder,
as it stands on disk, ignored build outputs too), CMD runs there
through the shell (cwd: the copy's root; `STEER_CHECK_FILE`: the candidate's path in the copy)
under a time limit, its whole process group killed when over, and the copy is removed after. The
user's tree is never written. Candidates are checked in the order given (most likely first), `jobs`
at once; the first in that order to pass (exit 0) wins, and the checks after it are stopped.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from steer_tui.scratch import ScratchProject

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_JOBS = 2  # checks at once (a test run takes a core; more starve the others on a small machine)
TAIL_LINES = 12  # of CMD's output kept for the summary
_KEEP_BYTES = 64 * 1024  # of CMD's output held while it runs (the tail)
# A terminal's colour and cursor codes: a test runner told to colour its output (pytest's
# --color=yes in a project's addopts) writes them into a pipe too.
_TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


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
        plain = _TERMINAL_CODES.sub("", self.output)
        last = next((ln.strip() for ln in reversed(plain.splitlines()) if ln.strip()), "")
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
        run = CheckRun(self, on_outcome=on_outcome)
        for key, text in candidates:
            run.add(key, text)
        return await run.finish()


class CheckRun:
    """Candidates checked as they come, in the order they are added (most likely first), `jobs` at
    once: a candidate's check may start while later ones are still being written. A place with no
    candidate (an answer that does not apply) is `skip`ped. The winner is known once one passes and
    every place before it failed or was skipped; then `on_decided(key)` is called (once), the checks
    after it are stopped and no more start."""

    def __init__(self, checker: Checker, on_outcome=None, on_decided=None):
        self.checker = checker
        self.on_outcome = on_outcome
        self.on_decided = on_decided
        self.order: list[object] = []  # the keys in the order added (None: a skipped place)
        self.texts: dict[object, str] = {}
        self.outcomes: dict[object, CheckOutcome] = {}
        self.running: dict[asyncio.Task, object] = {}
        self.stopping: list[asyncio.Task] = []  # checks cancelled once the winner was known
        self.winner: object | None = None
        self.decided = False
        self._changed = asyncio.Event()

    def add(self, key, text: str) -> None:
        self.order.append(key)
        self.texts[key] = text
        self._start()

    def skip(self) -> None:
        """A place with nothing to check (it cannot be the winner, and does not hold one back)."""
        self.order.append(None)
        self._decide()

    def _start(self) -> None:
        started = set(self.running.values()) | set(self.outcomes)
        for key in self.order:
            if self.decided or len(self.running) >= self.checker.jobs:
                return
            if key is None or key in started:
                continue
            if any(o.passed for o in self.outcomes.values()) and self._after_a_pass(key):
                continue  # one before it passed: it needs no check
            task = asyncio.ensure_future(self.checker.check(self.texts[key]))
            self.running[task] = key
            task.add_done_callback(self._done)

    def _after_a_pass(self, key) -> bool:
        for k in self.order:
            if k == key:
                return False
            if k is not None and k in self.outcomes and self.outcomes[k].passed:
                return True
        return False

    def _done(self, task: asyncio.Task) -> None:
        key = self.running.pop(task, None)
        if key is None or task.cancelled():
            return
        if task.exception() is not None:
            self.outcomes[key] = CheckOutcome(False, None, 0.0, f"could not run the check: {task.exception()}", ran=False)
        else:
            self.outcomes[key] = task.result()
        if self.on_outcome is not None:
            self.on_outcome(key, self.outcomes[key])
        self._decide()
        self._start()
        self._changed.set()

    def _decide(self) -> None:
        if self.decided:
            return
        for key in self.order:
            if key is None:
                continue
            o = self.outcomes.get(key)
            if o is None:
                return  # still to be checked: it may yet win
            if o.passed:
                self.decided, self.winner = True, key
                for task in self.running:
                    task.cancel()
                    self.stopping.append(task)
                if self.on_decided is not None:
                    self.on_decided(key)
                return

    async def finish(self) -> tuple[object | None, dict]:
        """Once every candidate is added: wait for the winner (or for every check to fail)."""
        try:
            while not self.decided and (self.running or self._pending()):
                self._changed.clear()
                self._start()
                if not self.running:
                    break
                await self._changed.wait()
            self.decided = True
        finally:
            self.stopping += list(self.running)
            for task in self.stopping:
                task.cancel()
            # Their process groups killed and their copies removed before this returns.
            await asyncio.gather(*self.stopping, return_exceptions=True)
        note = f"not checked: attempt {self.winner} passed first" if self.winner is not None else "not checked"
        for key in self.order:
            if key is not None:
                self.outcomes.setdefault(key, CheckOutcome(False, None, 0.0, note, ran=False))
        return self.winner, dict(self.outcomes)

    def _pending(self) -> bool:
        return any(k is not None and k not in self.outcomes for k in self.order)
