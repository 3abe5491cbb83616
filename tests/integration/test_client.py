"""Flotilla's own async client and informer against a real API server process."""

from __future__ import annotations

from pathlib import Path

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, Conflict, NotFound, Unavailable, load_kubeconfig
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


async def test_informer_follows_changes_and_relists_after_history_is_gone(tmp_path: Path) -> None:
    """An informer sees changes; after its resume point is compacted it relists and reports the difference."""
    small = ServerProcess(tmp_path / "hub", ["--history-window", "5", "--compaction-interval", "0.2"]).start()
    try:
        async with Client(load_kubeconfig(small.kubeconfig)) as client:
            informer = Informer(client, CM, namespace="default", watch_timeout=1)
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
            await informer.stop()
    finally:
        small.stop()


async def test_unreachable_server_raises_unavailable(tmp_path: Path) -> None:
    """A server that is gone makes requests fail with Unavailable, not a raw aiohttp error."""
    stopped = ServerProcess(tmp_path / "gone").start()
    config = load_kubeconfig(stopped.kubeconfig)
    stopped.stop()
    async with Client(config, timeout=3) as client:
        with pytest.raises(Unavailable):
            await client.get(CM, "x", namespace="default")


async def _compacted(client: Client, revision: str) -> bool:
    """Whether a watch from `revision` is answered 410 (its first event an ERROR)."""
    async for event in client.watch(CM, namespace="default", resource_version=revision, timeout_seconds=1):
        return event.type == "ERROR"
    return False
