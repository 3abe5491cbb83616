"""`Transport` with several endpoints, against in-process servers on loopback: a dead or unavailable
endpoint moves requests to the next, and only what cannot act twice is sent again."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, ClusterConfig, Unavailable
from flotilla.client.client import Client
from tests.unit.client.test_client import DISCOVERY, start

CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")


def dead_endpoint() -> str:
    """A loopback URL nothing listens on (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class Server:
    """An in-process API server stand-in that counts requests by method and path."""

    def __init__(self, *, status: int = 200) -> None:
        self.status = status
        self.seen: list[tuple[str, str]] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.method, request.path))
        if self.status != 200:
            return web.json_response({"kind": "Status", "code": self.status}, status=self.status)
        if request.path in ("/api", "/apis"):
            return web.json_response(DISCOVERY if request.path == "/api" else {**DISCOVERY, "items": []})
        if request.query.get("watch") == "true":
            response = web.StreamResponse()
            await response.prepare(request)
            await response.write(
                b'{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}\n'
            )
            return response
        if request.path == "/readyz":
            return web.Response(text="ok")
        return web.json_response({"kind": "ConfigMap", "metadata": {"name": "a"}})


@asynccontextmanager
async def serving(server: Server) -> AsyncIterator[str]:
    runner, port = await start(server.handle)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def breaking_after_the_request() -> AsyncIterator[tuple[str, list[bytes]]]:
    """A server that reads each request whole, then closes the connection without answering (it
    died after acting, as far as the client can tell)."""
    received: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        received.append(head + await reader.readexactly(length))
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", received
    finally:
        server.close()
        await server.wait_closed()


def config(*servers: str) -> ClusterConfig:
    return ClusterConfig(server=servers[0]).with_endpoints(servers[1:])


async def test_a_dead_first_endpoint_moves_every_request_to_the_next() -> None:
    live = Server()
    async with serving(live) as url, Client(config(dead_endpoint(), url)) as client:
        assert (await client.get(CONFIG_MAP, "a", namespace="default"))["metadata"]["name"] == "a"
        assert client.server == url and client.endpoint_moves == 1
        await client.request("POST", "/api/v1/namespaces/default/configmaps", body={"kind": "ConfigMap"})
        assert client.endpoint_moves == 1  # it stays on the live endpoint
    assert ("POST", "/api/v1/namespaces/default/configmaps") in live.seen


async def test_a_post_refused_at_connect_is_sent_to_the_next_endpoint() -> None:
    """The dead endpoint never saw it, so it cannot act twice."""
    live = Server()
    async with serving(live) as url, Client(config(dead_endpoint(), url)) as client:
        await client.request("POST", "/api/v1/namespaces/default/configmaps", body={"kind": "ConfigMap"})
    assert live.seen == [("POST", "/api/v1/namespaces/default/configmaps")]


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_a_write_whose_connection_broke_after_sending_is_not_resent(method: str) -> None:
    """It may have committed: the caller gets Unavailable, the next request goes to the next endpoint."""
    live = Server()
    async with (
        breaking_after_the_request() as (broken, received),
        serving(live) as url,
        Client(config(broken, url)) as client,
    ):
        with pytest.raises(Unavailable, match=broken):
            await client.request(method, "/api/v1/namespaces/default/configmaps/a", body={"data": {}})
        assert len(received) == 1 and live.seen == []
        assert client.server == url
        await client.request("GET", "/api/v1/namespaces/default/configmaps/a")
    assert live.seen == [("GET", "/api/v1/namespaces/default/configmaps/a")]


async def test_a_get_whose_connection_broke_is_resent_to_the_next_endpoint() -> None:
    live = Server()
    async with (
        breaking_after_the_request() as (broken, received),
        serving(live) as url,
        Client(config(broken, url)) as client,
    ):
        answer = await client.request("GET", "/api/v1/namespaces/default/configmaps/a")
    assert answer["kind"] == "ConfigMap"
    assert len(received) == 2  # the pool's own retry on a fresh connection, then the next endpoint
    assert live.seen == [("GET", "/api/v1/namespaces/default/configmaps/a")]


async def test_a_503_moves_on_and_resends_only_idempotent_requests() -> None:
    unavailable, live = Server(status=503), Server()
    async with serving(unavailable) as first, serving(live) as second:
        async with Client(config(first, second)) as client:
            assert (await client.request("GET", "/api/v1/x"))["kind"] == "ConfigMap"
            assert client.server == second
        async with Client(config(first, second)) as client:
            with pytest.raises(APIStatusError) as refused:
                await client.request("POST", "/api/v1/y", body={})
            assert refused.value.code == 503 and client.server == second
    assert ("POST", "/api/v1/y") not in live.seen


async def test_when_every_endpoint_is_dead_the_request_is_unavailable() -> None:
    async with Client(config(dead_endpoint(), dead_endpoint()), timeout=3) as client:
        with pytest.raises(Unavailable):
            await client.request("GET", "/api/v1/x")
        assert client.endpoint_moves == 2  # both tried, back at the first for the next request


async def test_a_watch_and_a_probe_start_on_the_next_live_endpoint() -> None:
    unavailable, live = Server(status=503), Server()
    async with serving(unavailable) as first, serving(live) as second:
        async with Client(config(first, second)) as client:
            assert await client.text("/readyz") == (200, "ok")
        async with Client(config(dead_endpoint(), second)) as client:
            await client.discover()
            events = [event async for event in client.watch(CONFIG_MAP, namespace="default")]
    assert [event.type for event in events] == ["ADDED"]
    assert any(path.endswith("/configmaps") for _, path in live.seen)
