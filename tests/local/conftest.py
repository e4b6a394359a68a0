"""One real model for the whole tests/local session (loading it is the expensive part)."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from app.server import model_store


def _skip_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'steer-tui[local]')"
    try:
        model_store.find_parts()
    except model_store.ModelStoreError as exc:
        return f"the embedded model wheels are not installed: {exc}"
    return None


@pytest.fixture(scope="session")
def real_model_path():
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    return model_store.ensure_model(progress=True)


@pytest.fixture(scope="session")
def engine(real_model_path):
    from app.server.engines.local import LocalEngine

    eng = LocalEngine(n_ctx=8192, progress=True)
    eng.load()  # blocking, outside any event loop: the fixture outlives each test's loop
    yield eng
    asyncio.run(eng.close())
