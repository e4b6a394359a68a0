"""Snapshot tests of the project (pytest-textual-snapshot): the finder over a file, with a query typed."""

from __future__ import annotations

import shutil

import pytest

from steer_tui.ui.app import make_app

from .conftest import EXAMPLE, settings, wait_until

SIZE = (100, 34)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "shop"
    for rel in ("inventory.py", "inventory_report.py", "pkg/__init__.py", "pkg/invoice.py", "pkg/money.py",
                "tests/test_inventory.py", "tests/test_invoice.py", "docs/inventory.md", "README.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n")
    shutil.copyfile(EXAMPLE, root / "inventory.py")
    (root / "build.log").write_text("left out by .gitignore\n")
    (root / ".gitignore").write_text("*.log\n")
    return root


def test_finder_with_a_query(snap_compare, project):
    app = make_app(project / "inventory.py", settings(), watch=False, mask_timings=True, connect=False)

    async def find(pilot):
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
        await wait_until(pilot, lambda: app.files.index is not None and not app.files.listing, what="the list")
        await pilot.press(*"inv", "down")
        await pilot.pause(0.05)

    assert snap_compare(app, terminal_size=SIZE, run_before=find)
