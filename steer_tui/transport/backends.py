"""Backends by name: where a session's responses come from, and how to open a client for one.

- `openai`, `xai`: the provider's own Responses WebSocket, straight from the client.
- `cerebras`, `groq`, `ollama`, `vllm`, `llamacpp`: an OpenAI-compatible Chat Completions
  server behind our gateway's upstream engine; the gateway is a `steer serve` child on an
  ephemeral loopback port unless `[backends.NAME] gateway = "ws://..."` names a running one.
- `local`: the embedded model, in the user's shared `steer serve --engine local` (started by the
  first command that needs it, steer_tui/transport/daemon.py), or with `daemon = false` /
  `--no-daemon` in a child of this command's own.
- `replay`: `[backends.replay] file = PATH` (and `rate`), a recorded answer played by the gateway
  (demos, tests, benches; not a model), started and shared as `local` is.
- `ws://...` / `wss://...`: a running gateway.

Keys come from OPENAI_API_KEY, XAI_API_KEY, CEREBRAS_API_KEY, GROQ_API_KEY or the config
file (`[keys]`); they are handed over in headers or the child's environment, never on a
command line, and never printed. So is an upstream URL, which may hold credentials of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from steer_tui.config import KEY_ENV, Settings
from steer_tui.transport.client import ResponsesClient
from steer_tui.transport.health import gateway_info  # noqa: F401  (also imported from here)
from steer_tui.transport.launcher import GatewayProcess
from steer_tui.transport.serve_env import UPSTREAM_KEY_ENV, UPSTREAM_URL_ENV

DIRECT = {
    "openai": "wss://api.openai.com/v1/responses",
    "xai": "wss://api.x.ai/v1/responses",
}
UPSTREAM = {
    "cerebras": "https://api.cerebras.ai/v1",
    "groq": "https://api.groq.com/openai/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "vllm": "http://127.0.0.1:8000/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
}
NEEDS_KEY = {"openai", "xai", "cerebras", "groq"}
# llama.cpp's server answers whatever model name it is sent; the others need a real one.
DEFAULT_MODEL = {"llamacpp": "default"}
NAMES = [*DIRECT, *UPSTREAM, "local", "replay"]
GATEWAY_TOKEN_ENV = "STEER_GATEWAY_TOKEN"


class BackendError(Exception):
    """The configured backend cannot be used as it stands (unknown name, missing key or model)."""


@dataclass
class BackendSpec:
    name: str  # openai | xai | cerebras | ... | local | url
    kind: str  # "direct": connect to `url`; "spawn": start `steer serve serve_args` and connect to it
    provider: str  # client dialect: gateway | openai | xai
    url: str | None = None
    model: str | None = None
    serve_args: list[str] = field(default_factory=list)
    api_key: str | None = field(default=None, repr=False)  # for the WebSocket (direct) or the child (spawn)
    serve_env: dict[str, str] = field(default_factory=dict, repr=False)  # the child's, beside the key
    label: str = ""
    shared: bool = False  # "spawn": connect to the user's shared engine for serve_args (daemon.py)
    idle_s: float = 900.0  # the shared engine's idle limit, when this command starts it

    def __str__(self) -> str:
        return self.label or self.name


def resolve_backend(settings: Settings) -> BackendSpec:
    """Turn `settings.backend` (+ model, upstream_url, keys, [backends.NAME]) into a BackendSpec."""
    name = (settings.backend or "local").strip()
    table = {}
    backends = settings.extra.get("backends") if isinstance(settings.extra, dict) else None
    if isinstance(backends, dict) and isinstance(backends.get(name), dict):
        table = backends[name]
    model = settings.model or table.get("model") or DEFAULT_MODEL.get(name)
    if name.startswith(("ws://", "wss://")):
        return BackendSpec("url", "direct", "gateway", url=name, model=model, api_key=_gateway_token(settings),
                           label=name)
    if name in DIRECT or name in UPSTREAM:
        key = settings.api_key(name) or None
        if name in NEEDS_KEY and not key:
            raise BackendError(f"backend {name!r} needs an API key: set {KEY_ENV[name]} or [keys] {name} = ... "
                               "in the config file")
        if not model:
            raise BackendError(f"backend {name!r} needs a model name (--model or `model = ...` in the config)")
    if name in DIRECT:
        url = table.get("url") or DIRECT[name]
        return BackendSpec(name, "direct", name, url=url, model=model, api_key=key, label=f"{name} ({model})")
    if name in UPSTREAM:
        if table.get("gateway"):
            return BackendSpec(name, "direct", "gateway", url=str(table["gateway"]), model=model,
                               api_key=_gateway_token(settings),
                               label=f"{name} via {table['gateway']}")
        upstream = table.get("url") or settings.upstream_url or UPSTREAM[name]
        return BackendSpec(name, "spawn", "gateway", model=model, api_key=key, label=f"{name} ({model})",
                           serve_args=["--engine", "upstream", "--model", model,
                                       "--upstream-key-env", UPSTREAM_KEY_ENV],
                           serve_env={UPSTREAM_URL_ENV: upstream})
    if name == "local":
        args = ["--engine", "local"]
        if settings.model:
            args += ["--model", settings.model]
        if table.get("threads"):
            args += ["--threads", str(table["threads"])]
        if not settings.speculation:
            args += ["--no-speculation"]  # on the command line: a shared engine is chosen by its flags
        return BackendSpec("local", "spawn", "gateway", model=None, serve_args=args, label="local (embedded model)",
                           shared=bool(settings.daemon), idle_s=float(settings.daemon_idle_minutes) * 60)
    if name == "replay":
        if not table.get("file"):
            raise BackendError("backend 'replay' plays a recorded answer: set [backends.replay] file = PATH "
                               "in the config file")
        from pathlib import Path

        args = ["--engine", "replay", "--replay", str(Path(str(table["file"])).expanduser().resolve()),
                "--rate", str(table.get("rate", "max"))]
        return BackendSpec("replay", "spawn", "gateway", serve_args=args, label="replay (recorded text, not a model)",
                           shared=bool(settings.daemon), idle_s=float(settings.daemon_idle_minutes) * 60)
    raise BackendError(f"unknown backend {name!r}; use one of {', '.join(NAMES)} or a ws:// / wss:// gateway URL")


def _gateway_token(settings: Settings) -> str | None:
    import os

    return settings.api_key("gateway") or os.environ.get(GATEWAY_TOKEN_ENV) or None


async def open_backend(spec: BackendSpec, *, start_timeout: float | None = None) -> ResponsesClient:
    """A connected client for `spec`; for "spawn" backends it owns the `steer serve` child
    (`client.gateway`), which `client.close()` stops, or holds a lease on the shared engine.
    `client.engine_start`: "cold" when this call started the engine, "warm" when it was running. A client of a steer gateway carries what
    the gateway serves in `client.server_info` (None if unknown): a `ws://` URL of a gateway in
    front of the embedded model then gets that model's edit format."""
    if spec.kind == "direct":
        client = ResponsesClient(spec.url, api_key=spec.api_key, provider=spec.provider, model=spec.model)
        await client.connect()
        client.server_info = await gateway_info(spec.url, spec.api_key) if spec.provider == "gateway" else None
        return client
    env = dict(spec.serve_env)
    if spec.api_key:
        env[UPSTREAM_KEY_ENV] = spec.api_key
    timeout = start_timeout or (600.0 if spec.name == "local" else 60.0)  # the first local start assembles the model
    if spec.shared:
        return await _open_shared(spec, env, timeout)
    gateway = await GatewayProcess.start(spec.serve_args, env=env, timeout=timeout)
    client = ResponsesClient(gateway.url, provider="gateway", model=spec.model)
    client.gateway = gateway
    try:
        await client.connect()
    except BaseException:
        await gateway.stop()
        raise
    client.server_info = await gateway_info(gateway.url)
    client.engine_start = "cold"
    return client


async def _open_shared(spec: BackendSpec, env: dict, timeout: float) -> ResponsesClient:
    """A client of the user's shared engine for `spec.serve_args` (started if none runs); closing
    the client leaves the engine running; if it dies, the client's next connection finds a new one."""
    from steer_tui.transport import daemon

    lease = await daemon.lease(spec.serve_args, env=env, idle_s=spec.idle_s, timeout=timeout)
    client = ResponsesClient(lease.addr.url, api_key=lease.addr.token, provider="gateway", model=spec.model)
    client.gateway = lease
    await client.connect()
    client.server_info = await gateway_info(lease.addr.url, lease.addr.token)
    client.engine_start = "warm" if lease.warm else "cold"
    return client
