"""`steer edit` with the embedded model (no backend configured): it really edits a small file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.local_model import missing_reason
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''"""Shapes."""


def rect_area(w, h):
    return w * h


def perimeter(w, h):
    return 2 * w + h
'''


@pytest.mark.local_model
def test_embedded_model_edits_a_small_file(tmp_path):
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    target = tmp_path / "shapes.py"
    target.write_text(SOURCE)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("STEER_BACKEND", None)
    proc = subprocess.run(
        [*STEER, "edit", str(target), "--json",
         "-m", "Fix the bug in `perimeter`: it must return 2 * (w + h)."],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["applied"] is True and result["backend"] == "local"
    assert result["format"] == "rewrite" and "qwen" in (result["model"] or "").lower()  # as the gateway reports it
    assert result["attempts"] >= 1 and result["tokens"] > 0 and "perimeter" in result["diff"]
    text = target.read_text()
    namespace: dict = {}
    exec(compile(text, str(target), "exec"), namespace)
    assert namespace["perimeter"](2, 3) == 10
    assert namespace["rect_area"](2, 3) == 6
    assert text.startswith('"""Shapes."""\n\n\ndef rect_area(w, h):\n    return w * h\n')  # the rest untouched
