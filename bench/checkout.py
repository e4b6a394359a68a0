"""The argv that starts the steer of a given checkout (this one by default), whatever its package is named."""

from __future__ import annotations

from pathlib import Path

from steer_tui.spawn import python_argv


def steer_argv(root: Path | None = None) -> list[str]:
    """`python -m <package>` of the checkout at `root`, isolated as every child is (steer_tui.spawn):
    PYTHONPATH cannot choose the checkout, `home` does. Checkouts before the rename named it `app`."""
    if root is None:
        return python_argv()
    package = "steer_tui" if (root / "steer_tui").is_dir() else "app"
    return python_argv(module=package, home=str(root))
