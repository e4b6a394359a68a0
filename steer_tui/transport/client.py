"""The Responses-over-WebSocket client: the asyncio shell that owns the connection and carries out the protocol's actions.

The same client talks to our gateway (`provider="gateway"`: `response.cancel` and
`response.steer` are native), to OpenAI (`"openai"`: no cancel, so an interrupt abandons
the lane and later turns move to a fresh `stream_id`) and to xAI (`"xai"`: an interrupt
reconnects). It keeps every transcript itself, so a lost server cache
(`previous_response_not_found`), a connection-age limit or a dropped connection ends in
a reconnect (with backoff) and a replay of the transcript, never in lost context.

What to do is decided by the sans-I/O TurnProtocol (steer_tui/transport/protocol.py); this
module opens and watches the connection, decodes each message, hands it to the protocol
and carries out the actions it returns (send, send a turn's request, start a successor,
retire or reopen the connection, wake a stream's reader).

Guarantee: once `cancel()` or `steer()` returns, no delta of the interrupted response
is yielded any more. API keys go into the Authorization header only; they are never
logged, printed or kept in a repr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl as ssl_module

from websockets.asyncio.client import ClientConnection, connect as ws_connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidStatus, InvalidHandshake

from steer_tui.netutil import is_loopback_url, set_nodelay
from steer_tui.transport.events import Completed
from steer_tui.transport.protocol import (PROVIDERS, RECONNECT_CODES, REPLAY_CODES, Provider, Reconnect, Retire, Send,
                                    SendCreate, StartSuccessor, TurnProtocol, Wake)
from steer_tui.transport.stream import ResponseStream, wake_readers
from steer_tui.transport.turn import Turn
from steer_tui.transport.wsconn import Connection

__all__ = ["PROVIDERS", "RECONNECT_CODES", "REPLAY_CODES", "ConnectError", "Provider", "ResponseStream",
           "ResponsesClient", "Secret", "TransportError"]

log = logging.getLogger("steer.transport")

_decoder = json.JSONDecoder()
_decode, _scan = _decoder.decode, _decoder.scan_once


def _loads(text: str):
    """json.loads(text) for one message: the C scanner straight away, without decode()'s two
    whitespace regex matches and wrappers; anything else (surrounding whitespace, an error)
    goes through json's own decode(), so the result or the error is json's."""
    try:
        obj, end = _scan(text, 0)
    except StopIteration:
        return _decode(text)
    return obj if end == len(text) else _decode(text)


class Secret:
    """Holds an API key; its repr and str never show it (so a stray log or debugger dump cannot)."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = value

    def get(self) -> str | None:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret(<hidden>)" if self._value else "Secret(None)"

    __str__ = __repr__


class TransportError(Exception):
    """The client could not do what was asked (no connection, refused handshake, ...)."""


class ConnectError(TransportError):
    """No connection could be opened after the retries."""


