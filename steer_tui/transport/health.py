"""What a steer gateway says of itself: `GET /v1/health` on its port, asked without a WebSocket."""

from __future__ import annotations


async def gateway_info(ws_url: str, token: str | None = None, timeout: float = 3.0) -> dict | None:
    """What a steer gateway serves (`GET /v1/health` on the same port: engine, label, model), or
    None when it does not answer that (another server, an old gateway, an error)."""
    import asyncio
    import json
    import ssl
    from urllib.parse import urlsplit

    parts = urlsplit(ws_url)
    secure = parts.scheme == "wss"
    host, port = parts.hostname or "127.0.0.1", parts.port or (443 if secure else 80)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    request = (f"GET /v1/health HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}Connection: close\r\n\r\n").encode()
    writer = None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=ssl.create_default_context() if secure else None), timeout)
        writer.write(request)
        raw = await asyncio.wait_for(reader.read(65536), timeout)
        head, _, body = raw.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            return None
        info = json.loads(body)
        return info if isinstance(info, dict) else None
    except (OSError, asyncio.TimeoutError, ValueError, ssl.SSLError):
        return None
    finally:
        if writer is not None:
            writer.close()
