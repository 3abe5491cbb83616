"""The watch protocol on the wire: start points, selectors, bookmarks, initial events, 410 and timeouts."""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import ServerProcess
from tests.support.waiting import eventually


@pytest.fixture(scope="module")
def tls(server: ServerProcess) -> ssl.SSLContext:
    pki = server.data_dir / "pki"
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return context


class API:
    def __init__(self, server: ServerProcess, tls: ssl.SSLContext, namespace: str) -> None:
        self.server = server
        self.tls = tls
        self.base = f"/api/v1/namespaces/{namespace}/configmaps"

    def call(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.server.url}{path}", data=data, method=method, headers={"Content-Type": content_type}
        )
        with urllib.request.urlopen(request, context=self.tls, timeout=30) as response:
            return json.loads(response.read())

    def create(self, name: str, labels: dict[str, str] | None = None) -> Any:
        return self.call("POST", self.base, {"metadata": {"name": name, "labels": labels or {}}})

    def label(self, name: str, labels: dict[str, Any]) -> Any:
        return self.call(
            "PATCH", f"{self.base}/{name}", {"metadata": {"labels": labels}}, "application/merge-patch+json"
        )

    def events(
        self,
        query: str,
        count: int,
        timeout: float = 10,
        *,
        then: Callable[[], object] | None = None,
        after: int = 0,
    ) -> list[dict[str, Any]]:
        """Read `count` events of a watch (or until the server ends it); once `after` of them have
        come (the watch is open and serving), call `then` — its changes arrive live."""
        request = urllib.request.Request(f"{self.server.url}{self.base}?watch=true&{query}")
        found: list[dict[str, Any]] = []
        with urllib.request.urlopen(request, context=self.tls, timeout=timeout) as response:
            while len(found) < count:
                if then is not None and len(found) == after:
                    then()
                line = response.readline()
                if not line:
                    break
                found.append(json.loads(line))
        return found


@pytest.fixture
def api(server: ServerProcess, tls: ssl.SSLContext) -> API:
    namespace = f"w-{uuid.uuid4().hex[:8]}"
    client = API(server, tls, namespace)
    client.call("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    return client


def test_watch_without_resource_version_starts_with_current_state(api: API) -> None:
    """No resourceVersion: synthetic ADDED events for existing objects, then live changes."""
    api.create("a")
    api.create("b")
    events = api.events("", 3, then=lambda: api.create("c"), after=2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("ADDED", "a"),
        ("ADDED", "b"),
        ("ADDED", "c"),
    ]


def test_watch_from_a_resource_version_replays_only_later_changes(api: API) -> None:
    """resourceVersion=N replays exactly the changes after N, in order."""
    first = api.create("x")
    api.label("x", {"v": "1"})
    api.create("y")
    events = api.events(f"resourceVersion={first['metadata']['resourceVersion']}", 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("MODIFIED", "x"),
        ("ADDED", "y"),
    ]
    revisions = [int(e["object"]["metadata"]["resourceVersion"]) for e in events]
    assert revisions == sorted(revisions) and revisions[0] > int(first["metadata"]["resourceVersion"])


def test_label_selector_transitions_become_added_and_deleted(api: API) -> None:
    """An object that starts or stops matching a selector appears as ADDED or DELETED."""
    start = api.create("sel")["metadata"]["resourceVersion"]
    api.label("sel", {"team": "a"})
    api.label("sel", {"team": "b"})
    events = api.events(f"resourceVersion={start}&labelSelector=team%3Da", 2)
    assert [e["type"] for e in events] == ["ADDED", "DELETED"]


def test_bookmarks_and_initial_events_end(api: API) -> None:
    """sendInitialEvents ends the initial state with an annotated BOOKMARK."""
    api.create("i1")
    events = api.events(
        "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", 2
    )
    assert events[0]["type"] == "ADDED"
    assert events[1]["type"] == "BOOKMARK"
    assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
    assert events[1]["object"]["kind"] == "ConfigMap"


def test_send_initial_events_requires_not_older_than(api: API) -> None:
    """sendInitialEvents without resourceVersionMatch=NotOlderThan is 422."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        api.events("sendInitialEvents=true&allowWatchBookmarks=true", 1)
    refused.value.close()
    assert refused.value.code == 422


def test_timeout_ends_the_stream_with_a_bookmark(api: API) -> None:
    """timeoutSeconds closes the stream; watches allowing bookmarks get one before it ends."""
    revision = api.create("t")["metadata"]["resourceVersion"]
    started = time.monotonic()
    events = api.events(f"resourceVersion={revision}&timeoutSeconds=1&allowWatchBookmarks=true", 10)
    assert 0.8 < time.monotonic() - started < 8
    assert [e["type"] for e in events] == ["BOOKMARK"]
    assert int(events[0]["object"]["metadata"]["resourceVersion"]) >= int(revision)


def test_resource_version_older_than_history_gets_410_in_stream(tmp_path: Path) -> None:
    """Resuming from before the store's compaction point answers an ERROR event with a 410 Expired Status."""
    small = ServerProcess(
        tmp_path / "small", extra_args=["--history-window", "5", "--compaction-interval", "0.2"]
    ).start()
    try:
        pki = small.data_dir / "pki"
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        client = API(small, context, "default")
        first = client.create("old")["metadata"]["resourceVersion"]
        for i in range(10):
            client.label("old", {"n": str(i)})
        # Until the compactor (every 0.2 s) has compacted past `first`, the store still replays it.
        events = eventually(
            lambda: (found := client.events(f"resourceVersion={first}", 1))[0]["type"] == "ERROR" and found,
            what="a compaction past the first revision",
        )
        assert events[0]["type"] == "ERROR"
        assert events[0]["object"]["code"] == 410
        assert events[0]["object"]["reason"] == "Expired"
        assert "too old resource version" in events[0]["object"]["message"]
    finally:
        small.stop()


def test_table_watch_sends_rows(api: API) -> None:
    """A watch asking for Tables gets one-row tables, with column definitions only in the first."""
    api.create("row1")
    request = urllib.request.Request(
        f"{api.server.url}{api.base}?watch=true",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"},
    )
    with urllib.request.urlopen(request, context=api.tls, timeout=10) as response:
        first = json.loads(response.readline())
        api.create("row2")  # the watch is open: row2 comes live
        second = json.loads(response.readline())
    assert first["object"]["kind"] == "Table"
    assert [c["name"] for c in first["object"]["columnDefinitions"]][:2] == ["Name", "Data"]
    assert first["object"]["rows"][0]["cells"][0] == "row1"
    assert not second["object"].get("columnDefinitions")
    assert second["object"]["rows"][0]["cells"][0] == "row2"
