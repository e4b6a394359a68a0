"""One real model for the whole tests/local session (loading it is the expensive part)."""

from __future__ import annotations

import asyncio

import pytest

from steer_tui.server import model_store
from tests.local_model import missing_reason


@pytest.fixture(scope="session")
def real_model_path():
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    return model_store.ensure_model(progress=True)


@pytest.fixture(scope="session")
def engine(real_model_path):
    from steer_tui.server.engines.local import LocalEngine

    eng = LocalEngine(n_ctx=8192, progress=True)
    eng.load()  # blocking, outside any event loop: the fixture outlives each test's loop
    yield eng
    asyncio.run(eng.close())
