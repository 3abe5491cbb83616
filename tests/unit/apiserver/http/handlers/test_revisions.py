"""resourceVersion on the wire: lists at a revision, watches from one, 410 past compaction, bookmarks.

The handlers serve reads from the watch cache with kube-apiserver's semantics (reads.py, watch.py);
these tests send real HTTP requests to the API server's application on an in-memory store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.context import APISettings
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.http.app import build_app
from flotilla.apiserver.http.handlers.watch import INITIAL_EVENTS_END
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.users import UserInfo
from flotilla.storage.memory import MemoryBackend

CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))
SETTINGS = APISettings(future_revision_wait=0.05, watch_bookmark_interval=0.05)


class Admin:
    """Every request is the cluster admin's (the app has no TLS here to read a certificate from)."""

    async def authenticate(self, request: web.Request) -> UserInfo:
        return ADMIN


class Hub:
    def __init__(self, api: EmbeddedAPI, http: TestClient[web.Request, web.Application]) -> None:
        self.api = api
        self.http = http
        self.client: LocalClient = api.client("test")

    async def put(self, name: str, value: str = "1") -> int:
        """Create or update the ConfigMap `name`; the revision written."""
        found = self.client.get(CONFIG_MAP, name, namespace="default")
        if found is None:
            body = {"metadata": {"name": name, "namespace": "default"}, "data": {"v": value}}
            written = await self.client.create(CONFIG_MAP, body)
        else:
            written = await self.client.update(CONFIG_MAP, {**found, "data": {"v": value}})
        return int(written["metadata"]["resourceVersion"])

    async def delete(self, name: str) -> None:
        await self.client.delete(CONFIG_MAP, name, namespace="default")

    async def get(self, path: str, **query: str) -> tuple[int, dict[str, Any]]:
        response = await self.http.get(path, params=query)
        return response.status, await response.json()

    async def watch(self, count: int, **query: str) -> list[dict[str, Any]]:
        """The first `count` events of a watch on the ConfigMaps of `default`."""
        response = await self.http.get(CONFIGMAPS, params={"watch": "true", **query})
        assert response.status == 200
        events: list[dict[str, Any]] = []
        try:
            while len(events) < count:
                line = await response.content.readline()
                if not line:
                    break
                events.append(orjson.loads(line))
        finally:
            response.close()
        return events


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    api = EmbeddedAPI(MemoryBackend(), SETTINGS)
    await api.start()
    api.context.authenticator = Admin()
    try:
        async with TestClient(TestServer(build_app(api.context))) as http:
            yield Hub(api, http)
    finally:
        await api.stop()


