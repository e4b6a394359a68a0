"""Shared pytest set-up: a fixed rendering environment, isolated config/cache dirs, and shared engines that end with the session."""

from __future__ import annotations

import os

import pytest

# Textual and Rich read these once, when they are imported, so they are cleared here, before
# any test module imports them: a snapshot must change only when steer's own output does, not
# with the terminal or shell the suite happens to run in.
_RENDERING_ENV = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
for _key in list(os.environ):
    if _key in _RENDERING_ENV or _key.startswith("TEXTUAL_"):
        del os.environ[_key]

# Everything steer itself reads from the environment besides the cache dir: a user's settings
# (a config file, a theme, a format, keys) must not reach a test.
_STEER_ENV = (
    "OPENAI_API_KEY", "XAI_API_KEY", "CEREBRAS_API_KEY", "GROQ_API_KEY", "STEER_BACKEND", "STEER_MODEL",
    "STEER_FORMAT", "STEER_THEME", "STEER_TEST_COMMAND", "STEER_CONFIG", "STEER_GATEWAY_TOKEN", "STEER_NO_DAEMON",
)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("steer-home")
    monkeypatch.setenv("STEER_CONFIG_DIR", str(base / "config"))
    # STEER_CACHE_DIR is left alone on purpose: the assembled 1.1 GB model lives there and
    # re-assembling it per test would be wasteful. Nothing else is cached.
    monkeypatch.setenv("STEER_DATA_DIR", str(base / "data"))
    for key in _STEER_ENV:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _isolated_shared_engines(tmp_path_factory):
    """Shared engines (steer_tui/transport/daemon.py) the suite starts live in a folder of its own,
    never the user's, and none outlives the session."""
    import asyncio

    from steer_tui.transport import daemon

    folder = tmp_path_factory.mktemp("steer-run")
    before = os.environ.get(daemon.RUNTIME_ENV)
    os.environ[daemon.RUNTIME_ENV] = str(folder)
    try:
        yield folder
    finally:
        asyncio.run(daemon.stop_all(folder))
        if before is None:
            os.environ.pop(daemon.RUNTIME_ENV, None)
        else:
            os.environ[daemon.RUNTIME_ENV] = before
