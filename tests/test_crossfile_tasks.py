"""bench/crossfile: every hidden test fails on the project as given and passes on the reference
solution; the split is the seeded one; the bench's project and other-file checks see what changed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from bench.crossfile import _authored, load, run_test, split
from bench.editbench import make_project, other_writes

TASKS = load("tune") + load("heldout")
HAS_NODE = shutil.which("node") is not None


def test_ids_are_unique_the_splits_are_disjoint_and_half_the_tasks_are_javascript():
    ids = [t["id"] for t in TASKS]
    assert len(ids) == len(set(ids)) >= 32
    assert sum(t["lang"] == "python" for t in TASKS) == sum(t["lang"] == "javascript" for t in TASKS)
    assert {t["id"] for t in load("tune")}.isdisjoint(t["id"] for t in load("heldout"))


def test_the_stored_splits_are_the_seeded_split_of_the_authored_tasks():
    again = split(_authored())
    assert again["tune"] == load("tune")
    assert again["heldout"] == load("heldout")


@pytest.mark.parametrize("task", TASKS, ids=[t["id"] for t in TASKS])
def test_the_test_fails_unedited_and_passes_on_the_solution(task):
    if task["lang"] == "javascript" and not HAS_NODE:
        pytest.skip("node is not installed")
    assert task["target"] in task["files"] and 2 <= len(task["files"]) <= 4
    passed, why = run_test(task, task["files"])
    assert not passed and why
    passed, why = run_test(task, dict(task["files"], **{task["target"]: task["solution"]}))
    assert passed, why


def test_the_project_is_a_clean_git_repository_and_other_writes_are_seen(tmp_path):
    task = TASKS[0]
    make_project(task["files"], tmp_path)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    assert other_writes(task["files"], task["target"], tmp_path) == []
    (tmp_path / task["target"]).write_text("edited\n", encoding="utf-8")
    (tmp_path / ".aider.chat.history.md").write_text("chat\n", encoding="utf-8")
    assert other_writes(task["files"], task["target"], tmp_path) == []
    other = next(p for p in sorted(task["files"]) if p != task["target"])
    (tmp_path / other).write_text("overwritten\n", encoding="utf-8")
    (tmp_path / "extra.txt").write_text("new\n", encoding="utf-8")
    assert other_writes(task["files"], task["target"], tmp_path) == ["extra.txt (new)", other]
    (tmp_path / other).unlink()
    assert other_writes(task["files"], task["target"], tmp_path) == ["extra.txt (new)", f"{other} (gone)"]
