"""What a cross-file task module writes its tasks with: `py(...)` and `js(...)` append to its TASKS."""

from __future__ import annotations

from typing import Callable

# A package.json that makes a JavaScript project's files ES modules (`%s`: the package's name).
ESM_PACKAGE = '{\n  "name": "%s",\n  "version": "1.0.0",\n  "type": "module",\n  "private": true\n}\n'


def collector(tasks: list[dict]) -> tuple[Callable[..., None], Callable[..., None]]:
    """(py, js): each appends a task of its language to `tasks`, given the task's fields."""

    def py(**fields) -> None:
        fields.setdefault("lang", "python")
        tasks.append(fields)

    def js(**fields) -> None:
        fields.setdefault("lang", "javascript")
        tasks.append(fields)

    return py, js
