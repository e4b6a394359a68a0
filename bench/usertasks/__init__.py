"""App-like edit tasks (rename, a parameter, a docstring, type hints, error handling, extract a
function, one method of a class with several), each with a test, in editbench's task schema.

Written before any prompt tuning and kept out of it: they say how steer does on what people type
in the app, not on what its prompts were tuned with. Each test runs appended to the edited file
as a script (bench/editbench.py's judge), checks the change asked for and that the rest of the
file still works.
"""

from __future__ import annotations

from bench.usertasks.batch2 import TASKS as BATCH2
from bench.usertasks.batch3 import TASKS as BATCH3
from bench.usertasks.catalog import TASKS

# The first 14 (catalog.py) were written with the benchmark; the 17 of batch2.py later, on new files,
# after every prompt change until then; the 6 deletions of batch3.py before the change they measure:
# their figures are reported apart as well.
BATCHES = {"catalog": [t["name"] for t in TASKS], "batch2": [t["name"] for t in BATCH2],
           "batch3": [t["name"] for t in BATCH3]}


def load() -> list[dict]:
    """task_id, instruction, input, test, file: the same fields as the public editbench sets."""
    return [dict(t, task_id=f"usertasks/{t['name']}") for t in [*TASKS, *BATCH2, *BATCH3]]
