"""steer_tui.check: candidates checked with a real shell command in scratch copies of the project."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time

import pytest

from steer_tui.check import Checker, ScratchProject, run_command


@pytest.fixture
def project(tmp_path):
    """A git work tree with a package, a data file, a file a build made (ignored), and the file to edit."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (root / "data.txt").write_text("data\n")
    (root / ".gitignore").write_text("pkg/_version.py\n")
    (root / "pkg" / "_version.py").write_text("__version__ = '1.0'\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def test_a_candidate_is_checked_in_a_copy_of_the_project_and_the_copy_is_removed(project):
    target = project / "pkg" / "mod.py"
    checker = Checker(target, 'test -f data.txt && test -f pkg/_version.py && cat pkg/mod.py && echo "$STEER_CHECK_FILE" '
                              '&& pwd && echo changed > pkg/mod.py')
    outcome = await checker.check("VALUE = 2\n")
    assert outcome.passed and outcome.exit_code == 0
    lines = outcome.output.splitlines()
    assert lines[0] == "VALUE = 2"
    copy = lines[2]
    assert lines[1] == os.path.join(copy, "pkg", "mod.py") and not copy.startswith(str(project))
    assert not os.path.exists(copy)  # removed after
    assert target.read_text() == "VALUE = 1\n"  # the user's tree never written


async def test_the_first_to_pass_in_order_wins_even_when_a_later_one_passes_sooner(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("0\n")
    # Candidate "slow-pass" passes after a while; "fast-pass" at once; "fail" fails at once.
    checker = Checker(target, 'case "$(cat f.txt)" in slow-pass) sleep 1; exit 0;; fast-pass) exit 0;; *) exit 1;; esac',
                      jobs=2)
    seen = []
    winner, outcomes = await checker.first_passing([(1, "fail\n"), (2, "slow-pass\n"), (3, "fast-pass\n"),
                                                    (4, "fast-pass\n")], lambda k, o: seen.append(k))
    assert winner == 2
    assert not outcomes[1].passed and outcomes[2].passed and outcomes[3].passed  # 3 ran beside 2, and passed first
    assert not outcomes[4].ran and "attempt 2 passed first" in outcomes[4].summary()
    assert seen.index(3) < seen.index(2)


async def test_none_passing_checks_every_candidate(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("x\n")
    winner, outcomes = await Checker(target, "echo nope; exit 2", jobs=3).first_passing([(1, "a\n"), (2, "b\n")])
    assert winner is None and all(o.ran and o.exit_code == 2 for o in outcomes.values())
    assert outcomes[1].summary() == "failed (exit 2): nope"


async def test_the_summary_line_has_no_terminal_colour_codes(tmp_path):
    # pytest with --color=yes in a project's addopts colours its output into the pipe too.
    target = tmp_path / "f.txt"
    target.write_text("x\n")
    command = r"printf '\033[31m\033[1m1 failed\033[0m in 0.5s\n'; exit 1"
    _, outcomes = await Checker(target, command).first_passing([(1, "a\n")])
    assert outcomes[1].summary() == "failed (exit 1): 1 failed in 0.5s"


async def test_over_its_time_limit_the_whole_process_group_is_killed(tmp_path):
    pidfile = tmp_path / "child.pid"
    t0 = time.monotonic()
    outcome = await run_command(f"sleep 30 & echo $! > {pidfile}; echo started; wait", tmp_path, 0.5)
    assert outcome.timed_out and not outcome.passed and outcome.exit_code is None
    assert time.monotonic() - t0 < 10 and "started" in outcome.output
    child = int(pidfile.read_text())
    for _ in range(200):  # reaped by whoever adopted it once killed
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        if _zombie(child):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the check's background child outlived the time limit")


async def test_a_cancelled_check_kills_its_command(tmp_path):
    pidfile = tmp_path / "pid"
    task = asyncio.ensure_future(run_command(f"echo $$ > {pidfile}; sleep 30", tmp_path, 60))
    for _ in range(500):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # our own child: reaped by run_command


def test_a_new_file_is_placed_in_its_folder_in_the_copy(project):
    scratch = ScratchProject(project / "pkg" / "new.py")
    dest = scratch.copy("NEW = 1\n")
    try:
        assert (dest / "pkg" / "new.py").read_text() == "NEW = 1\n" and (dest / "pkg" / "mod.py").exists()
    finally:
        import shutil

        shutil.rmtree(dest)


def test_the_copy_holds_the_tree_as_it_stands_with_dependencies_linked_and_caches_left_out(project):
    """What the check runs needs what a build left (an ignored `_version.py`, a binary fixture);
    installed dependencies are read where they are; caches are made again."""
    (project / ".gitignore").write_text("pkg/_version.py\nnode_modules/\n__pycache__/\nbuild/\n")
    (project / "node_modules" / "left-pad").mkdir(parents=True)
    (project / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    (project / "pkg" / "__pycache__").mkdir()
    (project / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0\1")
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("GENERATED = True\n")
    (project / "logo.png").write_bytes(b"\x89PNG\0" * 10)
    scratch = ScratchProject(project / "pkg" / "mod.py")
    dest = scratch.copy("VALUE = 2\n")
    try:
        assert (dest / "pkg" / "_version.py").read_text() == "__version__ = '1.0'\n"
        assert (dest / "build" / "gen.py").is_file() and not (dest / "build").is_symlink()
        assert (dest / "logo.png").read_bytes() == b"\x89PNG\0" * 10
        assert (dest / "node_modules").is_symlink() and (dest / "node_modules" / "left-pad" / "index.js").is_file()
        assert not (dest / "pkg" / "__pycache__").exists() and not (dest / ".git").exists()
        assert (dest / "pkg" / "mod.py").read_text() == "VALUE = 2\n"
    finally:
        import shutil

        shutil.rmtree(dest)
    assert (project / "node_modules" / "left-pad" / "index.js").is_file()  # removing the copy left the link's target


def test_outside_git_every_file_is_copied(tmp_path):
    root = tmp_path / "loose"
    (root / "lib").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    (root / ".gitignore").write_text("lib/\n")
    (root / "lib" / "gen.py").write_text("G = 1\n")
    dest = ScratchProject(root / "a.py").copy("A = 2\n")
    try:
        assert (dest / "lib" / "gen.py").read_text() == "G = 1\n" and (dest / "a.py").read_text() == "A = 2\n"
    finally:
        import shutil

        shutil.rmtree(dest)


def test_an_empty_command_or_no_time_is_refused(tmp_path):
    with pytest.raises(ValueError):
        Checker(tmp_path / "f", "  ")
    with pytest.raises(ValueError):
        Checker(tmp_path / "f", "true", timeout_s=0)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True
