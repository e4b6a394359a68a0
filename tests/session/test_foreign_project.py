"""steer inside a project that has its own `app.py`, `app/`, `steer.py` and `sitecustomize.py`, also with
`PYTHONPATH=.`: every child steer starts runs steer's code, none of the project's modules."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.local_model import missing_reason
from steer_tui.spawn import python_argv
from steer_tui.transport.backends import gateway_info
from steer_tui.transport.launcher import GatewayProcess

from .conftest import DATA

# Each of the project's modules notes that it ran (its name and the command line of the process it
# ran in), then does what a web project's entry point does when it runs: exits with status 0.
MODULE = '''import sys
with open({ran!r}, "a", encoding="utf-8") as out:
    out.write({name!r} + " " + repr(sys.orig_argv) + "\\n")
{tail}'''

USERS = '''"""Users of the shop."""

USERS = {"ada": "Ada Lovelace", "alan": "Alan Turing"}


def full_name(user_id):
    return USERS.get(user_id)
'''


@pytest.fixture
def project(tmp_path):
    """A web project's folder: the four module names that shadow a Python program's own, and users.py."""
    root = tmp_path / "shop"
    (root / "app").mkdir(parents=True)
    ran = root / "ran.txt"
    for rel, tail in [("app.py", "raise SystemExit(0)"), ("app/__init__.py", "raise SystemExit(0)"),
                      ("app/__main__.py", "raise SystemExit(0)"), ("steer.py", "raise SystemExit(0)"),
                      ("sitecustomize.py", "")]:
        (root / rel).write_text(MODULE.format(ran=str(ran), name=rel, tail=tail), encoding="utf-8")
    (root / "users.py").write_text(USERS, encoding="utf-8")
    return root


def ran_in_children(project: Path) -> list[str]:
    """The project's modules that ran in a process other than the test's own (steer's children):
    the test's process imported none of them, so any line at all is a child's."""
    ran = project / "ran.txt"
    return ran.read_text(encoding="utf-8").splitlines() if ran.exists() else []


def steer_command() -> list[str]:
    """The `steer` console script of this environment, as a user runs it (not `python -m`: a
    console script's own sys.path is what PYTHONPATH=. can reach)."""
    script = Path(sys.executable).with_name("steer")
    if not script.exists():
        found = shutil.which("steer")
        assert found, "the steer console script is not installed (pip install -e .)"
        script = Path(found)
    return [str(script)]


def project_env(project: Path, pythonpath: bool) -> dict[str, str]:
    env = dict(os.environ, NO_COLOR="1")
    env.pop("STEER_BACKEND", None)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = "."
    return env


def test_the_child_argv_reads_nothing_from_the_folder_or_pythonpath(project):
    """`python_argv` itself, in the project, with PYTHONPATH=.: steer's version, nothing of the project's."""
    proc = subprocess.run(python_argv("--version"), cwd=project, env=project_env(project, True),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("steer "), proc.stdout
    assert ran_in_children(project) == []


@pytest.mark.parametrize("pythonpath", [False, True], ids=["plain", "PYTHONPATH=."])
async def test_gateway_starts_in_a_project_with_an_app_module(project, monkeypatch, pythonpath):
    """The launcher the app, `steer edit` and `steer ask` use: the real gateway comes up and answers."""
    monkeypatch.chdir(project)
    if pythonpath:
        monkeypatch.setenv("PYTHONPATH", ".")
    gateway = await GatewayProcess.start(["--engine", "replay", "--replay", str(DATA / "fix_mean.txt")], timeout=60)
    try:
        info = await gateway_info(gateway.url)
        assert info is not None and info.get("engine") == "replay", info
    finally:
        await gateway.stop()
    assert ran_in_children(project) == []


@pytest.mark.parametrize("pythonpath", [False, True], ids=["plain", "PYTHONPATH=."])
async def test_steer_edit_in_the_project_through_a_gateway(project, pythonpath, replay):
    """The `steer` command itself in the project (its own imports), editing through the real gateway."""
    url, _ = await replay(["fix_mean.txt"])
    target = project / "calc.py"
    shutil.copy(DATA / "calc.py", target)
    proc = await asyncio.create_subprocess_exec(
        *steer_command(), "edit", "calc.py", "-m", "handle an empty list in mean", "--backend", url, "--json",
        cwd=project, env=project_env(project, pythonpath), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    assert json.loads(out)["applied"] is True
    assert "if not values:" in target.read_text()
    # The console script's own process may import the project's sitecustomize.py under PYTHONPATH=.
    # (Python does that before any of steer's code runs); it must never import the project's app or steer.
    assert [line for line in ran_in_children(project) if not line.startswith("sitecustomize.py")] == []


def run_steer(project: Path, *args: str, pythonpath: bool) -> subprocess.CompletedProcess:
    return subprocess.run([*steer_command(), *args], cwd=project, env=project_env(project, pythonpath),
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)


def children_lines(project: Path) -> list[str]:
    """Lines the project's modules wrote from a process that is not the console script itself:
    a process started by steer is one whose command line is not the `steer` script's."""
    script = steer_command()[0]
    return [line for line in ran_in_children(project) if script not in line]


@pytest.mark.local_model
@pytest.mark.parametrize("pythonpath", [False, True], ids=["plain", "PYTHONPATH=."])
def test_embedded_model_edits_and_answers_in_the_project(project, pythonpath):
    """`steer edit` and `steer ask` with the embedded model (no backend named): the gateway child starts."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    edit = run_steer(project, "edit", "users.py", "--json", "-m",
                     "full_name must raise KeyError when the user does not exist", pythonpath=pythonpath)
    assert edit.returncode in (0, 1), edit.stderr[-2000:]  # 1: the model's answer was refused; it ran
    assert "did not start" not in edit.stderr and "exited with status" not in edit.stderr, edit.stderr
    result = json.loads(edit.stdout)
    assert result["backend"] == "local" and "qwen" in (result["model"] or "").lower()
    ask = run_steer(project, "ask", "users.py", "-m", "what does full_name return for an unknown id?",
                    pythonpath=pythonpath)
    assert ask.returncode == 0, ask.stderr[-2000:]
    assert ask.stdout.strip()
    assert children_lines(project) == []
