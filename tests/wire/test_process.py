"""`steer serve` as a real child process: readiness, start-up failures, a crash mid-stream, restart."""

from __future__ import annotations

import sys

import pytest

from steer_tui.transport.events import Created, Disconnected, Notice, TextDelta
from steer_tui.transport.launcher import GatewayProcess, GatewayStartError
from tests.wire.conftest import TEXT, events_of, within
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in


@pytest.fixture
def replay_file(tmp_path):
    path = tmp_path / "answer.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


async def test_launcher_reports_the_bound_port(replay_file, client_factory):
    gw = await within(GatewayProcess.start(["--engine", "replay", "--replay", str(replay_file), "--rate", "max"]))
    try:
        assert gw.port > 0 and gw.url == f"ws://127.0.0.1:{gw.port}/v1/responses"
        assert "replay" in gw.banner and "not a model" in gw.banner
        client = await client_factory(gw.url)
        assert await within((await client.create(input="x")).collect()) == TEXT
    finally:
        await gw.stop()
    assert not gw.running


async def test_startup_failure_is_a_clear_error(tmp_path):
    with pytest.raises(GatewayStartError, match="cannot read replay file"):
        await within(GatewayProcess.start(["--engine", "replay", "--replay", str(tmp_path / "missing.txt")]))
    with pytest.raises(GatewayStartError, match=r"needs --upstream URL \(or STEER_UPSTREAM_URL\) and --model"):
        await within(GatewayProcess.start(["--engine", "upstream"]))


async def test_missing_local_model_is_a_clear_error(tmp_path):
    with pytest.raises(GatewayStartError) as info:
        await within(GatewayProcess.start(["--engine", "local", "--model", str(tmp_path / "nope.gguf")]), 120)
    message = str(info.value)
    assert "exited with status 2" in message and "error" in message.lower()


async def test_non_loopback_bind_without_token_refused_by_serve(replay_file):
    import asyncio

    proc = await asyncio.create_subprocess_exec(
        *STEER, "serve", "--engine", "replay", "--replay", str(replay_file),
        "--host", "0.0.0.0", "--port", "0", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await within(proc.communicate())
    assert proc.returncode == 2
    assert b"--token" in err and b"ready" not in out


async def test_server_killed_mid_stream_then_restarted(replay_file, client_factory):
    gw = await within(GatewayProcess.start(["--engine", "replay", "--replay", str(replay_file), "--rate", "30"]))
    try:
        client = await client_factory(gw.url)
        first = await client.create(input="q1", instructions="sys")
        await within(first.collect())
        stream = await client.create(input="q2", previous_response_id=first.response_id)
        events = []

        async def consume():
            async for event in stream:
                events.append(event)
                if isinstance(event, TextDelta) and stream.stats.deltas == 4:
                    gw.kill()  # a crash, not a clean shutdown
        await within(consume())
        final = events[-1]
        assert isinstance(final, Disconnected)
        assert "partial text is kept" in final.message and "4 deltas" in final.message
        assert final.text == stream.text and TEXT.startswith(stream.text) and len(stream.text) > 0
        assert stream.status == "disconnected"

        await within(gw.restart())  # same port, fresh process: it knows none of the old responses
        nxt = await client.create(input="q3", previous_response_id=stream.response_id)
        events = await events_of(nxt)
        assert nxt.status == "completed" and nxt.text == TEXT
        notices = [e.code for e in events if isinstance(e, Notice)]
        assert "replayed" in notices  # the new server never saw this chain: the client replayed it
        assert client.reconnects == 1
        transcript = client.transcript(nxt.response_id)
        assert [m["content"] for m in transcript] == ["sys", "q1", TEXT, "q2", stream.text, "q3", TEXT]
    finally:
        await gw.stop()


async def test_request_sent_while_server_is_down_waits_for_it(replay_file, client_factory):
    gw = await within(GatewayProcess.start(["--engine", "replay", "--replay", str(replay_file), "--rate", "max"]))
    try:
        client = await client_factory(gw.url, reconnect_attempts=2, backoff=0.05)
        await client.connect()
        gw.kill()
        await gw.proc.wait()
        from steer_tui.transport.client import ConnectError

        # The server stays down: after the retries the caller gets a clear error.
        async def turn():
            stream = await client.create(input="x")
            return await events_of(stream)
        with pytest.raises(ConnectError, match="cannot connect"):
            result = await within(turn())
            # The request may have gone out on the dying connection and ended as Disconnected.
            if isinstance(result[-1], Disconnected):
                raise ConnectError("cannot connect (reported as Disconnected)")
        await within(gw.restart())
        stream = await client.create(input="x")
        assert [type(e) for e in await events_of(stream)][0] in (Created, Notice)
        assert stream.text == TEXT
    finally:
        await gw.stop()


async def test_cancelled_start_leaves_no_child(tmp_path, monkeypatch):
    import asyncio
    import os

    import steer_tui.transport.launcher as launcher

    started = []
    real_spawn = launcher.GatewayProcess.spawn

    async def spawn(self):
        started.append(self)
        await real_spawn(self)
    monkeypatch.setattr(launcher.GatewayProcess, "spawn", spawn)
    slow = tmp_path / "a.txt"
    slow.write_text("x", encoding="utf-8")
    # Cancel as soon as the child exists: long before it can import and print its ready line.
    task = asyncio.create_task(GatewayProcess.start(["--engine", "replay", "--replay", str(slow)]))
    while not started or started[0].proc is None:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    proc = started[0].proc
    await within(proc.wait())
    assert proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)


