"""Upstream engine: any OpenAI-compatible Chat Completions server, streamed over SSE.

Cerebras, Groq, vLLM, Ollama, llama.cpp's server and friends all speak
`POST {base}/chat/completions` with `stream: true`. Cancelling closes the upstream
request (the HTTP connection goes, so the server stops generating). Upstream
failures (HTTP errors, timeouts, a malformed or truncated stream) become
EngineError with the upstream's own message, which the gateway sends as
`response.failed`. The API key is read from the environment and only ever sent
in the Authorization header. Credentials written into the URL (`http://user:pw@host/v1`,
`?key=...`) are used but never shown: the label, repr and every error text carry the URL
with them hidden, and upstream error bodies (a server may echo the request's headers)
have the key and those credentials scrubbed.
"""

from __future__ import annotations

import json
import os
import threading
from typing import AsyncIterator
from urllib.parse import unquote, urlsplit, urlunsplit

import httpx

from steer_tui.server.engines.base import Engine, EngineError, EngineRequest, estimate_tokens
from steer_tui.netutil import REDACTED, is_loopback_url, redact, url_secrets
from steer_tui.transport.client import Secret

# Which provider's usual variable to fall back on, by upstream host.
HOST_KEYS = {"api.cerebras.ai": "CEREBRAS_API_KEY", "api.groq.com": "GROQ_API_KEY",
             "api.openai.com": "OPENAI_API_KEY", "api.x.ai": "XAI_API_KEY"}
DEFAULT_KEY_ENV = "STEER_UPSTREAM_API_KEY"


def key_from_env(base_url: str, var: str | None = None) -> str | None:
    """The API key for `base_url`: from `var`, else STEER_UPSTREAM_API_KEY, else the provider's variable."""
    for name in (var, DEFAULT_KEY_ENV, HOST_KEYS.get(urlsplit(base_url).hostname or "")):
        if name and os.environ.get(name):
            return os.environ[name]
    return None


def _split_userinfo(url: str) -> tuple[str, tuple[str, str] | None]:
    """`url` without its userinfo, and that userinfo as (user, password) for Basic auth."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    return urlunsplit((parts.scheme, hostport, parts.path, parts.query, parts.fragment)), (unquote(user), unquote(password))


def _endpoint(base_url: str, path: str) -> str:
    """`path` under `base_url`, keeping the base's query (`?key=...`) after it, not inside it."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, parts.fragment))