def names(listed: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


def summary(event: dict[str, Any]) -> tuple[str, str, str]:
    meta = event["object"]["metadata"]
    return event["type"], meta.get("name", ""), meta["resourceVersion"]


async def test_a_list_without_resource_version_includes_every_acknowledged_write(hub: Hub) -> None:
    """No resourceVersion means most recent: the list's revision is the store's, its items all writes."""
    await hub.put("a")
    written = await hub.put("b")
    status, listed = await hub.get(CONFIGMAPS)
    assert status == 200
    assert names(listed) == ["a", "b"]
    assert int(listed["metadata"]["resourceVersion"]) >= written


async def test_a_list_at_a_revision_not_yet_reached_is_504_too_large_resource_version(hub: Hub) -> None:
    """resourceVersion=N waits for the cache to reach N; past future_revision_wait it is 504."""
    ahead = hub.api.backend.current_revision() + 100
    status, body = await hub.get(CONFIGMAPS, resourceVersion=str(ahead))
    assert status == 504
    assert body["reason"] == "Timeout"
    assert body["message"].startswith(f"Too large resource version: {ahead}, current: ")
    assert body["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"


async def test_an_exact_list_shows_the_collection_as_it_was_at_that_revision(hub: Hub) -> None:
    """resourceVersionMatch=Exact lists at N, from the store once the collection changed since."""
    await hub.put("a")
    then = await hub.put("b")
    await hub.delete("a")
    await hub.put("c")
    status, listed = await hub.get(CONFIGMAPS, resourceVersion=str(then), resourceVersionMatch="Exact")
    assert status == 200
    assert names(listed) == ["a", "b"]
    assert listed["metadata"]["resourceVersion"] == str(then)


async def test_the_pages_of_a_list_are_one_snapshot_until_compaction_expires_it(hub: Hub) -> None:
    """Later pages are read at the first page's revision whatever changed since; compacted, 410."""
    for name in ("a", "b", "c"):
        await hub.put(name)
    _, first = await hub.get(CONFIGMAPS, limit="1")
    token = first["metadata"]["continue"]
    await hub.delete("b")
    await hub.put("d")
    _, rest = await hub.get(CONFIGMAPS, limit="5", **{"continue": token})
    assert names(first) + names(rest) == ["a", "b", "c"]
    assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]

    await hub.api.backend.compact(hub.api.backend.current_revision())
    status, expired = await hub.get(CONFIGMAPS, limit="1", **{"continue": token})
    assert (status, expired["reason"]) == (410, "Expired")


async def test_a_watch_from_a_revision_replays_the_changes_after_it(hub: Hub) -> None:
    """resourceVersion=N starts the stream with every change after N, in order."""
    first = await hub.put("a")
    updated = await hub.put("a", "2")
    created = await hub.put("b")
    events = await hub.watch(2, resourceVersion=str(first))
    assert [summary(event) for event in events] == [
        ("MODIFIED", "a", str(updated)),
        ("ADDED", "b", str(created)),
    ]


async def test_a_watch_without_resource_version_starts_with_the_current_objects(hub: Hub) -> None:
    """No resourceVersion: an ADDED event for each object there is, at its own revision."""
    created = await hub.put("a")
    events = await hub.watch(1)
    assert [summary(event) for event in events] == [("ADDED", "a", str(created))]


async def test_a_watch_from_a_compacted_revision_is_an_in_stream_410_expired(hub: Hub) -> None:
    """The answer is 200 and its one event an ERROR Status 410 Expired naming both revisions."""
    first = await hub.put("a")
    await hub.put("a", "2")
    compacted = await hub.put("a", "3")
    await hub.api.backend.compact(compacted)
    (event,) = await hub.watch(2, resourceVersion=str(first))
    assert event["type"] == "ERROR"
    status = event["object"]
    assert (status["code"], status["reason"]) == (410, "Expired")
    assert status["message"] == f"too old resource version: {first} ({compacted})"


async def test_an_idle_watch_that_allows_bookmarks_gets_one_at_the_current_revision(hub: Hub) -> None:
    """With allowWatchBookmarks, an idle watch hears the cache's revision every bookmark interval."""
    written = await hub.put("a")
    (event,) = await hub.watch(1, resourceVersion=str(written), allowWatchBookmarks="true")
    assert event["type"] == "BOOKMARK"
    assert event["object"]["kind"] == "ConfigMap" and event["object"]["apiVersion"] == "v1"
    assert int(event["object"]["metadata"]["resourceVersion"]) >= written


async def test_send_initial_events_ends_the_initial_state_with_an_annotated_bookmark(hub: Hub) -> None:
    """sendInitialEvents: the current objects, then a BOOKMARK marked k8s.io/initial-events-end."""
    await hub.put("a")
    written = await hub.put("b")
    events = await hub.watch(
        3, sendInitialEvents="true", resourceVersionMatch="NotOlderThan", allowWatchBookmarks="true"
    )
    assert [event["type"] for event in events] == ["ADDED", "ADDED", "BOOKMARK"]
    end = events[2]["object"]["metadata"]
    assert end["annotations"] == {INITIAL_EVENTS_END: "true"}
    assert int(end["resourceVersion"]) >= written


async def test_send_initial_events_requires_bookmarks_and_not_older_than(hub: Hub) -> None:
    """Without resourceVersionMatch=NotOlderThan or allowWatchBookmarks the request is 422, as in kube."""
    response = await hub.http.get(CONFIGMAPS, params={"watch": "true", "sendInitialEvents": "true"})
    assert response.status == 422
    response = await hub.http.get(
        CONFIGMAPS,
        params={"watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan"},
    )
    assert response.status == 422
    assert "sendInitialEvents requires allowWatchBookmarks" in (await response.json())["message"]


async def test_watch_on_a_named_object_answers_that_object_alone(hub: Hub) -> None:
    """GET …/configmaps/a?watch=true is a get of a (kube's rule), never a watch of the collection."""
    await hub.put("a")
    await hub.put("b")
    status, body = await hub.get(f"{CONFIGMAPS}/a", watch="true")
    assert status == 200
    assert (body["kind"], body["metadata"]["name"]) == ("ConfigMap", "a")
