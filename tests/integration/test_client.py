"""Flotilla's own async client and informer against a real API server process."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, Conflict, NotFound, Unavailable, load_kubeconfig
from flotilla.client import informer as informer_module
from flotilla.client.errors import ContinueExpired
from flotilla.client.informer import Informer
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually_async

CM = GroupVersionKind("", "v1", "ConfigMap")


def configmap(name: str, **data: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default"},
        "data": data,
    }


async def test_crud_apply_and_errors(server: ServerProcess) -> None:
    """CRUD, apply, a stale update (409) and delete work; failures raise typed errors."""
    async with Client(load_kubeconfig(server.kubeconfig), field_manager="client-test") as client:
        created = await client.create(configmap("c1", a="1"))
        assert (await client.get(CM, "c1", namespace="default"))["data"] == {"a": "1"}
        await client.patch(CM, "c1", {"data": {"b": "2"}}, namespace="default")
        applied = await client.apply(configmap("c2", z="9"))
        assert applied["metadata"]["managedFields"][0]["manager"] == "client-test"
        items, revision = await client.list(CM, namespace="default", limit=1)
        assert {"c1", "c2"} <= {i["metadata"]["name"] for i in items} and revision
        with pytest.raises(Conflict):
            await client.update(created)
        await client.delete(CM, "c1", namespace="default")
        with pytest.raises(NotFound):
            await client.get(CM, "c1", namespace="default")
        assert await client.delete(CM, "c1", namespace="default") is None


@pytest.mark.parametrize("compact", [False, True], ids=["dicts", "compact"])
async def test_informer_follows_changes_and_relists_after_history_is_gone(
    tmp_path: Path, compact: bool
) -> None:
    """An informer sees changes; after its resume point is compacted it relists and reports the difference."""
    small = ServerProcess(tmp_path / "hub", ["--history-window", "5", "--compaction-interval", "0.2"]).start()
    try:
        async with Client(load_kubeconfig(small.kubeconfig)) as client:
            informer = Informer(client, CM, namespace="default", watch_timeout=1, compact=compact)
            informer.add_index("prefix", lambda obj: (obj["metadata"]["name"].split("-")[0],))
            seen: list[tuple[str, str]] = []
            informer.add_handler(
                lambda kind, obj, old: seen.append((kind, (obj or old or {})["metadata"]["name"]))
            )
            informer.start()
            await informer.wait_synced(10)
            await client.create(configmap("live"))
            await eventually_async(lambda: ("ADDED", "live") in seen)
            await informer.stop()
            stale = informer.resource_version
            for i in range(10):
                await client.create(configmap(f"burst-{i}"))
            await client.delete(CM, "live", namespace="default")
            # The store replays any revision it has not compacted; wait until it compacted `stale`.
            await eventually_async(lambda: _compacted(client, stale))
            informer.resource_version = stale
            informer.start()
            await eventually_async(lambda: ("DELETED", "live") in seen and ("ADDED", "burst-9") in seen)
            assert "live" not in {key.name for key in informer.store}
            # The relist refiled its index: the deletion it reported is gone from it too.
            assert informer.indexed("prefix", "live") == []
            assert len(informer.indexed("prefix", "burst")) == 10
            await informer.stop()
    finally:
        small.stop()


@pytest.mark.parametrize("compact", [False, True], ids=["dicts", "compact"])
async def test_informer_indexes_follow_adds_changes_and_deletes(server: ServerProcess, compact: bool) -> None:
    """An index files each object under its values, refiles it when they change, drops it on delete."""
    async with Client(load_kubeconfig(server.kubeconfig), field_manager="client-test") as client:
        informer = Informer(client, CM, namespace="default", compact=compact)
        early, late = (f"indexed-{'compact' if compact else 'dicts'}-{when}" for when in ("early", "late"))
        await client.create({**configmap(early), "data": {"team": "a"}})
        informer.add_index(
            "team", lambda obj: [str(v) for k, v in (obj.get("data") or {}).items() if k == "team"]
        )
        informer.start()
        try:
            await informer.wait_synced(10)
            await client.create({**configmap(late), "data": {"team": "a"}})

            def filed(team: str) -> set[str]:
                return {obj["metadata"]["name"] for obj in informer.indexed("team", team)}

            await eventually_async(lambda: filed("a") == {early, late})
            await client.patch(CM, late, {"data": {"team": "b"}}, namespace="default")
            await eventually_async(lambda: filed("a") == {early} and filed("b") == {late})
            await client.patch(CM, early, {"data": {"team": None}}, namespace="default")
            await client.delete(CM, late, namespace="default")
            await eventually_async(lambda: not filed("a") and not filed("b"))
            assert early in {obj["metadata"]["name"] for obj in informer.list(namespace="default")}
            assert informer.list(namespace="elsewhere") == []
            # The cache drops managedFields (the server has them; no controller reads them from here).
            assert all("managedFields" not in obj["metadata"] for obj in informer.list())
            # An index added to a running informer files what is already cached.
            informer.add_index("name", lambda obj: (obj["metadata"]["name"],))
            assert [obj["metadata"]["name"] for obj in informer.indexed("name", early)] == [early]
        finally:
            await informer.stop()


async def test_unreachable_server_raises_unavailable(tmp_path: Path) -> None:
    """A server that is gone makes requests fail with Unavailable, not a raw aiohttp error."""
    stopped = ServerProcess(tmp_path / "gone").start()
    config = load_kubeconfig(stopped.kubeconfig)
    stopped.stop()
    async with Client(config, timeout=3) as client:
        with pytest.raises(Unavailable):
            await client.get(CM, "x", namespace="default")


class CompactedBetweenPages(Client):
    """A client whose first paged list is followed, before its second page is asked for, by
    writes that make the server compact past that list's revision (a big list on a busy hub)."""

    churned = False

    async def request(
        self, method: str, path: str, *, query: Mapping[str, Any] | None = None, **kw: Any
    ) -> Any:
        answer = await super().request(method, path, query=query, **kw)
        continued = isinstance(answer, dict) and (answer.get("metadata") or {}).get("continue")
        if method == "GET" and continued and not self.churned:
            self.churned = True
            revision = answer["metadata"]["resourceVersion"]
            for i in range(10):
                await self.apply(configmap("churn", i=str(i)))
            await eventually_async(lambda: _compacted(self, revision))
        return answer


