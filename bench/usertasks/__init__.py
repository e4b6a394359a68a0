"""App-like edit tasks (rename, a parameter, a docstring, type hints, error handling, extract a
function, one method of a class with several), each with a test, in editbench's task schema.

Written before any prompt tuning and kept out of it: they say how steer does on what people type
in the app, not on what its prompts were tuned with. Each test runs appended to the edited file
as a script (bench/editbench.py's judge), checks the change asked for and that the rest of the
file still works.
"""

from __future__ import annotations

from bench.usertasks.catalog import TASKS


def load() -> list[dict]:
    """task_id, instruction, input, test, file: the same fields as the public editbench sets."""
    return [dict(t, task_id=f"usertasks/{t['name']}") for t in TASKS]
