"""Small edit tasks with checks, for the edit-format eval (bench/formats.py).

Each task: a small source file, an instruction, the function the user is in (the region a
region rewrite gets), and a check that passes only if the edited file does what was asked
(and still does what it did elsewhere). Checks run the edited code: exec in a fresh namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from bench.tasks.catalog import TASKS


@dataclass(frozen=True)
class Task:
    name: str
    source: str
    instruction: str
    region: str  # name of the function (or class) the edit belongs in
    check: Callable[[dict, str], None]  # (namespace of the edited module, its text); raises if wrong


def load_tasks(only: str | None = None, limit: int | None = None) -> list[Task]:
    """Every task, or those named in `only` (comma-separated), at most `limit` of them."""
    tasks = [Task(*t) for t in TASKS]
    if only:
        wanted = set(only.split(","))
        tasks = [t for t in tasks if t.name in wanted]
    return tasks[:limit] if limit else tasks


def run_check(task: Task, new_text: str) -> tuple[bool, str]:
    ns: dict = {"__name__": f"task_{task.name}"}
    try:
        exec(compile(new_text, f"<{task.name}>", "exec"), ns)
        task.check(ns, new_text)
    except Exception as exc:  # any failure of the edited code is a failed task
        return False, f"{type(exc).__name__}: {exc}"[:200]
    return True, ""
