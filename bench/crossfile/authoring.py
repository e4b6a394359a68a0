"""What a cross-file task module writes its tasks with: one adder a language, appending to its TASKS."""

from __future__ import annotations

from typing import Callable

# A package.json that makes a JavaScript project's files ES modules (`%s`: the package's name).
ESM_PACKAGE = '{\n  "name": "%s",\n  "version": "1.0.0",\n  "type": "module",\n  "private": true\n}\n'


def collector(tasks: list[dict], *langs: str) -> tuple[Callable[..., None], ...]:
    """One adder for each of `langs` (default: Python, JavaScript), in order: each appends a task
    of its language to `tasks`, given the task's fields."""

    def adder(lang: str) -> Callable[..., None]:
        def add(**fields) -> None:
            fields.setdefault("lang", lang)
            tasks.append(fields)

        return add

    return tuple(adder(lang) for lang in (langs or ("python", "javascript")))