class ResponsesClient:
    """One persistent WebSocket to a Responses endpoint, reused for every turn."""

    def __init__(self, url: str, *, api_key: str | None = None, provider: str = "gateway",
                 headers: dict | None = None, model: str | None = None, ssl: ssl_module.SSLContext | None = None,
                 connect_timeout: float = 10.0, reconnect_attempts: int = 6, backoff: float = 0.1,
                 backoff_max: float = 3.0, max_size: int | None = 64 * 1024 * 1024, history_size: int = 512):
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
        self.url = url
        self.provider = PROVIDERS[provider]
        self.model = model
        self._api_key = Secret(api_key)
        self._headers = dict(headers or {})
        self._ssl = ssl
        self.connect_timeout = connect_timeout
        self.reconnect_attempts = reconnect_attempts
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.max_size = max_size
        self.gateway = None  # a GatewayProcess this client owns (set by open_backend); stopped by close()
        self.engine_start: str | None = None  # open_backend: "cold" (it started the engine) or "warm"
        self.reconnects = 0
        self.generation = 0  # bumps on every new connection
        self._protocol = TurnProtocol(self.provider, history_size=history_size)
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task | None = None
        self._connect_lock = asyncio.Lock()
        self._closing = False
        self._tasks: set[asyncio.Task] = set()

    def __repr__(self) -> str:
        return f"ResponsesClient(url={self.url!r}, provider={self.provider.name!r}, connected={self.connected})"

    async def __aenter__(self):
        await self.connect()
        return self

    async def __aexit__(self, *exc):
        await self.close()

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def history_size(self) -> int:
        return self._protocol.transcripts.size

    @history_size.setter
    def history_size(self, value: int) -> None:
        self._protocol.transcripts.size = value

    # -- connection ------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the connection now (turns also connect lazily), retrying with backoff."""
        await self._ensure_connected()

    async def _open_once(self) -> ClientConnection:
        headers = dict(self._headers)
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.get()}"
        kwargs = {}
        if self._ssl is not None:
            kwargs["ssl"] = self._ssl

        def make_connection(*args, **kw) -> Connection:
            conn = Connection(*args, **kw)
            conn.on_message = self._on_message
            return conn

        return await ws_connect(self.url, additional_headers=headers, compression=None,
                                open_timeout=self.connect_timeout, max_size=self.max_size,
                                proxy=None if is_loopback_url(self.url) else True,
                                create_connection=make_connection, **kwargs)

    async def _ensure_connected(self) -> ClientConnection:
        if self._ws is not None:
            return self._ws
        async with self._connect_lock:
            if self._ws is not None:
                return self._ws
            if self.gateway is not None and not self.gateway.running:  # no retry brings back a dead child
                await self._revive(await self.gateway.death() or "steer serve is not running")
            try:
                return await self._open_with_retries()
            except ConnectError as exc:
                # A shared engine that refuses every attempt is gone, whatever its pid says (it died
                # after the check above, or the number now belongs to another process): the next one.
                if getattr(self.gateway, "revive", None) is None or not isinstance(exc.__cause__, ConnectionRefusedError):
                    raise
                await self._revive(f"the shared steer engine at {self.url} refuses connections")
                return await self._open_with_retries()

    async def _revive(self, died: str) -> None:
        """The owned gateway is gone: a shared engine's lease (daemon.Lease) connects to the next one,
        another command's or a new one; anything else cannot come back."""
        revive = getattr(self.gateway, "revive", None)
        if revive is None:
            raise ConnectError(f"cannot connect to {self.url}: {died}")
        log.warning("%s; connecting to a new shared engine", died)
        try:
            addr = await revive()
        except Exception as exc:
            raise ConnectError(f"cannot connect: {died}; a new engine did not start: {exc}") from None
        self.url, self._api_key = addr.url, Secret(addr.token)

    async def _open_with_retries(self) -> ClientConnection:
        """Connect to self.url, retrying with backoff; a ConnectError (the last failure as its cause) when none succeeds."""
        delay = self.backoff
        last: Exception | None = None
        for attempt in range(max(1, self.reconnect_attempts)):
            if attempt:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)
            try:
                ws = await self._open_once()
            except InvalidStatus as exc:
                status = exc.response.status_code
                if status in (401, 403, 404):  # retrying will not help
                    body = exc.response.body.decode("utf-8", "replace").strip()[:200]
                    raise ConnectError(f"{self.url} refused the connection: HTTP {status} {body}") from None
                last = exc
            except (OSError, asyncio.TimeoutError, InvalidHandshake) as exc:
                last = exc
            else:
                if self.generation:
                    self.reconnects += 1
                self.generation += 1
                self._protocol.connected()
                set_nodelay(ws.transport)
                self._ws = ws
                self._reader = asyncio.create_task(self._read_loop(ws))
                return ws
        raise ConnectError(f"cannot connect to {self.url} after {max(1, self.reconnect_attempts)} "
                           f"attempts: {type(last).__name__}: {last}") from last

    async def close(self) -> None:
        """Close the connection (ending open streams) and stop an owned gateway."""
        self._closing = True
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()
        if self._reader is not None:
            await asyncio.wait({self._reader}, timeout=5)
        for task in list(self._tasks):
            task.cancel()
        self._carry_out_now(self._protocol.close("the client was closed"))
        if self.gateway is not None:
            await self.gateway.stop()
        self._closing = False

    async def reconnect(self) -> None:
        """Drop the connection and open a new one (responses in flight end as Disconnected)."""
        ws, self._ws = self._ws, None
        if ws is not None:
            await ws.close()
            if self._reader is not None:
                await asyncio.wait({self._reader}, timeout=5)
        await self._ensure_connected()

    async def _reconnect_quietly(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            # Streams still on it end as Disconnected; the interrupted one already ended.
            await ws.close()
        try:
            await self._ensure_connected()
        except ConnectError:
            pass  # the next create() retries and reports

    def _on_message(self, raw) -> None:
        """Called by the connection, inside data_received, for each complete message."""
        try:
            obj = _loads(raw.decode() if not isinstance(raw, str) else raw)
        except (TypeError, ValueError):  # UnicodeDecodeError is a ValueError
            log.warning("ignoring a frame that is not JSON")
            return
        if isinstance(obj, dict):
            try:
                actions = self._protocol.receive(obj)
            except Exception:  # a client bug must not silently stall every stream
                log.exception("dispatching %s failed", obj.get("type"))
                return
            for action in actions:  # _carry_out_now, inlined for a delta's lone Wake
                if type(action) is Wake:
                    if action.readers:
                        wake_readers(action.readers)
                else:
                    self._carry_out_now((action,))

    async def _read_loop(self, ws: ClientConnection) -> None:
        """Messages are dispatched as they arrive (_on_message); this waits for the end."""
        reason, lost = "the server closed the connection", False
        try:
            await ws.wait_closed()
            exc = ws.protocol.close_exc
            if not isinstance(exc, ConnectionClosedOK):
                reason, lost = f"connection lost ({exc})", True
        except Exception as exc:
            reason, lost = f"connection lost ({type(exc).__name__}: {exc})", True
        finally:
            if lost and self.gateway is not None and not self._closing:
                died = await self.gateway.death()
                if died:  # first: a status line cut short keeps the cause
                    reason = f"{died}; {reason}"
            if self._ws is ws:
                self._ws = None
            self._carry_out_now(self._protocol.connection_lost(ws, reason, resend=not self._closing))

    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- carrying out the protocol's actions --------------------------------------------

    def _carry_out_now(self, actions) -> None:
        """From a callback: wakes and retirements at once, everything that waits in a task each."""
        for action in actions:
            kind = type(action)
            if kind is Wake:
                wake_readers(action.readers)
            elif kind is Retire:
                self._retire(action.connection)
            else:
                self._spawn(self._carry_out((action,)))

    async def _carry_out(self, actions) -> None:
        """From a call: in order, each finished before the next (a background reconnect aside)."""
        for action in actions:
            kind = type(action)
            if kind is Wake:
                wake_readers(action.readers)
            elif kind is Send:
                await self._send_quietly(action.payload)
            elif kind is SendCreate:
                await self._resend(action.turn, replay=action.replay, notice=action.notice)
            elif kind is StartSuccessor:
                await self._carry_out(self._protocol.successor(action.turn, action.items))
            elif kind is Retire:
                self._retire(action.connection)
            elif kind is Reconnect:
                if action.background:
                    self._spawn(self._reconnect_quietly())
                else:
                    await self._reconnect_quietly()

    def _retire(self, ws) -> None:
        """Stop using `ws` (None: the current connection) for new requests and close it; its
        reader then reports the loss."""
        if ws is None:
            ws = self._ws
        if self._ws is ws:
            self._ws = None
        if ws is not None:
            self._spawn(ws.close())

    async def _send_quietly(self, obj: dict) -> None:
        if self._ws is not None:
            try:
                await self._ws.send(json.dumps(obj))
            except ConnectionClosed:
                pass  # the drop ends the stream anyway

    async def _send_create(self, turn: Turn, *, replay: bool = False) -> None:
        ws = await self._ensure_connected()
        payload = self._protocol.request(turn, ws, replay=replay)
        wake_readers(turn.readers)  # the request may have noted a replay
        try:
            await ws.send(json.dumps(payload))
        except ConnectionClosed:
            # Normally the reader notices and connection_lost() resends this pending request;
            # if it already ran, nobody else will.
            if self._ws is not ws:
                self._carry_out_now(self._protocol.request_lost(turn))

    async def _resend(self, turn: Turn, *, replay: bool = False, notice: tuple | None = None) -> None:
        if notice:
            self._carry_out_now(self._protocol.notice(turn, *notice))
        try:
            await self._send_create(turn, replay=replay)
        except ConnectError as exc:
            self._carry_out_now(self._protocol.connect_failed(turn, str(exc)))

    # -- requests --------------------------------------------------------------------

    async def create(self, *, input, model: str | None = None, instructions: str | None = None,
                     previous_response_id: str | None = None, stream_id: str | None = None,
                     max_output_tokens: int | None = None, temperature: float | None = None,
                     generate: bool = True, extra: dict | None = None) -> ResponseStream:
        """Send response.create; returns the stream at once (raises ConnectError without a connection)."""
        turn = self._protocol.new_turn(input=input, model=model or self.model, instructions=instructions,
                                       previous_response_id=previous_response_id, stream_id=stream_id,
                                       max_output_tokens=max_output_tokens, temperature=temperature,
                                       generate=generate, extra=extra)
        stream = ResponseStream(self, turn)
        try:
            await self._send_create(turn)
        except BaseException:
            self._protocol.discard(turn)
            raise
        return stream

    async def cancel_turn(self, turn: Turn) -> None:
        """ResponseStream.cancel(): once this returns, no more of the turn's deltas are read."""
        await self._carry_out(self._protocol.cancel(turn))

    async def steer_turn(self, turn: Turn, words) -> None:
        """ResponseStream.steer(words)."""
        await self._carry_out(self._protocol.steer(turn, words))

    async def prewarm(self, *, input, model: str | None = None, instructions: str | None = None,
                      stream_id: str | None = None, previous_response_id: str | None = None,
                      detach: bool = False) -> str:
        """`generate: false`: have the server evaluate and cache the prompt; returns a chainable id.

        `detach` (a gateway listing it in its features): the gateway runs the prewarm on after this
        connection closes, so this returns as soon as the gateway took it (its response.created)."""
        stream = await self.create(input=input, model=model, instructions=instructions, stream_id=stream_id,
                                   previous_response_id=previous_response_id, generate=False,
                                   extra={"detach": True} if detach else None)
        try:
            if detach:
                async for _ in stream:  # the first event is its response.created, or how it ended
                    break
                if stream.response_id is None:
                    raise TransportError(f"prewarm failed: {type(stream.final).__name__}")
                return stream.response_id
            final = await stream.wait()
        except asyncio.CancelledError:
            # Superseded (the file changed again) or closing: the server must not go on
            # evaluating a prompt nobody will use while the next request waits in its lane.
            stopping = asyncio.ensure_future(stream.cancel())
            stopping.add_done_callback(lambda t: t.cancelled() or t.exception())
            raise
        if not isinstance(final, Completed) or stream.response_id is None:
            detail = getattr(final, "message", "") or getattr(final, "reason", "") or type(final).__name__
            raise TransportError(f"prewarm failed: {detail}")
        return stream.response_id

    def transcript(self, response_id: str) -> list[dict] | None:
        """The full chat transcript up to and including `response_id`'s output, as the client kept it."""
        return self._protocol.transcripts.messages(response_id)
