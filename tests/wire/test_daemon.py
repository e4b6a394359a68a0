"""The shared engine (steer_tui/transport/daemon.py): one per user and configuration, started once by
commands starting at once, replaced when stale or of another version, gone when idle or stopped,
and a kill mid-answer retried on a new engine; real `steer serve` processes with the replay engine."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
from pathlib import Path

import pytest

from steer_tui import __version__
from steer_tui.config import Settings
from steer_tui.spawn import python_argv
from steer_tui.transport import daemon
from steer_tui.transport.backends import open_backend, resolve_backend
from steer_tui.transport.client import ConnectError, ResponsesClient
from steer_tui.transport.events import Disconnected, TextDelta
from tests.wire.conftest import within

STEER = python_argv()
DATA = Path(__file__).resolve().parents[1] / "session" / "data"
CALC = (DATA / "calc.py").read_text(encoding="utf-8")
FIXED = CALC.replace("def mean(values):\n", "def mean(values):\n    if not values:\n        return 0.0\n")


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """A runtime folder of the test's own; every engine started in it is stopped after the test."""
    folder = tmp_path / "run"
    monkeypatch.setenv(daemon.RUNTIME_ENV, str(folder))
    yield folder
    if folder.exists():
        asyncio.run(daemon.stop_all(folder))
    assert engines_in(folder) == [], "an engine outlived its test"


@pytest.fixture
def replay_config(tmp_path):
    """`--backend replay` plays fix_mean.txt (`rate`: deltas a second, "max" by default)."""
    def write(rate="max", **keys):
        folder = Path(os.environ["STEER_CONFIG_DIR"])
        folder.mkdir(parents=True, exist_ok=True)
        extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
        (folder / "config.toml").write_text(
            f'{extra}[backends.replay]\nfile = "{DATA / "fix_mean.txt"}"\nrate = "{rate}"\n', encoding="utf-8")
    write()
    return write


