"""Settings: the TOML config file (user config dir), environment variables and flags.

Precedence, highest first: command-line flags, environment, config file, defaults.
API keys are read from the environment or the file and never printed or logged.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir

APP_NAME = "steer"

KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "groq": "GROQ_API_KEY",
}


def config_dir() -> Path:
    return Path(os.environ.get("STEER_CONFIG_DIR") or user_config_dir(APP_NAME))


def cache_dir() -> Path:
    return Path(os.environ.get("STEER_CACHE_DIR") or user_cache_dir(APP_NAME))


def config_path() -> Path:
    return Path(os.environ.get("STEER_CONFIG") or (config_dir() / "config.toml"))


NO_DAEMON_ENV = "STEER_NO_DAEMON"  # set (not "0"): the local backend starts a private engine per command
ADDITION_MODES = ("after", "before")  # Settings.redirect_additions


class ConfigError(Exception):
    """The config file could not be read or has a bad value."""


# The most alternatives of one request (`--attempts`, the app's Alt+A): more lanes than this cost
# more than they find (the engine's departures go to its 15th least sure token).
MAX_ALTERNATIVES = 8

@dataclass
class Settings:
    backend: str = "local"  # local | openai | xai | cerebras | groq | ollama | vllm | llamacpp | ws(s)://URL
    model: str | None = None  # model name, or a GGUF path for the local engine
    edit_format: str | None = None  # None: best for the backend
    theme: str = "dark"
    test_command: str | None = None
    upstream_url: str | None = None  # override for OpenAI-compatible backends
    temperature: float | None = None
    max_output_tokens: int | None = None
    # Tokens the open file may cost a request; a file over it is shown in part, around the region
    # (steer_tui/project/window.py). None: measured defaults (small for the embedded model).
    file_tokens: int | None = None
    speculation: bool = True  # local engine: speculative edits (`steer serve --no-speculation` turns them off)
    # A redirect that adds to the request ("also X") while a rewrite is written: asked "before" the
    # rest of it (the answer stops; the addition first, then the request again), or "after" the answer.
    redirect_additions: str = "before"
    # How many alternatives the app's Alt+A asks of a request (steer_tui/ui/lanes.py), the proposal
    # under review counting as one: from 2 to MAX_ALTERNATIVES.
    alternatives: int = 3
    # local backend: one shared engine per user that outlives a command (steer_tui/transport/daemon.py);
    # false (or --no-daemon, or STEER_NO_DAEMON=1) starts a private one per command, as before.
    daemon: bool = True
    daemon_idle_minutes: float = 15.0  # the shared engine exits after this long with no connection
    # A request carries what the project's other files say that the edit uses or the words name
    # (steer_tui/project/context.py), within `context_tokens` (None: small for the embedded model,
    # larger for a remote one: steer_tui.project.session_context.default_budget).
    context: bool = True
    context_tokens: int | None = None
    keys: dict[str, str] = field(default_factory=dict, repr=False)  # backend -> API key
    extra: dict = field(default_factory=dict, repr=False)  # other tables, e.g. [backends.NAME]

    def api_key(self, backend: str) -> str | None:
        env = KEY_ENV.get(backend)
        if env and os.environ.get(env):
            return os.environ[env]
        return self.keys.get(backend)


def load_settings(path: Path | None = None, **overrides) -> Settings:
    """Read the config file (if any), then the environment, then non-None overrides."""
    path = path or config_path()
    data: dict = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    settings = Settings()
    known = {f for f in Settings.__dataclass_fields__ if f not in ("keys", "extra")}
    for key, value in data.items():
        if key in known:
            setattr(settings, key, value)
        elif key == "keys" and isinstance(value, dict):
            settings.keys = {str(k): str(v) for k, v in value.items()}
        else:
            settings.extra[key] = value
    env_map = {
        "STEER_BACKEND": "backend",
        "STEER_MODEL": "model",
        "STEER_FORMAT": "edit_format",
        "STEER_THEME": "theme",
        "STEER_TEST_COMMAND": "test_command",
    }
    for env, attr in env_map.items():
        if os.environ.get(env):
            setattr(settings, attr, os.environ[env])
    if os.environ.get(NO_DAEMON_ENV, "") not in ("", "0"):
        settings.daemon = False
    for key, value in overrides.items():
        if value is not None:
            if key not in known:
                raise ConfigError(f"unknown setting {key!r}")
            setattr(settings, key, value)
    if not isinstance(settings.daemon, bool):
        raise ConfigError(f"daemon must be true or false, not {settings.daemon!r} ({path})")
    idle = settings.daemon_idle_minutes
    if isinstance(idle, bool) or not isinstance(idle, (int, float)) or not idle > 0:
        raise ConfigError(f"daemon_idle_minutes must be a number of minutes > 0, not {idle!r} ({path})")
    tokens = settings.file_tokens
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens <= 0):
        raise ConfigError(f"file_tokens must be a number of tokens > 0, not {tokens!r} ({path})")
    if settings.redirect_additions not in ADDITION_MODES:
        raise ConfigError(f"redirect_additions must be one of {', '.join(ADDITION_MODES)}, "
                          f"not {settings.redirect_additions!r} ({path})")
    lanes = settings.alternatives
    if isinstance(lanes, bool) or not isinstance(lanes, int) or not 2 <= lanes <= MAX_ALTERNATIVES:
        raise ConfigError(f"alternatives must be a number from 2 to {MAX_ALTERNATIVES}, not {lanes!r} ({path})")
    if not isinstance(settings.context, bool):
        raise ConfigError(f"context must be true or false, not {settings.context!r} ({path})")
    budget = settings.context_tokens
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 0):
        raise ConfigError(f"context_tokens must be a number of tokens >= 0, not {budget!r} ({path})")
    return settings
