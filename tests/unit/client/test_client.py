"""`Client.request` on its own transport, against an in-process aiohttp server: the request it sends,
how it reads answers, and which errors it raises."""

from __future__ import annotations

import asyncio
import itertools
import ssl
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import NameOID

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.pki.directory import create_ca, issue
from flotilla.client import APIStatusError, ClusterConfig, NotFound, Unavailable
from flotilla.client.client import APPLY_PATCH, Client

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
DISCOVERY = {
    "kind": "APIGroupDiscoveryList",
    "items": [
        {
            "metadata": {"name": ""},
            "versions": [
                {
                    "version": "v1",
                    "resources": [
                        {
                            "resource": "configmaps",
                            "responseKind": {"kind": "ConfigMap"},
                            "scope": "Namespaced",
                        }
                    ],
                }
            ],
        }
    ],
}


class Recorded:
    def __init__(self, request: web.Request, body: bytes) -> None:
        self.method = request.method
        self.target = request.raw_path
        self.headers = dict(request.headers)
        self.body = body


async def start(handler: Handler, ssl_context: ssl.SSLContext | None = None) -> tuple[web.AppRunner, int]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context)
    await site.start()
    port: int = runner.addresses[0][1]
    return runner, port


@pytest.fixture
async def recorder() -> AsyncIterator[tuple[list[Recorded], int]]:
    """A plain-HTTP server that records each request and answers it with what the path asks for."""
    seen: list[Recorded] = []

    async def handle(request: web.Request) -> web.StreamResponse:
        seen.append(Recorded(request, await request.read()))
        path = request.path
        if path in ("/api", "/apis"):
            return web.json_response(DISCOVERY if path == "/api" else {**DISCOVERY, "items": []})
        if "missing" in path.split("/"):
            return web.json_response(
                {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404, "message": "gone"},
                status=404,
            )
        if path.endswith("/broken"):
            return web.Response(status=500, text="boom")
        if path.endswith("/text"):
            return web.Response(text="plain words")
        if path.endswith("/empty"):
            return web.Response(status=200)
        if path.endswith("/slow"):
            await asyncio.sleep(1)
        return web.json_response({"kind": "Thing", "path": path})

    runner, port = await start(handle)
    yield seen, port
    await runner.cleanup()


async def test_requests_carry_the_target_headers_and_body_a_kubernetes_server_expects(
    recorder: tuple[list[Recorded], int],
) -> None:
    """The server URL's path prefix is kept, unsafe characters are escaped, the token and user agent
    are sent, and a body gets its type and length."""
    seen, port = recorder
    config = ClusterConfig(server=f"http://127.0.0.1:{port}/prefix/", token="secret-token")
    async with Client(config, user_agent="tester") as client:
        answer = await client.request(
            "PATCH",
            "/apis/x/v1/things/a b",
            query={"fieldManager": "m", "force": "true", "dryRun": None, "labelSelector": ""},
            body={"spec": {}},
            content_type=APPLY_PATCH,
        )
        await client.request("POST", "/api/v1/things")
    assert answer == {"kind": "Thing", "path": "/prefix/apis/x/v1/things/a b"}
    patch, post = seen
    assert (patch.method, patch.target) == (
        "PATCH",
        "/prefix/apis/x/v1/things/a%20b?fieldManager=m&force=true",
    )
    assert patch.headers["Authorization"] == "Bearer secret-token"
    assert patch.headers["User-Agent"] == "tester"
    assert patch.headers["Host"] == f"127.0.0.1:{port}"
    assert patch.headers["Accept"] == "application/json"
    assert patch.headers["Content-Type"] == APPLY_PATCH
    assert patch.body == b'{"spec":{}}' and patch.headers["Content-Length"] == str(len(patch.body))
    assert post.headers["Content-Length"] == "0" and post.body == b""


async def test_answers_are_read_as_json_text_or_nothing(recorder: tuple[list[Recorded], int]) -> None:
    _, port = recorder
    async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}")) as client:
        assert (await client.request("GET", "/x"))["kind"] == "Thing"
        assert await client.request("GET", "/text") == "plain words"
        assert await client.request("GET", "/empty") is None


async def test_failure_answers_raise_the_status_error_of_their_code(
    recorder: tuple[list[Recorded], int],
) -> None:
    """A Status body is kept as it is; any other body becomes the message of a synthesized Status."""
    _, port = recorder
    async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}")) as client:
        with pytest.raises(NotFound) as missing:
            await client.request("GET", "/missing")
        with pytest.raises(APIStatusError) as broken:
            await client.request("GET", "/broken")
    assert missing.value.message == "gone" and missing.value.reason == "NotFound"
    assert (broken.value.code, broken.value.message) == (500, "boom")


