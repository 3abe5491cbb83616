"""What the simulated-cluster component tests share: an in-memory API server, fast timing, objects."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.sim.spec import ClusterSpec, Timing
from flotilla.storage.memory import MemoryBackend

POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
EVENT = GroupVersionKind("", "v1", "Event")

FAST = Timing(pod_start=0, pod_complete=0, node_lease_renew=0, node_status_refresh=0)
"""No delays and no heartbeat timer: tests drive time themselves."""


def cluster_spec(**overrides: Any) -> ClusterSpec:
    options: dict[str, Any] = {"nodes": 3, "timing": FAST}
    options.update(overrides)
    return ClusterSpec("test", **options)


@asynccontextmanager
async def embedded_api() -> AsyncIterator[EmbeddedAPI]:
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    try:
        yield api
    finally:
        await api.stop()


def pod(name: str, *, namespace: str = "default", cpu: str = "", **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "app", "image": "nginx"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [container], **spec},
    }


def condition(obj: dict[str, Any] | None, kind: str) -> dict[str, Any]:
    for found in ((obj or {}).get("status") or {}).get("conditions") or []:
        if found.get("type") == kind:
            return dict(found)
    return {}