async def test_a_continue_token_that_expires_falls_back_to_one_full_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paging raises ContinueExpired when the server compacted past the list's revision between two
    pages; `Client.list` and an informer's relist then list again whole, as client-go's pager does."""
    small = ServerProcess(tmp_path / "hub", ["--history-window", "5", "--compaction-interval", "0.2"]).start()
    try:
        config = load_kubeconfig(small.kubeconfig)
        async with Client(config) as client:
            for i in range(12):
                await client.create(configmap(f"paged-{i:02d}"))
        async with CompactedBetweenPages(config) as client:
            with pytest.raises(ContinueExpired):
                async for _ in client.list_pages(CM, namespace="default", limit=5):
                    pass
        async with CompactedBetweenPages(config) as client:
            items, revision = await client.list(CM, namespace="default", limit=5)
            names = {item["metadata"]["name"] for item in items}
            assert {f"paged-{i:02d}" for i in range(12)} | {"churn"} <= names and revision
        monkeypatch.setattr(informer_module, "LIST_PAGE", 5)
        async with CompactedBetweenPages(config) as client:
            informer = Informer(client, CM, namespace="default", compact=True)
            informer.start()
            await informer.wait_synced(20)
            assert client.churned
            assert {f"paged-{i:02d}" for i in range(12)} <= {key.name for key in informer.store}
            await informer.stop()
    finally:
        small.stop()


async def _compacted(client: Client, revision: str) -> bool:
    """Whether a watch from `revision` is answered 410 (its first event an ERROR)."""
    async for event in client.watch(CM, namespace="default", resource_version=revision, timeout_seconds=1):
        return event.type == "ERROR"
    return False
