"""What a Session needs of its backend (ResponsesClient satisfies it), and opening the configured one."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Protocol, runtime_checkable

from steer_tui.config import Settings


@runtime_checkable
class TurnStream(Protocol):
    """One response being streamed: steer_tui.transport.events objects until a terminal one."""

    stats: Any  # steer_tui.transport.events.Stats: ttft_s, deltas_per_s, usage

    def __aiter__(self) -> AsyncIterator[Any]: ...

    async def cancel(self) -> None: ...

    async def steer(self, words: str) -> Any: ...


@runtime_checkable
class Backend(Protocol):
    """A connected Responses client (steer_tui.transport.client.ResponsesClient or a test's own)."""

    url: str

    async def create(self, *, input, model: str | None = None, instructions: str | None = None,
                     stream_id: str | None = None, max_output_tokens: int | None = None,
                     temperature: float | None = None) -> TurnStream: ...

    async def prewarm(self, *, input, model: str | None = None, instructions: str | None = None,
                      stream_id: str | None = None) -> Any: ...

    async def close(self) -> None: ...


class SessionError(Exception):
    """A backend or usage error the caller should show (code like `backend_unreachable`)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


async def open_backend(settings: Settings, on_status: Callable[[str, str], None] | None = None) -> Backend:
    """A connected ResponsesClient for `settings.backend`.

    `local` (the default) starts the embedded engine in a `steer serve` child that the client
    owns and stops on close. Every failure becomes a SessionError with a user-facing message.
    """
    from websockets.exceptions import InvalidHandshake

    from steer_tui.transport.backends import BackendError, open_backend as _open, resolve_backend
    from steer_tui.transport.client import TransportError
    from steer_tui.transport.launcher import GatewayStartError

    status = on_status or (lambda state, detail="": None)
    try:
        spec = resolve_backend(settings)
    except BackendError as exc:
        raise SessionError("backend_config", str(exc)) from exc
    if spec.kind == "spawn":
        status("loading", f"connecting to the shared {spec} (started if none runs)" if spec.shared else f"starting {spec}")
    try:
        return await _open(spec)
    except GatewayStartError as exc:
        raise SessionError("backend_unavailable", f"{spec} did not start: {exc}") from exc
    except (OSError, asyncio.TimeoutError, TransportError, InvalidHandshake) as exc:
        raise SessionError("backend_unreachable", f"cannot reach {spec}: {exc}") from exc


async def cancel_quietly(stream: TurnStream) -> None:
    """Cancel `stream` on the server; a stream already over or a lost connection is not an error here."""
    try:
        await stream.cancel()
    except Exception:
        pass
