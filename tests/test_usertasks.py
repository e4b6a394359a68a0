"""bench/usertasks: every task's test fails on the file as given (the usertasks set and the named sets: constants, constants_heldout, imports_heldout, names_heldout), so a pass means the edit did it."""

from __future__ import annotations

import pytest

from bench.editbench import USER_SETS, judge, load_set
from bench.usertasks import BATCHES, load

TASKS = load()


def test_task_ids_are_unique_and_every_task_is_in_one_batch():
    names = [t["task_id"].split("/", 1)[1] for t in TASKS]
    assert len(set(names)) == len(names)
    assert sorted(names) == sorted(n for batch in BATCHES.values() for n in batch)


@pytest.mark.parametrize("task", TASKS, ids=[t["task_id"] for t in TASKS])
def test_the_test_fails_on_the_unedited_file(task):
    passed, error = judge(task["input"], task["test"])
    assert not passed and error


SET_TASKS = [t for name in USER_SETS for t in load_set(name)]


@pytest.mark.parametrize("task", SET_TASKS, ids=[t["task_id"] for t in SET_TASKS])
def test_the_test_of_a_named_set_fails_on_the_unedited_file(task):
    passed, error = judge(task["input"], task["test"])
    assert not passed and error
