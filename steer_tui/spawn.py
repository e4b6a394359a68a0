"""The one way steer starts a Python child: steer's own code, whatever the working directory,
PYTHONPATH or a `sitecustomize.py` of the user's project hold."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = __package__ or "steer_tui"

# The folder that holds steer's package: site-packages when installed, the checkout when editable
# or run from source. The child finds steer there and nowhere else.
_HOME = str(Path(__file__).resolve().parents[1])

# -E: PYTHONPATH (and every other PYTHON* variable) is ignored, so a project on PYTHONPATH is not
# importable in the child; -P: neither the working directory nor the script's folder goes first on
# sys.path, so a user's app.py, steer.py or sitecustomize.py in the folder steer runs in is never
# imported. -u: unbuffered output, which PYTHONUNBUFFERED would have said and -E drops.
_FLAGS = ("-E", "-P", "-u")


def python_argv(*args: str, module: str = PACKAGE, home: str | None = None) -> list[str]:
    """The argv of `python -m MODULE ARGS` run isolated from the user's folder and environment
    (MODULE is steer's package by default, whose `__main__` is the `steer` command). `home`: the
    folder MODULE is imported from first (default: the one this steer was imported from)."""
    first = "sys.path.insert(0, h)" if home else "sys.path.insert(0, h) if h not in sys.path else None"
    boot = (f"import sys; h = {home or _HOME!r}; {first}; "
            f"import runpy; runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return [sys.executable, *_FLAGS, "-c", boot, *args]


def python_code_argv(code: str) -> list[str]:
    """The argv of `python -c CODE` with the same isolation (CODE imports what it needs itself)."""
    return [sys.executable, *_FLAGS, "-c", code]
