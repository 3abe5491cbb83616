"""Serving `/openapi/v2` and `/openapi/v3`: negotiation, ETag and 304, gzip, CRD changes, off-loop builds.

Real HTTP requests to the API server's application on an in-memory store.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.encoding.protobuf.openapiv2 import OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED
from flotilla.apiserver.http.app import build_app
from flotilla.apiserver.http.openapi.endpoints import OPENAPI
from flotilla.apiserver.users import UserInfo
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.apiserver.encoding.protobuf.gnostic import read_document
from tests.unit.apiserver.encoding.protobuf.test_openapiv2 import expected

CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))
WIDGET_CRD: dict[str, Any] = {
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}},
            }
        ],
    },
}
WIDGET_PATCH = "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"

HTTP = TestClient[web.Request, web.Application]


class Admin:
    """Every request is the cluster admin's (the app has no TLS here to read a certificate from)."""

    async def authenticate(self, request: web.Request) -> UserInfo:
        return ADMIN


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    embedded = EmbeddedAPI(MemoryBackend())
    await embedded.start()
    embedded.context.authenticator = Admin()
    try:
        yield embedded
    finally:
        await embedded.stop()


@pytest.fixture
def app(api: EmbeddedAPI) -> web.Application:
    return build_app(api.context)


@pytest.fixture
async def http(app: web.Application) -> AsyncIterator[HTTP]:
    """A client that shows bodies as sent (no automatic gunzip)."""
    async with TestClient(TestServer(app), auto_decompress=False) as client:
        yield client


async def fetch(http: HTTP, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """GET `path`; uncompressed unless `headers` ask otherwise (aiohttp asks for gzip by default)."""
    response = await http.get(path, headers={"Accept-Encoding": "identity", **headers})
    return response.status, dict(response.headers), await response.read()


async def test_client_go_gets_the_protobuf_form_of_the_json_document(http: HTTP) -> None:
    """Asked as client-go asks, the answer is gnostic protobuf that reads back as the JSON form."""
    status, headers, body = await fetch(http, "/openapi/v2", Accept=OPENAPI_V2_PROTOBUF_DEPRECATED)
    assert status == 200
    assert headers["Content-Type"] == OPENAPI_V2_PROTOBUF
    _, json_headers, json_body = await fetch(http, "/openapi/v2", Accept="application/json")
    assert json_headers["Content-Type"] == "application/json"
    document = orjson.loads(json_body)
    assert "io.k8s.api.apps.v1.Deployment" in document["definitions"]
    assert read_document(body) == expected(document)
    assert headers["Etag"] == json_headers["Etag"]


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("", "application/json"),
        ("*/*", "application/json"),
        ("application/*", "application/json"),
        (f"application/json;q=0.5, {OPENAPI_V2_PROTOBUF}", OPENAPI_V2_PROTOBUF),
        (f"{OPENAPI_V2_PROTOBUF};q=0, application/json", "application/json"),
    ],
)
async def test_the_form_follows_the_accept_header(http: HTTP, accept: str, content_type: str) -> None:
    status, headers, _ = await fetch(http, "/openapi/v2", Accept=accept)
    assert status == 200
    assert headers["Content-Type"] == content_type


async def test_nothing_acceptable_is_a_406_status(http: HTTP) -> None:
    status, _, body = await fetch(http, "/openapi/v2", Accept="text/html")
    assert status == 406
    answer = orjson.loads(body)
    assert answer["kind"] == "Status" and answer["reason"] == "NotAcceptable"
    assert "application/json" in answer["message"]


@pytest.mark.parametrize("path", ["/openapi/v2", "/openapi/v3", "/openapi/v3/apis/apps/v1"])
async def test_a_client_holding_the_current_etag_gets_304(http: HTTP, path: str) -> None:
    status, headers, body = await fetch(http, path)
    assert status == 200 and body
    etag = headers["Etag"]
    status, headers, body = await fetch(http, path, **{"If-None-Match": etag})
    assert (status, body) == (304, b"")
    assert headers["Etag"] == etag
    status, _, body = await fetch(http, path, **{"If-None-Match": '"stale"'})
    assert status == 200 and body


@pytest.mark.parametrize("accept", ["application/json", OPENAPI_V2_PROTOBUF])
async def test_a_client_taking_gzip_gets_it(http: HTTP, accept: str) -> None:
    _, _, plain = await fetch(http, "/openapi/v2", Accept=accept)
    status, headers, body = await fetch(
        http, "/openapi/v2", Accept=accept, **{"Accept-Encoding": "gzip, deflate"}
    )
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == plain
    assert len(body) < len(plain) / 3


async def test_a_crd_shows_up_in_both_documents_and_goes_again(api: EmbeddedAPI, http: HTTP) -> None:
    """Served schemas changed, documents rebuilt: the custom kind's definition and PATCH appear, then go."""
    _, headers, _ = await fetch(http, "/openapi/v2")
    before = headers["Etag"]
    client = api.client("test")
    await client.create(CRD, WIDGET_CRD)
    await eventually_async(lambda: served_widgets(api), what="widgets served")
    document = await v2_document(http)
    assert "com.example.v1.Widget" in document["definitions"]
    assert "fieldValidation" in [p["name"] for p in document["paths"][WIDGET_PATCH]["patch"]["parameters"]]
    _, headers, _ = await fetch(http, "/openapi/v2")
    assert headers["Etag"] != before
    root = orjson.loads((await fetch(http, "/openapi/v3"))[2])
    assert "apis/example.com/v1" in root["paths"]
    await client.delete(CRD, "widgets.example.com")
    await eventually_async(lambda: not served_widgets(api), what="widgets no longer served")
    assert "com.example.v1.Widget" not in (await v2_document(http))["definitions"]


def served_widgets(api: EmbeddedAPI) -> bool:
    return api.registry.lookup("example.com", "v1", "widgets") is not None


async def v2_document(http: HTTP) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads((await fetch(http, "/openapi/v2"))[2])
    return document


async def test_the_document_is_built_off_the_event_loop(api: EmbeddedAPI, http: HTTP) -> None:
    """While the first request waits for the build, the event loop keeps running other work."""
    ticks = 0
    building = True

    async def tick() -> None:
        nonlocal ticks
        while building:
            ticks += 1
            await asyncio.sleep(0.001)

    ticker = asyncio.create_task(tick())
    try:
        status, _, _ = await fetch(http, "/openapi/v2", Accept=OPENAPI_V2_PROTOBUF)
    finally:
        building = False
        await ticker
    assert status == 200
    assert ticks > 10, f"the loop ran {ticks} times during a build of several hundred milliseconds"


async def test_the_document_is_built_once_per_change_of_the_served_schemas(
    api: EmbeddedAPI, app: web.Application
) -> None:
    """Requests between two changes of what is served get the same encoded document, not a new build."""
    cache = app[OPENAPI]
    first = await cache.v2(api.context)
    assert await cache.v2(api.context) is first
    await api.client("test").create(CRD, WIDGET_CRD)
    await eventually_async(lambda: served_widgets(api), what="widgets served")
    rebuilt = await cache.v2(api.context)
    assert rebuilt is not first
    assert await cache.v2(api.context) is rebuilt
