"""The code's shape stays where the structure work left it, as scripts/structure_probe.py measures it:
no import cycle among steer's modules (imports inside functions and under TYPE_CHECKING count), no
function over 80 lines, no class over 450 lines among the four that grow or over 650 elsewhere."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("structure_probe", ROOT / "scripts" / "structure_probe.py")
structure_probe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(structure_probe)


def test_no_import_cycle_among_steer_modules():
    assert structure_probe.probe(ROOT / "steer_tui")["cycles"] == []


def test_the_cycle_finder_finds_a_cycle():
    assert structure_probe.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_function_over_80_lines_and_no_class_over_its_limit():
    got = structure_probe.probe(ROOT / "steer_tui")
    assert got["functions"] == []
    assert got["classes"] == []