def _upstream_message(status: int, body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        obj = json.loads(text)
        err = obj.get("error", obj) if isinstance(obj, dict) else obj
        if isinstance(err, dict):
            text = str(err.get("message") or err.get("detail") or text)
        elif isinstance(err, str):
            text = err
    except ValueError:
        pass
    return f"upstream HTTP {status}: {text[:500] or '(no body)'}"


class UpstreamEngine(Engine):
    name = "upstream"

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 connect_timeout: float = 10.0):
        # Requests go to the URL without its userinfo (sent as Basic auth instead, as httpx does
        # for a URL carrying one), so no URL httpx builds, logs or raises with holds it.
        self.base_url, self._basic_auth = _split_userinfo(base_url.rstrip("/"))
        self.shown_url = redact(base_url.rstrip("/"))
        self.model = model
        self._api_key = Secret(api_key)
        self._secrets = sorted({*url_secrets(base_url), *([api_key] if api_key else [])}, key=len, reverse=True)
        self.timeout = httpx.Timeout(connect=connect_timeout, read=timeout, write=timeout, pool=connect_timeout)
        self.label = f"upstream {self.shown_url} ({model})"
        self._client: httpx.AsyncClient | None = None
        self._no_stream_options = False  # some servers reject stream_options; learnt on first refusal

    @property
    def model_name(self) -> str:
        return self.model

    def __repr__(self) -> str:
        return f"UpstreamEngine({self.shown_url!r}, {self.model!r})"

    def scrub(self, text: str) -> str:
        """`text` without this engine's credentials: the key, URL userinfo, credential parameters."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return redact(text)

    async def start(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.get()}"
        # trust_env=False: a loopback upstream must not go through an HTTP proxy from the environment.
        self._client = httpx.AsyncClient(headers=headers, timeout=self.timeout,
                                         auth=httpx.BasicAuth(*self._basic_auth) if self._basic_auth else None,
                                         trust_env=not is_loopback_url(self.base_url))

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _body(self, request: EngineRequest) -> dict:
        body = {"model": request.model or self.model, "messages": request.messages, "stream": True}
        if not self._no_stream_options:
            body["stream_options"] = {"include_usage": True}
        if request.max_output_tokens is not None:
            body["max_tokens"] = request.max_output_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        return body

    async def stream(self, request: EngineRequest, cancel: threading.Event) -> AsyncIterator[str]:
        # Every failure text passes through scrub(); closing the inner generator here (not at
        # its garbage collection) keeps a cancel closing the upstream request at once.
        inner = self._stream(request, cancel)
        try:
            async for delta in inner:
                yield delta
        except EngineError as exc:
            raise EngineError(exc.code, self.scrub(exc.message)) from None
        finally:
            await inner.aclose()

    async def _stream(self, request: EngineRequest, cancel: threading.Event) -> AsyncIterator[str]:
        if self._client is None:
            await self.start()
        # A guess, replaced by the upstream's own count when it sends one.
        request.usage.input_tokens = estimate_tokens(request.messages)
        if not request.generate:
            # A remote server's cache is not ours to warm; the prewarm still yields a chainable id.
            request.finish_reason = "stop"
            return
        url = _endpoint(self.base_url, "/chat/completions")
        shown = _endpoint(self.shown_url, "/chat/completions")
        for attempt in range(2):
            try:
                async with self._client.stream("POST", url, json=self._body(request)) as response:
                    if response.status_code >= 400:
                        body = await response.aread()
                        if (attempt == 0 and not self._no_stream_options and response.status_code in (400, 422)
                                and b"stream_options" in body):
                            self._no_stream_options = True
                            continue
                        raise EngineError("upstream_error", _upstream_message(response.status_code, body))
                    async for delta in self._read_sse(response, request, cancel):
                        yield delta
                    return
            except httpx.TimeoutException as exc:
                raise EngineError("upstream_timeout", f"upstream {shown} timed out ({type(exc).__name__})") from None
            except httpx.HTTPError as exc:
                if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
                    raise EngineError("upstream_disconnected",
                                      f"upstream {shown} closed the connection mid-response: {exc}") from None
                raise EngineError("upstream_unreachable", f"cannot reach upstream {shown}: {exc}") from None

    async def _read_sse(self, response: httpx.Response, request: EngineRequest, cancel: threading.Event):
        data_lines: list[str] = []
        finished = False
        async for line in response.aiter_lines():
            if cancel.is_set():
                request.finish_reason = "cancelled"
                return  # leaving the `async with` closes the upstream request
            if line.startswith(":"):
                continue  # SSE comment / keep-alive
            if line.startswith("data:"):
                data_lines.append(line[5:].lstrip())
                continue
            if line.strip() or not data_lines:
                continue  # other fields (event:, id:) are not used by Chat Completions
            data, data_lines = "\n".join(data_lines), []
            if data == "[DONE]":
                if not request.finish_reason:
                    request.finish_reason = "stop"
                return
            try:
                chunk = json.loads(data)
            except ValueError:
                raise EngineError("upstream_malformed", f"upstream sent a chunk that is not JSON: {data[:200]!r}") \
                    from None
            if not isinstance(chunk, dict):
                raise EngineError("upstream_malformed", f"upstream sent an unexpected chunk: {data[:200]!r}")
            if isinstance(chunk.get("error"), (dict, str)):
                err = chunk["error"]
                message = err.get("message") if isinstance(err, dict) else err
                raise EngineError("upstream_error", f"upstream error mid-stream: {message}")
            usage = chunk.get("usage")
            if isinstance(usage, dict):
                request.usage.input_tokens = int(usage.get("prompt_tokens") or request.usage.input_tokens)
                request.usage.output_tokens = int(usage.get("completion_tokens") or 0)
                details = usage.get("prompt_tokens_details") or {}
                request.usage.cached_tokens = int(details.get("cached_tokens") or 0)
                request.usage.evaluated_tokens = request.usage.input_tokens - request.usage.cached_tokens
            for choice in chunk.get("choices") or []:
                if not isinstance(choice, dict):
                    continue
                delta = (choice.get("delta") or {}).get("content")
                if delta:
                    yield delta
                if choice.get("finish_reason"):
                    finished = True
                    request.finish_reason = "length" if choice["finish_reason"] == "length" else "stop"
        if cancel.is_set():
            request.finish_reason = "cancelled"
            return
        if not finished:
            raise EngineError("upstream_disconnected", "upstream closed the stream mid-response (no finish_reason "
                                                      "and no [DONE])")
