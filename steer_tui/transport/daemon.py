"""The shared engine: one `steer serve` per user and engine configuration that outlives a command (its address file, lock, start, connect, stop).

The first command that needs the embedded model starts `steer serve` detached (loopback, port 0,
a random token, `--exit-when-idle`); the engine writes its address, token, pid and steer build
(the version and a fingerprint of the engine's code, build_id) into `engine-KEY.json` (mode 0600, in a 0700 folder of the user's runtime dir) and removes it when
it exits. KEY is a hash of the serve arguments, so a command asking for another model or flags
gets an engine of its own. Later commands read the file, check the engine answers /v1/health with
that token and that pid, and connect. An exclusive lock on `engine-KEY.lock` is held while an
engine is checked, stopped or started, so commands starting at once start one engine. A file that
names a dead pid or an engine that does not answer is stale: removed, and a new engine started;
an engine of another build (steer upgraded while it ran) is stopped and replaced.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import hashlib
import json
import os
import secrets
import signal
import subprocess
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from steer_tui import __version__
from steer_tui.spawn import python_argv
from steer_tui.transport.launcher import GatewayStartError

RUNTIME_ENV = "STEER_RUNTIME_DIR"
TOKEN_ENV = "STEER_GATEWAY_TOKEN"  # must match steer_tui.commands.serve.TOKEN_ENV
PREFIX = "engine-"
DEFAULT_IDLE_S = 15 * 60.0
LOCK_POLL_S = 0.02


class DaemonError(GatewayStartError):
    """The shared engine could not be started or reached; the message says why (its log's last lines)."""


@dataclass
class Address:
    pid: int
    url: str
    http_url: str
    token: str
    version: str
    args: list
    started: float
    idle_s: float | None = None

    @classmethod
    def parse(cls, raw: str) -> "Address | None":
        try:
            data = json.loads(raw)
            addr = cls(int(data["pid"]), str(data["url"]), str(data["http_url"]), str(data["token"]),
                       str(data["version"]), list(data.get("args") or []), float(data["started"]),
                       float(data["idle_s"]) if data.get("idle_s") is not None else None)
        except (ValueError, TypeError, KeyError):
            return None
        return addr if addr.pid > 0 and addr.url.startswith("ws://") else None


# ------------------------------------------------------------------ where


def runtime_dir() -> Path:
    """The user's own folder for engine files (mode 0700): STEER_RUNTIME_DIR, else the runtime dir
    (XDG_RUNTIME_DIR), else the cache dir when there is no usable runtime dir."""
    override = os.environ.get(RUNTIME_ENV)
    candidates = [Path(override)] if override else []
    if not override:
        from platformdirs import user_runtime_dir

        from steer_tui.config import cache_dir

        # Without XDG_RUNTIME_DIR platformdirs falls back to a folder of its own under /tmp (checked
        # private below) and warns on stderr, which every command would print.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runtime = user_runtime_dir("steer")
        candidates = [Path(runtime), cache_dir() / "run"]
    last: OSError | None = None
    for folder in candidates:
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _check_private(folder)
            return folder
        except OSError as exc:
            last = exc
    raise DaemonError(f"no folder for the shared engine's address: {last}")


def _check_private(folder: Path) -> None:
    """A folder another user owns or can write to could hand us their engine (or read our token)."""
    st = folder.stat()
    if st.st_uid != os.getuid():
        raise OSError(errno.EPERM, f"{folder} belongs to another user")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


def build_id() -> str:
    """steer's version and a fingerprint of the code the engine runs (names, sizes, mtimes): an
    upgrade, or an edited checkout, that keeps the version number still replaces a running engine.
    Read from disk each time, as the engine it would start reads it: a long-running app after an
    upgrade accepts the new engine instead of replacing it again."""
    package = Path(__file__).resolve().parents[1]
    files = [package / "__init__.py", package / "commands" / "serve.py", Path(__file__).resolve(),
             *sorted((package / "server").rglob("*.py"))]
    digest = hashlib.sha256()
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        digest.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return f"{__version__}+{digest.hexdigest()[:10]}"


def key_of(serve_args: list[str]) -> str:
    return hashlib.sha256(json.dumps(list(serve_args)).encode()).hexdigest()[:12]


def address_path(folder: Path, key: str) -> Path:
    return folder / f"{PREFIX}{key}.json"


def read_address(path: Path) -> Address | None:
    try:
        return Address.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def write_address(path: Path, addr: Address) -> None:
    """Atomically, readable by the user only: a reader sees the old file or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(asdict(addr), f)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove_address(path: Path, pid: int) -> None:
    """Remove the file if it still names `pid` (a newer engine's file is left alone)."""
    addr = read_address(path)
    if addr is not None and addr.pid == pid:
        path.unlink(missing_ok=True)


def all_addresses(folder: Path) -> list[tuple[Path, Address | None]]:
    return [(p, read_address(p)) for p in sorted(folder.glob(f"{PREFIX}*.json"))]


# ------------------------------------------------------------------ checks


def pid_alive(pid: int) -> bool:
    """Running (an exited child not yet reaped is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process holds the number now
    return not _zombie(pid)


def _is_engine(pid: int, path: Path) -> bool | None:
    """Whether `pid` is the engine started for `path` (its command line names the file); None
    where /proc cannot say. Guards against signalling a process that reused a dead engine's pid."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False if Path("/proc/self").exists() else None
    except OSError:
        return None
    return str(path).encode() in cmdline


async def healthy(addr: Address, timeout: float = 3.0) -> bool:
    """The engine answers /v1/health with our token, as the pid the file names."""
    from steer_tui.transport.health import gateway_info

    info = await gateway_info(addr.url, addr.token, timeout=timeout)
    return isinstance(info, dict) and info.get("pid") == addr.pid


# ------------------------------------------------------------------ lock


class _Lock:
    """An exclusive flock on `engine-KEY.lock`, waited for without blocking the event loop."""

    def __init__(self, path: Path):
        self.path = path
        self.fd = -1

    async def __aenter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return self
                except BlockingIOError:
                    await asyncio.sleep(LOCK_POLL_S)
        except BaseException:
            os.close(self.fd)
            raise

    async def __aexit__(self, *exc):
        os.close(self.fd)  # closing releases the lock; the file stays (removing it would race)


# ------------------------------------------------------------------ start, connect, stop


@dataclass
class Lease:
    """A connection's hold on a shared engine: what ResponsesClient.gateway asks of it. The engine
    is shared, so closing a client leaves it running; when it dies, `revive` finds or starts the next."""

    addr: Address
    path: Path
    serve_args: list
    env: dict
    idle_s: float
    timeout: float
    warm: bool = True  # the engine was running before this command looked

    @property
    def running(self) -> bool:
        return pid_alive(self.addr.pid)

    @property
    def log_path(self) -> Path:
        return self.path.with_suffix(".log")

    async def death(self, timeout: float = 1.0) -> str | None:
        end = time.monotonic() + timeout
        while pid_alive(self.addr.pid):
            if time.monotonic() >= end:
                return None
            await asyncio.sleep(0.05)
        return f"the shared steer engine (pid {self.addr.pid}) stopped (its log: {self.log_path})"

    async def stop(self, timeout: float = 5.0) -> None:
        """The engine is shared: a client closing leaves it to its idle limit."""

    async def revive(self) -> Address:
        """The engine died: the one another command started since, or a new one."""
        self.addr, self.warm = await connect(self.serve_args, env=self.env, idle_s=self.idle_s, timeout=self.timeout)
        return self.addr


async def lease(serve_args: list[str], *, env: dict | None = None, idle_s: float = DEFAULT_IDLE_S,
                timeout: float = 600.0) -> Lease:
    addr, warm = await connect(serve_args, env=env, idle_s=idle_s, timeout=timeout)
    path = address_path(runtime_dir(), key_of(serve_args))
    return Lease(addr, path, list(serve_args), dict(env or {}), idle_s, timeout, warm)


async def connect(serve_args: list[str], *, env: dict | None = None, idle_s: float = DEFAULT_IDLE_S,
                  timeout: float = 600.0) -> tuple[Address, bool]:
    """The address of a healthy shared engine for `serve_args`, starting one if there is none;
    and whether it was already running (warm) when we looked."""
    folder = runtime_dir()
    key = key_of(serve_args)
    path = address_path(folder, key)
    addr = read_address(path)
    if addr is not None and addr.version == build_id() and await healthy(addr):
        return addr, True
    async with _Lock(folder / f"{PREFIX}{key}.lock"):
        addr = read_address(path)  # another command may have started it while we waited
        if addr is not None:
            # A longer wait than above: an engine slow to answer while it serves many is not stale.
            if addr.version == build_id() and pid_alive(addr.pid) and await healthy(addr, timeout=10.0):
                return addr, False
            await _retire(path, addr)
        elif path.exists():
            path.unlink(missing_ok=True)  # unreadable: written by something else, or cut short
        return await _start(path, serve_args, env or {}, idle_s, timeout), False


async def _retire(path: Path, addr: Address) -> None:
    """An engine of another version, or one that does not answer: stopped (if it is ours), file removed."""
    if pid_alive(addr.pid) and _is_engine(addr.pid, path) is not False:
        await asyncio.to_thread(terminate, addr.pid)
    path.unlink(missing_ok=True)


def terminate(pid: int, timeout: float = 10.0) -> bool:
    """SIGTERM, then SIGKILL after `timeout`; True once the pid is gone."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if not pid_alive(pid):
                return True
            time.sleep(0.05)
    return not pid_alive(pid)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


async def _start(path: Path, serve_args: list[str], env: dict, idle_s: float, timeout: float) -> Address:
    token = secrets.token_urlsafe(32)
    child_env = dict(os.environ)
    child_env.update(env)
    child_env[TOKEN_ENV] = token  # never on the command line, which every local user can read
    cmd = python_argv("serve", *serve_args, "--host", "127.0.0.1", "--port", "0", "--address-file", str(path),
                      "--exit-when-idle", f"{idle_s:g}")
    log_path = path.with_suffix(".log")
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        # Its own session: Ctrl+C in the terminal that started it stops the command, not the engine.
        # Its working directory is the runtime folder, not the project the first command ran in.
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd, env=child_env,
                                cwd=path.parent, start_new_session=True, close_fds=True)
    finally:
        os.close(log_fd)
    # Reaped when it exits, so a long-lived starter (the app) keeps no zombie that looks alive.
    threading.Thread(target=proc.wait, name=f"steer-engine-{proc.pid}", daemon=True).start()
    end = time.monotonic() + timeout
    try:
        while True:
            addr = read_address(path)
            if addr is not None and addr.pid == proc.pid:
                if await healthy(addr):
                    return addr
            if proc.poll() is not None:
                raise DaemonError(f"the shared engine exited with status {proc.returncode}{_log_tail(log_path)}")
            if time.monotonic() > end:
                raise DaemonError(f"the shared engine did not become ready within {timeout:.0f}s{_log_tail(log_path)}")
            await asyncio.sleep(0.05)
    except BaseException:
        # Given up on (an error, a timeout, Ctrl+C while the model loads): not left running.
        if proc.poll() is None:
            proc.kill()
        remove_address(path, proc.pid)
        raise


def _log_tail(log_path: Path) -> str:
    try:
        lines = [line for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    errors = [line for line in lines if "error" in line.lower()]
    shown = errors[-3:] or lines[-5:]
    return (": " + " | ".join(shown)) if shown else ""


# ------------------------------------------------------------------ steer serve --stop / --status


async def status(folder: Path | None = None) -> list[dict]:
    """Every shared engine with a file in `folder`: its address (token left out) and whether it answers."""
    folder = folder or runtime_dir()
    rows = []
    for path, addr in all_addresses(folder):
        if addr is None:
            rows.append({"file": str(path), "state": "unreadable"})
            continue
        ok = pid_alive(addr.pid) and await healthy(addr)
        rows.append({"file": str(path), "state": "running" if ok else "stale", "pid": addr.pid, "url": addr.url,
                     "version": addr.version, "args": addr.args, "started": addr.started, "idle_s": addr.idle_s})
    return rows


async def stop_all(folder: Path | None = None) -> list[int]:
    """Stop every shared engine with a file in `folder` (each under its lock); the pids stopped."""
    folder = folder or runtime_dir()
    stopped = []
    for path, _ in all_addresses(folder):
        async with _Lock(path.with_suffix(".lock")):
            addr = read_address(path)
            if addr is not None and pid_alive(addr.pid) and _is_engine(addr.pid, path) is not False:
                await asyncio.to_thread(terminate, addr.pid)
                stopped.append(addr.pid)
            path.unlink(missing_ok=True)
    # Engines still loading have no file yet (their starter holds the lock and waits): found by the
    # address file their command line names.
    for pid in _starting_in(folder):
        if await asyncio.to_thread(terminate, pid):
            stopped.append(pid)
    return stopped


def _starting_in(folder: Path) -> list[int]:
    """Pids of this user's engines whose address file is in `folder` (Linux: /proc; elsewhere none)."""
    marker = b"--address-file\0" + str(folder).encode() + b"/" + PREFIX.encode()
    pids = []
    proc = Path("/proc")
    if not proc.is_dir():
        return pids
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if entry.stat().st_uid == os.getuid() and marker in (entry / "cmdline").read_bytes() \
                    and not _zombie(int(entry.name)):
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids
