"""The app opened inside a project that has its own `app.py`, `app/`, `steer.py` and `sitecustomize.py`,
with PYTHONPATH=.: its embedded-model gateway starts (steer's code in the child, none of the project's)."""

from __future__ import annotations

import pytest

from tests.local_model import missing_reason
from tests.session.test_foreign_project import ran_in_children
from tests.session.test_foreign_project import project  # noqa: F401  (the fixture)
from steer_tui.config import Settings
from steer_tui.ui.app import make_app

from .conftest import wait_until


@pytest.mark.local_model
async def test_app_connects_to_the_embedded_model_in_the_project(project, monkeypatch):  # noqa: F811
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    monkeypatch.chdir(project)
    monkeypatch.setenv("PYTHONPATH", ".")
    app = make_app(project / "users.py", Settings(backend="local"), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.status.connection in ("ready", "error", "none"), timeout=600,
                         what="the embedded gateway to start")
        assert app.status.connection == "ready", app.status.detail
    assert ran_in_children(project) == []
