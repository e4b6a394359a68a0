"""Starts `steer serve` as a subprocess on an ephemeral loopback port and waits until it is ready.

The child prints `steer serve ready: <ws-url> <http-url> ...` once it listens; the
launcher reads the URL from that line, so the port is whatever the OS gave. A child
that exits first (a missing model, a bad flag) becomes a GatewayStartError carrying
its own error message.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections import deque

from steer_tui.spawn import python_argv

READY_PREFIX = "steer serve ready:"  # must match steer_tui.commands.serve.READY_PREFIX


# A signal's usual cause, for a child that died mid-answer: the stream only says the connection
# dropped, and a SIGILL in particular looks like a network problem without it.
SIGNAL_HINTS = {
    "SIGILL": "llama-cpp-python was built for CPU instructions this machine does not run; rebuild it "
              "(README: The embedded model, \"Illegal instruction\")",
    "SIGKILL": "killed from outside, often by the kernel when memory runs out",
    "SIGSEGV": "the model runtime crashed",
    "SIGBUS": "the model runtime crashed",
    "SIGABRT": "the model runtime aborted",
}


def exit_description(returncode: int) -> str:
    """How a `steer serve` child ended, in words: its exit status, or the signal that killed it."""
    if returncode >= 0:
        return f"steer serve exited with status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        return f"steer serve was killed by signal {-returncode}"
    hint = SIGNAL_HINTS.get(name)
    return f"steer serve was killed by {name} ({signal.strsignal(-returncode)})" + (f": {hint}" if hint else "")


class GatewayStartError(Exception):
    """`steer serve` did not come up; the message says why (its stderr)."""


class GatewayProcess:
    """A running `steer serve` child. Use `await GatewayProcess.start([...])`."""

    def __init__(self, args: list[str], host: str, port: int, env: dict | None, timeout: float):
        self.args = list(args)
        self.host = host
        self.port = port
        self.env = env
        self.timeout = timeout
        self.proc: asyncio.subprocess.Process | None = None
        self.url = ""
        self.http_url = ""
        self.banner = ""
        self._stderr_tail: deque[str] = deque(maxlen=40)
        self._pumps: list[asyncio.Task] = []

    @classmethod
    async def start(cls, args: list[str], *, host: str = "127.0.0.1", port: int = 0, env: dict | None = None,
                    timeout: float = 60.0) -> "GatewayProcess":
        """Run `steer serve ARGS --host HOST --port PORT`; returns once it accepts connections.

        `env` adds variables for the child (e.g. an upstream API key); the parent's
        environment is inherited otherwise.
        """
        gateway = cls(args, host, port, env, timeout)
        await gateway.spawn()
        return gateway

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def spawn(self) -> None:
        env = dict(os.environ)
        env.update(self.env or {})
        cmd = python_argv("serve", *self.args, "--host", self.host, "--port", str(self.port), "--exit-with-stdin")
        self._stderr_tail.clear()
        # Its stdin is a pipe only this process holds: if this process dies in any way (SIGKILL,
        # a closed terminal), the child reads end of file and exits instead of keeping a model in memory.
        self.proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, start_new_session=True)
        self._pumps = [asyncio.create_task(self._pump_stderr())]
        try:
            line = await asyncio.wait_for(self._read_ready(), self.timeout)
        except asyncio.TimeoutError:
            await self.stop()
            raise GatewayStartError(f"steer serve did not become ready within {self.timeout:.0f}s"
                                    + self._stderr_summary()) from None
        except BaseException:
            # Cancelled while waiting (Ctrl+C during a model load): the child is in its own
            # session and never saw the signal, so it must not be left running.
            self.kill()
            for task in self._pumps:
                task.cancel()
            raise
        if line is None:
            await self.proc.wait()
            raise GatewayStartError(await self._ended(self.proc.returncode, settle=2))
        parts = line[len(READY_PREFIX):].split()
        self.url, self.http_url = parts[0], parts[1]
        self.banner = line
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])
        self._pumps.append(asyncio.create_task(self._pump_stdout()))

    async def _read_ready(self) -> str | None:
        assert self.proc and self.proc.stdout
        while True:
            raw = await self.proc.stdout.readline()
            if not raw:
                return None
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith(READY_PREFIX):
                return line

    async def _pump_stderr(self) -> None:
        # Keep reading so the child never blocks on a full pipe; keep the tail for errors.
        assert self.proc and self.proc.stderr
        while True:
            raw = await self.proc.stderr.readline()
            if not raw:
                return
            self._stderr_tail.append(raw.decode("utf-8", "replace").rstrip())

    async def _pump_stdout(self) -> None:
        assert self.proc and self.proc.stdout
        while await self.proc.stdout.readline():
            pass

    async def death(self, timeout: float = 1.0) -> str | None:
        """Why the child is gone, if it is gone or goes within `timeout` (a dropped connection
        usually comes a moment before the exit status); None while it keeps running."""
        if self.proc is None:
            return None
        try:
            returncode = await asyncio.wait_for(asyncio.shield(self.proc.wait()), timeout)
        except asyncio.TimeoutError:
            return None
        if returncode == 0:
            return None  # stopped on purpose (its stdin closed)
        return await self._ended(returncode, settle=0.5)

    async def _ended(self, returncode: int, settle: float) -> str:
        """How the child ended, for an error: the exit description, and for an exit status the
        error lines it printed (read for up to `settle` s more). After a signal what it printed
        last is the runtime's log, not why it died, so only the signal is named."""
        if returncode < 0:
            return exit_description(returncode)
        await asyncio.wait(self._pumps, timeout=settle)
        return exit_description(returncode) + self._stderr_summary()

    def _stderr_summary(self) -> str:
        lines = [line for line in self._stderr_tail if line.strip()]
        errors = [line for line in lines if "error" in line.lower()]
        shown = errors[-3:] or lines[-5:]
        return (": " + " | ".join(shown)) if shown else ""

    async def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM, then SIGKILL after `timeout`."""
        if self.proc is None:
            return
        if self.proc.returncode is None:
            try:
                self.proc.terminate()
                await asyncio.wait_for(self.proc.wait(), timeout)
            except ProcessLookupError:
                pass
            except asyncio.TimeoutError:
                self.kill()
                await self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        for task in self._pumps:
            task.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    def kill(self) -> None:
        """SIGKILL now, as a crash would (tests use it to cut a stream mid-way)."""
        if self.proc is not None and self.proc.returncode is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass

    async def restart(self) -> None:
        """Start again on the same port (so clients reconnect to the same URL)."""
        await self.stop()
        self.port = self.port or 0
        await self.spawn()
