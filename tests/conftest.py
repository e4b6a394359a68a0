"""Shared pytest fixtures: isolated config/cache dirs so tests never touch the user's."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("steer-home")
    monkeypatch.setenv("STEER_CONFIG_DIR", str(base / "config"))
    # The model cache is shared on purpose: assembling 1.1 GB per test would be wasteful.
    if "STEER_CACHE_DIR" not in os.environ:
        monkeypatch.setenv("STEER_CACHE_DIR", str(base / "cache"))
    for key in ("OPENAI_API_KEY", "XAI_API_KEY", "CEREBRAS_API_KEY", "GROQ_API_KEY", "STEER_BACKEND", "STEER_MODEL"):
        monkeypatch.delenv(key, raising=False)
