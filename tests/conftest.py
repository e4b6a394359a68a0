"""Shared pytest fixtures: isolated config/cache dirs so tests never touch the user's."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("steer-home")
    monkeypatch.setenv("STEER_CONFIG_DIR", str(base / "config"))
    # STEER_CACHE_DIR is left alone on purpose: the assembled 1.1 GB model lives there and
    # re-assembling it per test would be wasteful. Nothing else is cached.
    monkeypatch.setenv("STEER_DATA_DIR", str(base / "data"))
    for key in ("OPENAI_API_KEY", "XAI_API_KEY", "CEREBRAS_API_KEY", "GROQ_API_KEY", "STEER_BACKEND", "STEER_MODEL"):
        monkeypatch.delenv(key, raising=False)
