"""The README: its set-up commands are the ones CI runs, the pins they use exist, and it stays a guide."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sh_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    test_command = next(b for b in _sh_blocks(readme) if "pytest" in b)
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_both_set_up_commands_make_a_venv_first():
    blocks = [b for b in _sh_blocks((ROOT / "README.md").read_text()) if "pip install" in b]
    assert len(blocks) >= 2
    for block in blocks[:2]:
        assert block.startswith("python3 -m venv .venv && . .venv/bin/activate && ")


def test_every_pin_is_exact_and_covers_the_rendering_stack():
    pins = {}
    for line in (ROOT / "constraints-test.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version, f"not an exact pin: {line!r}"
            pins[name.lower().replace("_", "-")] = version
    for name in ("textual", "rich", "pygments", "pytest", "pytest-textual-snapshot", "syrupy", "hypothesis"):
        assert name in pins, f"{name} is not pinned"
    # steer itself comes from the clone (pip install -e), never from a pin.
    assert "steer-tui" not in pins


def test_the_readme_is_a_guide_not_a_notebook():
    """Measurements live in docs/benchmarks.md and bench/results/, rules in docs/judging.md: the
    README stays under 350 lines and points at the results through the docs, not file by file."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 350
    assert "bench/results/" not in readme
