"""Whether the embedded model can run here: the `local` extra's llama-cpp-python and model wheels."""

from __future__ import annotations

import importlib.util


def missing_reason() -> str | None:
    """Why tests of the real model cannot run here (skip with this), or None when they can."""
    from steer_tui.server import model_store

    if importlib.util.find_spec("llama_cpp") is None:
        return "the local extra is missing: llama-cpp-python is not installed (pip install 'steer-tui[local]')"
    try:
        model_store.find_parts()
    except model_store.ModelStoreError as exc:
        return f"the local extra is missing: the embedded model wheels are not installed ({exc})"
    return None
