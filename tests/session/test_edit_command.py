"""`steer edit` end to end: a real subprocess, the real gateway, recorded answers."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import signal
import sys
from pathlib import Path

import pytest

from .conftest import DATA
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

ROOT = Path(__file__).resolve().parents[2]


async def steer_edit(*args, stdin: bytes | None = None, tty: bool = False, env=None):
    """Run `python -m steer_tui edit ARGS`; returns (exit code, stdout, stderr)."""
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    if tty:
        master, slave = pty.openpty()
        proc = await asyncio.create_subprocess_exec(
            *STEER, "edit", *args, stdin=asyncio.subprocess.DEVNULL, stdout=slave,
            stderr=asyncio.subprocess.PIPE, env=full_env, cwd=ROOT)
        os.close(slave)
        chunks = []
        loop = asyncio.get_running_loop()

        def read_all():
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    return
                if not data:
                    return
                chunks.append(data)

        reader = loop.run_in_executor(None, read_all)
        err = await proc.stderr.read()
        code = await proc.wait()
        await reader
        os.close(master)
        return code, b"".join(chunks).decode().replace("\r\n", "\n"), err.decode()
    proc = await asyncio.create_subprocess_exec(
        *STEER, "edit", *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=full_env, cwd=ROOT)
    out, err = await proc.communicate(stdin)
    return proc.returncode, out.decode(), err.decode()


def fixed_mean_text():
    text = (DATA / "calc.py").read_text()
    return text.replace("def mean(values):\n", "def mean(values):\n    if not values:\n        return 0.0\n")


async def test_applied_piped_prints_only_the_diff(replay, calc):
    url, _ = await replay(["fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "handle an empty list in mean", "--backend", url)
    assert code == 0, err
    assert calc.read_text() == fixed_mean_text()
    assert out.startswith("--- a/") and "+    if not values:" in out
    assert all(line[:1] in "-+@ \\" for line in out.splitlines())  # nothing but the unified diff
    assert "applied 1 hunk" in err


async def test_terminal_shows_the_live_diff_then_the_final_diff(replay, calc):
    url, _ = await replay(["fix_mean.txt"], rate=300)
    code, out, err = await steer_edit(str(calc), "-m", "handle an empty list in mean", "--backend", url, tty=True)
    assert code == 0, err
    live, final = out.split("--- final diff ---", 1)
    assert "+    if not values:" in live  # streamed while the answer came in
    assert "+    if not values:" in final and "--- a/" in final
    assert "applied 1 hunk" in out  # progress shares the terminal
    assert calc.read_text() == fixed_mean_text()


async def test_instruction_on_stdin_and_json_shape(replay, calc):
    url, _ = await replay(["fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "--backend", url, "--json", stdin=b"handle an empty list\n")
    assert code == 0, err
    result = json.loads(out)
    assert result["applied"] is True and result["status"] == "applied" and result["exit_code"] == 0
    assert "+    if not values:" in result["diff"]
    assert result["attempts"] == 1 and result["tokens"] > 0 and result["reason"] == ""
    assert isinstance(result["ttft_s"], float) and result["ttft_s"] >= 0
    assert result["tokens_per_s"] is None or result["tokens_per_s"] > 0
    assert set(result) >= {"applied", "diff", "tokens", "ttft_s", "tokens_per_s", "attempts", "reason"}


async def test_dry_run_leaves_the_file(replay, calc):
    url, _ = await replay(["fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", url, "--dry-run", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["applied"] is False and result["dry_run"] and "+    if not values:" in result["diff"]
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_refused_then_fixed_on_retry(replay, calc):
    url, engine = await replay(["bad_mean.txt", "fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "handle an empty list in mean", "--backend", url, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["applied"] and result["attempts"] == 2
    assert "closest lines" in engine.requests[1].messages[-1]["content"].lower()
    assert calc.read_text() == fixed_mean_text()


async def test_refused_twice_exits_1_and_leaves_the_file(replay, calc):
    url, engine = await replay(["bad_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", url, "--json")
    assert code == 1
    result = json.loads(out)
    assert result["applied"] is False and result["status"] == "refused" and result["attempts"] == 3
    assert result["reason"] and len(engine.requests) == 3
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_an_answer_that_changes_nothing_is_retried_then_exits_1(replay, calc):
    url, engine = await replay(["rewrite_same.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "make `mean` safe for an empty list", "--backend", url,
                                      "--format", "rewrite", "--json")
    assert code == 1, err
    result = json.loads(out)
    assert result["status"] == "no_change" and result["attempts"] == 2 and not result["applied"]
    assert "the model made no change" in result["reason"] and "nothing to change" not in err
    assert "changes nothing" in engine.requests[1].messages[-1]["content"]
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_already_applied_exits_0_and_says_so(replay, calc):
    calc.write_text(fixed_mean_text())
    url, _ = await replay(["fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", url)
    assert code == 0
    assert out == ""
    assert "nothing to change" in err and "already applied" in err
    assert calc.read_text() == fixed_mean_text()


async def test_region_scopes_the_prompt(replay, calc):
    url, engine = await replay(["fix_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", url, "--region", "12:16")
    assert code == 0, err
    assert "Region (lines 12-16)" in engine.requests[0].messages[-1]["content"]


@pytest.mark.parametrize("args, why", [
    (["no_such_folder/missing.py", "-m", "x"], "does not exist"),
    (["{calc}", "-m", "x", "--region", "30:2"], "--region"),
    (["{calc}", "-m", "x", "--region", "1:999"], "--region"),
    (["{calc}"], "instruction"),
    (["{calc}", "-m", "x", "--format", "bogus"], "invalid choice"),
])
async def test_usage_and_file_errors_exit_2(calc, args, why):
    args = [a.replace("{calc}", str(calc)) for a in args]
    code, out, err = await steer_edit(*args, "--backend", "ws://127.0.0.1:9/v1/responses")
    assert code == 2
    assert why in err


async def test_binary_file_exits_2(tmp_path):
    target = tmp_path / "blob.bin"
    target.write_bytes(b"\x00\x01\x02\xff" * 10)
    code, out, err = await steer_edit(str(target), "-m", "x", "--backend", "ws://127.0.0.1:9/v1/responses")
    assert code == 2 and "cannot edit" in err


async def test_unreachable_backend_exits_3(calc):
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", "ws://127.0.0.1:9/v1/responses", "--json")
    assert code == 3
    assert json.loads(out)["status"] == "backend_error"
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_unknown_backend_exits_3(calc):
    code, out, err = await steer_edit(str(calc), "-m", "x", "--backend", "nosuchbackend")
    assert code == 3 and "unknown backend" in err


async def test_ctrl_c_mid_stream_cancels_and_leaves_the_file(replay, calc):
    url, engine = await replay(["long_answer.txt"], rate=100)
    env = dict(os.environ, NO_COLOR="1")
    proc = await asyncio.create_subprocess_exec(
        *STEER, "edit", str(calc), "-m", "x", "--backend", url,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=env, cwd=ROOT)
    # wait until the answer is streaming (the engine is producing deltas for it)
    for _ in range(2000):
        if engine.players[0].produced > 20:
            break
        await asyncio.sleep(0.01)
    assert engine.players[0].produced > 20 and proc.returncode is None
    proc.send_signal(signal.SIGINT)
    out, err = await proc.communicate()
    assert proc.returncode == 130, err.decode()
    assert "interrupted" in err.decode()
    assert out == b""
    assert calc.read_text() == (DATA / "calc.py").read_text()
    # the request was cancelled: the engine stopped long before the end of the answer
    for _ in range(500):
        if engine.players[0].active == 0:
            break
        await asyncio.sleep(0.01)
    assert engine.players[0].active == 0
    assert engine.players[0].produced < len(engine.players[0].tokens)


async def test_rewrite_without_region_rewrites_the_named_function(replay, calc):
    url, engine = await replay(["rewrite_mean.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "make `mean` work with floats", "--backend", url,
                                      "--format", "rewrite", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["status"] == "applied" and report["hunks"] == 2
    want = (DATA / "calc.py").read_text().replace("    total = 0\n", "    total = 0.0\n").replace(
        "return total / len(values)", "return total / max(len(values), 1)")
    assert calc.read_text() == want
    last = engine.requests[0].messages[-1]["content"]
    assert "def mean(values):" in last and "def clamp" not in last  # only mean's lines were sent to rewrite


async def test_prose_with_no_code_block_is_refused_and_never_written(replay, calc):
    url, engine = await replay(["prose_only.txt"])
    code, out, err = await steer_edit(str(calc), "-m", "make `mean` safe for an empty list", "--backend", url,
                                      "--format", "rewrite", "--json")
    assert code == 1, err
    report = json.loads(out)
    assert report["status"] == "refused" and "no code block" in report["reason"]
    retry = engine.requests[1].messages
    assert "no code block" in retry[-1]["content"] and "with the change you described made" in retry[-1]["content"]
    assert retry[-2] == {"role": "assistant", "content": (DATA / "prose_only.txt").read_text()}  # its own sentence
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_a_named_constant_is_rewritten_alone(replay, tmp_path):
    """"set MAX_RETRIES to 5" on a module of functions: only the constant's statement (and its comment)
    is sent to rewrite and only its line changes (prompts.rewrite_region, steer_tui/named_constants.py)."""
    module = tmp_path / "fetching.py"
    body = "".join(f"def fetch_{i}(url):\n    return [url] * {i}\n\n\n" for i in range(20))
    text = f"import os\n\n# how often fetch tries before it gives up\nMAX_RETRIES = 3\nPAGE_SIZE = 50\n\n\n{body}"
    module.write_text(text, encoding="utf-8")
    url, engine = await replay(["set_max_retries.txt"])
    code, out, err = await steer_edit(str(module), "-m", "set MAX_RETRIES to 5", "--backend", url,
                                      "--format", "rewrite", "--json")
    assert code == 0, err
    assert module.read_text(encoding="utf-8") == text.replace("MAX_RETRIES = 3", "MAX_RETRIES = 5")
    last = engine.requests[0].messages[-1]["content"]
    assert "MAX_RETRIES = 3" in last and "PAGE_SIZE" not in last and "def fetch_" not in last


async def test_a_standard_library_module_the_rewrite_uses_is_imported(replay, tmp_path):
    """A rewrite of one function cannot reach the file's imports: the answer's `time.sleep` brings
    `import time` after them, and no other line changes (steer_tui/edits/stdlib_imports.py)."""
    module = tmp_path / "client.py"
    text = ('"""A client."""\n\nfrom http_get import get\n\n\n'
            "def fetch(url, tries=3):\n    for attempt in range(tries):\n        reply = get(url)\n"
            "        if reply.ok:\n            return reply\n    return None\n")
    module.write_text(text, encoding="utf-8")
    url, _ = await replay(["retry_sleep.txt"])
    code, out, err = await steer_edit(str(module), "-m", "wait a second between tries", "--backend", url,
                                      "--format", "rewrite", "--json")
    assert code == 0, err
    assert module.read_text(encoding="utf-8") == text.replace(
        "from http_get import get\n", "from http_get import get\nimport time\n").replace(
        "            return reply\n", "            return reply\n        time.sleep(1)\n")


async def test_a_node_built_in_the_rewrite_uses_is_required(replay, tmp_path):
    """The same for Node: `fs.writeFileSync` and `path.join` bring their requires after the file's
    own, in its CommonJS style (steer_tui/edits/node_imports.py)."""
    module = tmp_path / "report.js"
    text = ("'use strict';\n\nconst { total } = require('./money');\n\n"
            "function save(report, dir) {\n  return total(report);\n}\n\nmodule.exports = { save };\n")
    module.write_text(text, encoding="utf-8")
    url, _ = await replay(["save_report_fs.txt"])
    code, out, err = await steer_edit(str(module), "-m", "write the total to report.txt in dir and return its path",
                                      "--backend", url, "--format", "rewrite", "--json")
    assert code == 0, err
    assert module.read_text(encoding="utf-8") == text.replace(
        "require('./money');\n", "require('./money');\nconst fs = require('fs');\nconst path = require('path');\n"
    ).replace("  return total(report);\n", "  const file = path.join(dir, 'report.txt');\n"
              "  fs.writeFileSync(file, String(total(report)));\n  return file;\n")


BELOW_ZERO = ("from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n"
              '    """True where the balance falls below zero.\n    >>> below_zero([1, 2, -4, 5])\n    True\n    """\n'
              "    balance = 0\n    for op in operations:\n"
              "        balance += op\n        if balance == 0:\n            return True\n    return False\n")


async def test_a_region_that_is_nearly_the_whole_file_is_sent_once(replay, tmp_path):
    """Nothing reads the file ahead of a one-shot command's request, so a region that is all but a
    few lines of the file goes in its block alone, not after the same lines in a file message
    (prompts.build_input `once`); the edit is made as ever."""
    target = tmp_path / "below_zero.py"
    target.write_text(BELOW_ZERO, encoding="utf-8")
    url, engine = await replay(["rewrite_below_zero.txt"])
    code, out, err = await steer_edit(str(target), "-m", "fix bugs in below_zero", "--backend", url,
                                      "--format", "rewrite", "--json", "--no-context")
    assert code == 0, err
    assert target.read_text(encoding="utf-8") == BELOW_ZERO.replace("balance == 0", "balance < 0")
    users = [m["content"] for m in engine.requests[0].messages if m["role"] == "user"]
    assert len(users) == 1 and "Region (lines 4-14)" in users[0]
    assert users[0].count("    balance = 0\n") == 1 and "File:" not in users[0]
