"""Backends by name: resolution from settings, clear errors, and a spawned gateway end to end."""

from __future__ import annotations

import pytest

from steer_tui.config import Settings
from steer_tui.transport.backends import BackendError, open_backend, resolve_backend
from tests.wire.conftest import within


def test_direct_providers(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    spec = resolve_backend(Settings(backend="openai", model="gpt-x"))
    assert (spec.kind, spec.provider, spec.url) == ("direct", "openai", "wss://api.openai.com/v1/responses")
    assert spec.api_key == "sk-openai-secret" and "sk-openai-secret" not in repr(spec)
    spec = resolve_backend(Settings(backend="xai", model="grok", keys={"xai": "from-config"}))
    assert (spec.provider, spec.url, spec.api_key) == ("xai", "wss://api.x.ai/v1/responses", "from-config")


def test_missing_key_or_model_is_a_clear_error(monkeypatch):
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        resolve_backend(Settings(backend="openai", model="m"))
    with pytest.raises(BackendError, match="CEREBRAS_API_KEY"):
        resolve_backend(Settings(backend="cerebras", model="m"))
    monkeypatch.setenv("GROQ_API_KEY", "g")
    with pytest.raises(BackendError, match="model"):
        resolve_backend(Settings(backend="groq"))
    with pytest.raises(BackendError, match="unknown backend"):
        resolve_backend(Settings(backend="nonsense"))


def test_upstream_backends_spawn_the_gateway(monkeypatch):
    monkeypatch.setenv("CEREBRAS_API_KEY", "csk")
    spec = resolve_backend(Settings(backend="cerebras", model="qwen"))
    assert spec.kind == "spawn" and spec.provider == "gateway"
    assert spec.serve_args[:4] == ["--engine", "upstream", "--model", "qwen"]
    assert spec.serve_env == {"STEER_UPSTREAM_URL": "https://api.cerebras.ai/v1"}
    assert "csk" not in " ".join(spec.serve_args)  # the key goes through the child's environment
    for name, url in [("ollama", "http://127.0.0.1:11434/v1"), ("vllm", "http://127.0.0.1:8000/v1"),
                      ("llamacpp", "http://127.0.0.1:8080/v1")]:
        spec = resolve_backend(Settings(backend=name, model="m"))
        assert spec.serve_env["STEER_UPSTREAM_URL"] == url and spec.api_key is None
    assert resolve_backend(Settings(backend="llamacpp")).model == "default"
    spec = resolve_backend(Settings(backend="vllm", model="m", upstream_url="http://10.0.0.5:8000/v1"))
    assert spec.serve_env["STEER_UPSTREAM_URL"] == "http://10.0.0.5:8000/v1"
    spec = resolve_backend(Settings(backend="vllm", model="m",
                                    extra={"backends": {"vllm": {"gateway": "ws://127.0.0.1:9999/v1/responses"}}}))
    assert (spec.kind, spec.url) == ("direct", "ws://127.0.0.1:9999/v1/responses")


def test_local_and_urls():
    spec = resolve_backend(Settings(backend="local"))
    assert spec.kind == "spawn" and spec.serve_args == ["--engine", "local"]
    spec = resolve_backend(Settings(backend="local", model="/models/x.gguf"))
    assert spec.serve_args == ["--engine", "local", "--model", "/models/x.gguf"]
    spec = resolve_backend(Settings(backend="ws://127.0.0.1:8765/v1/responses"))
    assert (spec.kind, spec.provider, spec.url) == ("direct", "gateway", "ws://127.0.0.1:8765/v1/responses")


async def test_open_backend_spawns_and_close_stops_it(tmp_path):
    from steer_tui.transport.backends import BackendSpec

    answer = tmp_path / "a.txt"
    answer.write_text("spawned answer", encoding="utf-8")
    spec = BackendSpec("replay", "spawn", "gateway",
                       serve_args=["--engine", "replay", "--replay", str(answer), "--rate", "max"])
    client = await within(open_backend(spec))
    try:
        assert client.connected and client.gateway.running
        assert await within((await client.create(input="x")).collect()) == "spawned answer"
    finally:
        await client.close()
    assert not client.gateway.running


async def test_an_upstream_url_with_credentials_stays_out_of_the_process_list():
    # Any local user can read a process's command line (ps); the URL's own credentials go
    # through the child's environment, as the key does.
    url = "http://alice:pw-s3cret@127.0.0.1:9/v1?key=qk-98765"
    spec = resolve_backend(Settings(backend="vllm", model="m", upstream_url=url))
    client = await within(open_backend(spec), 60)
    try:
        with open(f"/proc/{client.gateway.pid}/cmdline", "rb") as f:
            cmdline = f.read().decode()
        assert "--engine\0upstream" in cmdline and "pw-s3cret" not in cmdline and "qk-98765" not in cmdline
        # The child serves that URL (shown redacted), so it did read it from its environment.
        assert "127.0.0.1:9/v1" in client.gateway.banner and "pw-s3cret" not in client.gateway.banner
    finally:
        await client.close()
