"""What a steer gateway serves, learnt on connect: a gateway URL in front of the embedded model
gets that model's edit format, and reports name the model that answered."""

from __future__ import annotations

import pytest

from steer_tui.config import Settings
from steer_tui.files import Document
from steer_tui.session import Session
from steer_tui.transport.backends import gateway_info, open_backend, resolve_backend
from steer_tui.transport.launcher import GatewayProcess

from .conftest import until
from tests.local_model import missing_reason


async def test_url_backend_learns_the_engine_behind_it(replay, calc):
    url, _engine = await replay(["fix_mean.txt"])
    client = await open_backend(resolve_backend(Settings(backend=url)))
    try:
        assert client.server_info["engine"] == "replay"
        session = Session(Document.read(calc), Settings(backend=url), client=client)
        await session.start(prewarm=False)
        assert session.server_engine == "replay"
        assert session.format == "search_replace"  # not the embedded model: blocks, as before
        assert session.server_model
    finally:
        await client.close()


async def test_a_server_that_is_not_a_steer_gateway_is_unknown():
    import asyncio

    async def not_steer(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(not_steer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        assert await gateway_info(f"ws://127.0.0.1:{port}/v1/responses") is None
    finally:
        server.close()
        await server.wait_closed()
    assert await gateway_info(f"ws://127.0.0.1:{port}/v1/responses", timeout=1) is None  # nothing listening


@pytest.mark.local_model
async def test_url_of_a_local_gateway_gets_the_embedded_models_format(calc):
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    gateway = await GatewayProcess.start(["--engine", "local"], timeout=600)
    try:
        settings = Settings(backend=gateway.url)
        client = await open_backend(resolve_backend(settings))
        try:
            session = Session(Document.read(calc), settings, client=client)
            await session.start(prewarm=False)
            await until(lambda: session.connection == "ready")
            assert session.server_engine == "local"
            assert session.format == "rewrite"
            assert "qwen" in (session.server_model or "").lower()
        finally:
            await client.close()
    finally:
        await gateway.stop()