async def test_writes_asked_not_to_decode_return_none_and_still_raise_failures(
    recorder: tuple[list[Recorded], int],
) -> None:
    seen, port = recorder
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    missing = {**config_map, "metadata": {"name": "missing", "namespace": "default"}}
    async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}"), field_manager="m") as client:
        assert (await client.apply(config_map))["kind"] == "Thing"
        # mypy knows these return None; the test checks that they do.
        assert await client.apply(config_map, subresource="status", decode=False) is None  # type: ignore[func-returns-value]
        assert await client.create(config_map, decode=False) is None  # type: ignore[func-returns-value]
        with pytest.raises(NotFound):
            await client.apply(missing, decode=False)
        with pytest.raises(NotFound):
            await client.create({**missing, "metadata": {"name": "x", "namespace": "missing"}}, decode=False)
    writes = [(record.method, record.target) for record in seen if record.method != "GET"]
    assert writes[:3] == [
        ("PATCH", "/api/v1/namespaces/default/configmaps/c?fieldManager=m&force=true"),
        ("PATCH", "/api/v1/namespaces/default/configmaps/c/status?fieldManager=m&force=true"),
        ("POST", "/api/v1/namespaces/default/configmaps?fieldManager=m"),
    ]


async def test_a_request_past_its_timeout_raises_unavailable(recorder: tuple[list[Recorded], int]) -> None:
    _, port = recorder
    async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}")) as client:
        with pytest.raises(Unavailable, match="slow: TimeoutError"):
            await client.request("GET", "/slow", timeout=0.1)
        assert (await client.request("GET", "/x"))["kind"] == "Thing"  # the pool recovers


async def test_a_refused_connection_and_a_garbled_answer_raise_unavailable() -> None:
    async def garble(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"SPDY/3 200 OK\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garble, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}")) as client:
            with pytest.raises(Unavailable, match="bad status line"):
                await client.request("GET", "/x")
    finally:
        server.close()
    await server.wait_closed()
    async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}"), timeout=3) as client:
        with pytest.raises(Unavailable):
            await client.request("GET", "/x")


@pytest.fixture(scope="module")
def tls_files() -> tuple[bytes, ssl.SSLContext]:
    """A CA (PEM) and a server context whose certificate names only `hub.internal`."""
    now = datetime.now(UTC)
    ca, ca_key = create_ca("test-ca", now)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hub")])
    cert, key = issue(ca, ca_key, subject, now=now, server=True, dns_names=("hub.internal",))
    with tempfile.TemporaryDirectory() as directory:
        cert_path, key_path = Path(directory) / "tls.crt", Path(directory) / "tls.key"
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert_path, key_path)
    return ca.public_bytes(serialization.Encoding.PEM), context


async def test_tls_verifies_the_server_against_the_ca_and_the_tls_server_name(
    tls_files: tuple[bytes, ssl.SSLContext],
) -> None:
    """Reaching 127.0.0.1 with `tls-server-name: hub.internal` works; without it, the name check fails."""
    ca_pem, server_context = tls_files

    async def handle(request: web.Request) -> web.Response:
        return web.json_response({"kind": "Thing"})

    runner, port = await start(handle, server_context)
    try:
        named = ClusterConfig(
            server=f"https://127.0.0.1:{port}", ca_pem=ca_pem, tls_server_name="hub.internal"
        )
        async with Client(named) as client:
            answers: list[Any] = [await client.request("GET", "/x") for _ in range(3)]
        assert answers == [{"kind": "Thing"}] * 3
        unnamed = ClusterConfig(server=f"https://127.0.0.1:{port}", ca_pem=ca_pem)
        async with Client(unnamed) as client:
            with pytest.raises(Unavailable, match="certificate"):
                await client.request("GET", "/x")
    finally:
        await runner.cleanup()


async def test_watch_events_are_read_whatever_the_chunks_and_their_size() -> None:
    """Lines cut across chunks, blank keep-alive lines, an event over 512 KiB and a last line
    without a line feed all come out as events, in order."""
    large = {"type": "ADDED", "object": {"metadata": {"name": "large"}, "data": {"blob": "x" * 700_000}}}
    events = [
        {"type": "ADDED", "object": {"metadata": {"name": "a"}}},
        large,
        {"type": "MODIFIED", "object": {"metadata": {"name": "a"}}},
        {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "9"}}},
    ]
    stream = b"\n".join(orjson.dumps(event) for event in events)
    stream = stream.replace(b"\n", b"\n\n", 1)  # a blank line between the first two events
    cuts = [0, 7, 50, 100_000, 100_013, 690_000, len(stream) - 30, len(stream)]

    async def handle(request: web.Request) -> web.StreamResponse:
        if not request.query.get("watch"):
            return web.json_response(DISCOVERY)
        response = web.StreamResponse()
        response.content_type = "application/json"
        await response.prepare(request)
        for start, end in itertools.pairwise(cuts):
            await response.write(stream[start:end])
            await asyncio.sleep(0.005)
        return response

    runner, port = await start(handle)
    try:
        async with Client(ClusterConfig(server=f"http://127.0.0.1:{port}")) as client:
            seen = [event async for event in client.watch(CONFIG_MAP, namespace="default")]
    finally:
        await runner.cleanup()
    assert [(event.type, event.object) for event in seen] == [(e["type"], e["object"]) for e in events]
