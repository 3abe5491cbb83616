"""Dialling a WebSocket on a loopback server: an accepted handshake opens, a refused one keeps its body."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from flotilla.client.websocketdial import Refused, dial, handshake_trace

STATUS = b'{"kind":"Status","status":"Failure","message":"pods \\"nowhere\\" not found","code":404}'


async def _exec(request: web.Request) -> web.StreamResponse:
    if request.match_info["pod"] == "nowhere":
        return web.Response(status=404, body=STATUS, content_type="application/json")
    socket = web.WebSocketResponse(protocols=("v5.channel.k8s.io", "v4.channel.k8s.io"))
    await socket.prepare(request)
    async for message in socket:
        await socket.send_bytes(b"\x01" + message.data)
    return socket


@pytest.fixture
async def server() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_get("/pods/{pod}/exec", _exec)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_a_refused_handshake_comes_back_with_its_status_and_body(server: str) -> None:
    async with aiohttp.ClientSession(trace_configs=[handshake_trace()]) as session:
        answer = await dial(
            session,
            f"{server}/pods/nowhere/exec",
            headers=[],
            protocols=["v5.channel.k8s.io"],
            server_hostname=None,
        )
    assert isinstance(answer, Refused)
    assert (answer.status, answer.body) == (404, STATUS)
    assert ("Content-Type", "application/json") in answer.headers


async def test_an_accepted_handshake_opens_with_the_servers_choice(server: str) -> None:
    async with aiohttp.ClientSession(trace_configs=[handshake_trace()]) as session:
        socket = await dial(
            session,
            f"{server}/pods/web/exec",
            headers=[("X-Test", "1")],
            protocols=["v4.channel.k8s.io", "channel.k8s.io"],
            server_hostname=None,
        )
        assert not isinstance(socket, Refused)
        try:
            assert socket.protocol == "v4.channel.k8s.io"
            await socket.send_bytes(b"ping")
            assert (await socket.receive_bytes()) == b"\x01ping"
        finally:
            await socket.close()