async def test_gateway_does_not_outlive_a_killed_parent(replay_file, tmp_path):
    """The app that launched the gateway dies without cleaning up (SIGKILL, a closed terminal):
    the gateway sees its stdin lifeline close and exits instead of holding a model in memory."""
    import asyncio
    import os
    import signal

    script = (
        "import asyncio, sys\n"
        "from steer_tui.transport.launcher import GatewayProcess\n"
        "async def main():\n"
        f"    gw = await GatewayProcess.start(['--engine', 'replay', '--replay', {str(replay_file)!r}])\n"
        "    print(gw.proc.pid, flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    parent = await asyncio.create_subprocess_exec(sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE)
    child = int(await within(parent.stdout.readline(), 60))

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # A zombie (exited, not yet reaped by init) counts as gone.
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    assert alive(child)
    parent.send_signal(signal.SIGKILL)
    await parent.wait()
    for _ in range(300):
        if not alive(child):
            break
        await asyncio.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the gateway kept running after its parent was killed")


async def test_a_child_killed_by_a_signal_is_named_in_the_stream_and_the_next_request(replay_file, client_factory):
    """A model runtime built for other CPU instructions dies of SIGILL: the user reads that, and
    how to fix it, where a dropped connection alone would look like a network fault."""
    import os
    import signal

    from steer_tui.transport.client import ConnectError

    gw = await within(GatewayProcess.start(["--engine", "replay", "--replay", str(replay_file), "--rate", "30"]))
    client = await client_factory(gw.url)
    client.gateway = gw  # owned, as open_backend's client owns its child
    stream = await client.create(input="q")
    events = []
    async for event in stream:
        events.append(event)
        if isinstance(event, TextDelta) and stream.stats.deltas == 2:
            os.kill(gw.pid, signal.SIGILL)
    final = events[-1]
    assert isinstance(final, Disconnected) and "partial text is kept" in final.message
    assert "killed by SIGILL (Illegal instruction)" in final.message and "rebuild" in final.message
    with pytest.raises(ConnectError, match="killed by SIGILL") as info:
        await within(client.create(input="again"), 5)  # at once: no retries against a dead child
    assert "cannot connect to" in str(info.value)


async def test_a_child_stopped_on_purpose_adds_nothing(replay_file, client_factory):
    gw = await within(GatewayProcess.start(["--engine", "replay", "--replay", str(replay_file), "--rate", "max"]))
    try:
        assert await within(gw.death(timeout=0.2)) is None  # still running
    finally:
        await gw.stop()
    assert not gw.running


def test_exit_descriptions():
    from steer_tui.transport.launcher import exit_description

    assert exit_description(2) == "steer serve exited with status 2"
    assert exit_description(-9).startswith("steer serve was killed by SIGKILL (Killed): ")
    assert "memory" in exit_description(-9)
    assert exit_description(-15) == "steer serve was killed by SIGTERM (Terminated)"
    assert exit_description(-200) == "steer serve was killed by signal 200"