def engines_in(folder: Path) -> list[int]:
    """Pids of `steer serve` processes started for an address file in `folder` (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and b"--address-file\0" + str(folder).encode() in cmdline:
            pids.append(int(entry.name))
    return pids


async def steer(*args, cwd=None, env=None):
    proc = await asyncio.create_subprocess_exec(*STEER, *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE, cwd=cwd,
                                                env=dict(os.environ, NO_COLOR="1", **(env or {})))
    out, err = await within(proc.communicate(), 120)
    return proc.returncode, out.decode(), err.decode()


async def edit(path: Path, *extra, env=None) -> tuple[int, dict, str]:
    code, out, err = await steer("edit", str(path), "-m", "handle an empty list in mean", "--backend", "replay",
                                 "--json", *extra, env=env)
    return code, json.loads(out), err


def calc_copies(tmp_path: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        path = tmp_path / f"calc{i}.py"
        path.write_text(CALC, encoding="utf-8")
        paths.append(path)
    return paths


REPLAY = ["--engine", "replay", "--replay", str(DATA / "fix_mean.txt"), "--rate", "max"]


# ------------------------------------------------------------------ one engine, shared


async def test_twenty_commands_at_once_start_one_engine_and_all_edit(runtime, replay_config, tmp_path):
    paths = calc_copies(tmp_path, 20)
    results = await within(asyncio.gather(*(edit(p) for p in paths)), 300)
    for (code, result, err), path in zip(results, paths):
        assert code == 0 and result["applied"] is True, err
        assert path.read_text(encoding="utf-8") == FIXED
    assert len(engines_in(runtime)) == 1
    assert len(list(runtime.glob("engine-*.json"))) == 1
    # Once it runs, a command finds it warm.
    (tmp_path / "more").mkdir()
    code, result, err = await edit(calc_copies(tmp_path / "more", 1)[0])
    assert code == 0 and result["engine"] == "warm" and result["applied"] is True, err
    assert len(engines_in(runtime)) == 1


async def test_json_reports_cold_then_warm_and_the_connect_time(runtime, replay_config, tmp_path):
    first, second = calc_copies(tmp_path, 2)
    code, result, err = await edit(first)
    assert code == 0 and result["engine"] == "cold", err
    assert isinstance(result["connect_s"], float) and result["connect_s"] >= 0
    code, result, err = await edit(second)
    assert code == 0 and result["engine"] == "warm" and result["applied"] is True, err
    assert isinstance(result["connect_s"], float)


async def test_a_written_file_is_left_prewarmed_on_the_shared_engine(runtime, replay_config, tmp_path):
    """After writing, `steer edit` leaves the file as written to the shared engine to evaluate (a
    detached prewarm), so the next command on it evaluates only its words; nothing when it wrote nothing."""
    from steer_tui.transport.health import gateway_info

    path = calc_copies(tmp_path, 1)[0]
    code, result, err = await edit(path)
    assert code == 0 and result["applied"] is True, err
    (row,) = await daemon.status(runtime)
    token = daemon.read_address(Path(row["file"])).token
    assert (await gateway_info(row["url"], token))["detached_prewarms"] == 1
    code, result, err = await edit(path, "--dry-run")  # writes nothing: leaves nothing
    assert code == 0 and result["applied"] is False, err
    assert (await gateway_info(row["url"], token))["detached_prewarms"] == 1


async def test_no_daemon_keeps_a_private_engine(runtime, replay_config, tmp_path):
    a, b, c = calc_copies(tmp_path, 3)
    code, result, err = await edit(a, "--no-daemon")
    assert code == 0 and result["applied"] is True and result["engine"] == "cold", err
    code, result, err = await edit(b, env={"STEER_NO_DAEMON": "1"})
    assert code == 0 and result["engine"] == "cold", err
    replay_config(daemon=False)
    code, result, err = await edit(c)
    assert code == 0 and result["engine"] == "cold", err
    assert not list(runtime.glob("engine-*.json")) and engines_in(runtime) == []
    assert all(p.read_text(encoding="utf-8") == FIXED for p in (a, b, c))


def test_the_daemon_setting_is_checked(replay_config):
    from steer_tui.config import ConfigError, load_settings

    replay_config(daemon="no")
    with pytest.raises(ConfigError, match="daemon must be true or false"):
        load_settings()
    replay_config(daemon_idle_minutes=0)
    with pytest.raises(ConfigError, match="daemon_idle_minutes"):
        load_settings()


def test_settings_choose_shared_or_private():
    assert resolve_backend(Settings(backend="local")).shared is True
    assert resolve_backend(Settings(backend="local", daemon=False)).shared is False
    spec = resolve_backend(Settings(backend="local", speculation=False, daemon_idle_minutes=2))
    assert "--no-speculation" in spec.serve_args and spec.idle_s == 120  # another flag, another engine


# ------------------------------------------------------------------ private to the user


async def test_files_are_the_users_only_and_the_token_is_checked(runtime):
    addr, warm = await within(daemon.connect(REPLAY))
    assert not warm
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700
    for path in runtime.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    # The token never shows in the process list.
    assert addr.token.encode() not in Path(f"/proc/{addr.pid}/cmdline").read_bytes()
    stranger = ResponsesClient(addr.url, reconnect_attempts=1)
    with pytest.raises(ConnectError, match="401"):
        await within(stranger.connect())
    client = ResponsesClient(addr.url, api_key=addr.token)
    try:
        assert await within((await client.create(input="x")).collect()) == (DATA / "fix_mean.txt").read_text()
    finally:
        await client.close()


async def test_a_folder_others_can_open_is_made_private(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    monkeypatch.setenv(daemon.RUNTIME_ENV, str(folder))
    assert daemon.runtime_dir() == folder and stat.S_IMODE(folder.stat().st_mode) == 0o700


# ------------------------------------------------------------------ stale, version, idle, stop


async def test_a_stale_file_is_replaced(runtime):
    runtime.mkdir(mode=0o700)
    path = daemon.address_path(runtime, daemon.key_of(REPLAY))
    dead = await asyncio.create_subprocess_exec("true")
    await dead.wait()
    # A dead pid, then a live one that is not an engine (this test) at a port nothing answers on.
    for pid in (dead.pid, os.getpid()):
        daemon.write_address(path, daemon.Address(pid, "ws://127.0.0.1:9/v1/responses", "http://127.0.0.1:9/v1/responses",
                                                  "t", daemon.build_id(), REPLAY, 0.0))
        addr, warm = await within(daemon.connect(REPLAY))
        assert not warm and addr.pid not in (dead.pid, os.getpid()) and await daemon.healthy(addr)
        assert daemon.read_address(path) == addr
        await daemon.stop_all(runtime)
    path.write_text("not json", encoding="utf-8")
    addr, _ = await within(daemon.connect(REPLAY))
    assert await daemon.healthy(addr)


async def test_another_version_is_stopped_and_replaced(runtime):
    old, _ = await within(daemon.connect(REPLAY))
    path = daemon.address_path(runtime, daemon.key_of(REPLAY))
    old.version = "0.0.1+0123456789"  # as if steer was upgraded while it ran
    daemon.write_address(path, old)
    new, warm = await within(daemon.connect(REPLAY))
    assert not warm and new.pid != old.pid and new.version == daemon.build_id()
    assert not daemon.pid_alive(old.pid) and engines_in(runtime) == [new.pid]


async def test_other_flags_get_an_engine_of_their_own(runtime):
    a, _ = await within(daemon.connect(REPLAY))
    b, _ = await within(daemon.connect([*REPLAY[:-1], "500"]))
    assert a.pid != b.pid and sorted(engines_in(runtime)) == sorted([a.pid, b.pid])


async def test_an_idle_engine_exits_and_a_connected_one_stays(runtime):
    addr, _ = await within(daemon.connect(REPLAY, idle_s=0.3))
    client = ResponsesClient(addr.url, api_key=addr.token)
    await client.connect()
    await asyncio.sleep(1.5)  # five idle limits with a connection open
    assert daemon.pid_alive(addr.pid)
    await client.close()

    async def gone():
        while daemon.pid_alive(addr.pid) or daemon.address_path(runtime, daemon.key_of(REPLAY)).exists():
            await asyncio.sleep(0.05)
    await within(gone(), 30)


async def test_serve_status_and_stop(runtime):
    code, out, _ = await steer("serve", "--status")
    assert code == 1 and "no shared engine running" in out
    addr, _ = await within(daemon.connect(REPLAY))
    code, out, _ = await steer("serve", "--status")
    assert code == 0 and f"running: pid {addr.pid}" in out and __version__ in out and addr.token not in out
    code, out, _ = await steer("serve", "--stop")
    assert code == 0 and f"pid {addr.pid}" in out
    assert not daemon.pid_alive(addr.pid) and not list(runtime.glob("engine-*.json"))


async def test_a_start_failure_is_a_clear_error_and_leaves_nothing(runtime, tmp_path):
    with pytest.raises(daemon.DaemonError, match="cannot read replay file"):
        await within(daemon.connect(["--engine", "replay", "--replay", str(tmp_path / "missing.txt")]))
    assert engines_in(runtime) == [] and not list(runtime.glob("engine-*.json"))


# ------------------------------------------------------------------ the engine killed mid-answer


async def _kill_mid_answer(runtime: Path, procs: list) -> int:
    """Wait until every command is generating, then SIGKILL the engine; its pid."""
    async def generating(proc):
        while b"generating" not in (await proc.stderr.readline()):
            pass
    await within(asyncio.gather(*(generating(p) for p in procs)), 120)
    # Most likely mid-answer by now (a few deltas in); a kill before the first delta is retried
    # too, by the client sending the request again, and passes the same checks.
    await asyncio.sleep(1.0)
    (path,) = runtime.glob("engine-*.json")
    pid = daemon.read_address(path).pid
    os.kill(pid, signal.SIGKILL)
    return pid


async def test_killing_the_engine_mid_answer_retries_every_client_on_a_new_engine(runtime, replay_config, tmp_path):
    replay_config(rate=4)  # about ten seconds an answer: the kill lands in the middle
    paths = calc_copies(tmp_path, 3)
    procs = [await asyncio.create_subprocess_exec(
        *STEER, "edit", str(p), "-m", "handle an empty list in mean", "--backend", "replay", "--json",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=dict(os.environ, NO_COLOR="1"))
        for p in paths]
    killed = await _kill_mid_answer(runtime, procs)
    assert all(p.read_text(encoding="utf-8") == CALC for p in paths)  # nothing half-written
    for proc, path in zip(procs, paths):
        out, err = await within(proc.communicate(), 120)
        result = json.loads(out)
        assert proc.returncode == 0 and result["applied"] is True, err
        err = err.decode()
        assert f"the shared steer engine (pid {killed}) stopped" in err
        assert "asking again on a new engine" in err or "sending the request again" in err, err
        assert path.read_text(encoding="utf-8") == FIXED
    (new,) = engines_in(runtime)
    assert new != killed


async def test_a_client_whose_engine_died_connects_to_a_new_one(runtime, tmp_path):
    # The app's path: one client for the whole session, its engine killed between requests.
    spec = resolve_backend(Settings(backend="replay", extra={"backends": {"replay": {"file": str(DATA / "fix_mean.txt")}}}))
    client = await within(open_backend(spec))
    try:
        first = client.gateway.addr.pid
        assert await within((await client.create(input="x")).collect())
        os.kill(first, signal.SIGKILL)
        await within(client.gateway.death(10))
        text = await within((await client.create(input="y")).collect())
        assert text == (DATA / "fix_mean.txt").read_text() and client.gateway.addr.pid != first
    finally:
        await client.close()
    assert daemon.pid_alive(client.gateway.addr.pid)  # closing a client leaves the shared engine running


async def test_a_stream_cut_by_the_engine_dying_says_so_and_the_next_request_gets_a_new_engine(runtime):
    spec = resolve_backend(Settings(backend="replay", extra={"backends": {"replay": {
        "file": str(DATA / "fix_mean.txt"), "rate": 20}}}))
    client = await within(open_backend(spec))
    try:
        first = client.gateway.addr.pid
        stream = await client.create(input="x")
        async for event in stream:
            if isinstance(event, TextDelta):
                os.kill(first, signal.SIGKILL)
                break
        final = await within(stream.wait())
        assert isinstance(final, Disconnected) and f"the shared steer engine (pid {first}) stopped" in final.message
        again = await client.create(input="x")
        assert await within(again.collect()) == (DATA / "fix_mean.txt").read_text()
        assert client.gateway.addr.pid != first and engines_in(runtime) == [client.gateway.addr.pid]
    finally:
        await client.close()


async def test_an_engine_that_refuses_every_attempt_is_replaced_even_if_its_pid_looks_alive(runtime):
    """The engine died, but its pid now names a live process (here: this one, as when the number is
    reused): the attempts are refused, and the next request still gets a new engine."""
    import dataclasses

    spec = resolve_backend(Settings(backend="replay", extra={"backends": {"replay": {
        "file": str(DATA / "fix_mean.txt")}}}))
    client = await within(open_backend(spec))
    try:
        client.reconnect_attempts, client.backoff = 2, 0.05
        first = client.gateway.addr.pid
        done = await client.create(input="x")
        await within(done.collect())  # nothing in flight when it dies: no resend revives it first
        os.kill(first, signal.SIGKILL)
        assert await within(client.gateway.death(timeout=10)) is not None
        client.gateway.addr = dataclasses.replace(client.gateway.addr, pid=os.getpid())
        assert client.gateway.running
        again = await client.create(input="x")
        assert await within(again.collect()) == (DATA / "fix_mean.txt").read_text()
        assert client.gateway.addr.pid not in (first, os.getpid()) and engines_in(runtime) == [client.gateway.addr.pid]
    finally:
        await client.close()


async def test_ask_uses_the_shared_engine_and_no_daemon_a_private_one(runtime, replay_config, tmp_path):
    (path,) = calc_copies(tmp_path, 1)
    answer = (DATA / "fix_mean.txt").read_text(encoding="utf-8")
    code, out, err = await steer("ask", str(path), "-m", "what does mean do?", "--backend", "replay")
    assert code == 0 and out.strip() == answer.strip(), err
    (engine,) = engines_in(runtime)
    code, out, err = await steer("ask", str(path), "-m", "and add?", "--backend", "replay", "--no-daemon")
    assert code == 0 and out.strip() == answer.strip(), err
    assert engines_in(runtime) == [engine] and path.read_text(encoding="utf-8") == CALC
