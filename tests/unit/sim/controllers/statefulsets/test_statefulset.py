"""The StatefulSet controller: ordered creation, ordered scale-down and rolling updates by ordinal."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.sim.controllers.framework.kinds import (
    CONTROLLER_REVISION,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    STATEFUL_SET,
)
from flotilla.sim.controllers.statefulsets.statefulpods import POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL
from flotilla.sim.controllers.statefulsets.statefulset import StatefulSetController
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import run_pods_until, set_ready
from tests.unit.sim.controllers.harness import pod_template, running


def stateful_set(replicas: int = 3, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": pod_template({"app": "db"}),
            **spec,
        },
    }


def pod_names(client: LocalClient) -> list[str]:
    return sorted(pod["metadata"]["name"] for pod in client.list(POD, namespace="default"))


def status_of(client: LocalClient) -> dict[str, Any]:
    found = client.get(STATEFUL_SET, "db", namespace="default")
    assert found is not None
    return found.get("status") or {}


def pod(client: LocalClient, name: str) -> dict[str, Any]:
    found = client.get(POD, name, namespace="default")
    assert found is not None
    return found


async def test_ordered_ready_creates_each_pod_after_the_previous_is_ready(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """db-0 first; db-1 only once db-0 is Running and Ready; then db-2."""
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set())
        await eventually_async(lambda: pod_names(client) == ["db-0"])
        await eventually_async(lambda: status_of(client).get("replicas") == 1)
        assert pod_names(client) == ["db-0"]
        await set_ready(client, pod(client, "db-0"))
        await eventually_async(lambda: pod_names(client) == ["db-0", "db-1"])
        await set_ready(client, pod(client, "db-1"))
        await eventually_async(lambda: pod_names(client) == ["db-0", "db-1", "db-2"])
        await set_ready(client, pod(client, "db-2"))
        await eventually_async(lambda: status_of(client).get("readyReplicas") == 3)
        status = status_of(client)
        assert status["availableReplicas"] == 3 and status["currentReplicas"] == 3
        assert status["updatedReplicas"] == 3 and status["currentRevision"] == status["updateRevision"]


async def test_pods_carry_their_identity(api: EmbeddedAPI, client: LocalClient) -> None:
    """Name and index labels, the revision label, hostname and subdomain, a claim per template."""
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set(replicas=1, volumeClaimTemplates=[claim]))
        await eventually_async(lambda: pod_names(client) == ["db-0"])
        await eventually_async(lambda: bool(status_of(client).get("updateRevision")))
        first = pod(client, "db-0")
        labels = first["metadata"]["labels"]
        assert labels[POD_NAME_LABEL] == "db-0" and labels[POD_INDEX_LABEL] == "0"
        assert labels[REVISION_LABEL] == status_of(client)["updateRevision"]
        assert labels[REVISION_LABEL].startswith("db-")
        assert first["spec"]["hostname"] == "db-0" and first["spec"]["subdomain"] == "db"
        assert {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}} in first["spec"][
            "volumes"
        ]
        assert client.get(PERSISTENT_VOLUME_CLAIM, "data-db-0", namespace="default") is not None
        [revision] = client.list(CONTROLLER_REVISION, namespace="default")
        assert revision["metadata"]["name"] == labels[REVISION_LABEL] and revision["revision"] == 1


async def test_parallel_pod_management_creates_all_pods_at_once(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """No waiting for readiness with podManagementPolicy Parallel."""
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set(podManagementPolicy="Parallel"))
        await eventually_async(lambda: pod_names(client) == ["db-0", "db-1", "db-2"])


async def test_scaling_down_removes_the_highest_ordinal_first(api: EmbeddedAPI, client: LocalClient) -> None:
    """From three to one: db-2 goes before db-1, and db-0 stays."""
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set())
        await run_pods_until(client, "default", lambda: status_of(client).get("readyReplicas") == 3)
        deleted: list[str] = []

        def record(event: CacheEvent) -> None:
            if event.type == "DELETED":
                deleted.append(event.object.name)

        client.on_change(POD, record)
        await client.patch(STATEFUL_SET, "db", {"spec": {"replicas": 1}}, namespace="default")
        await run_pods_until(client, "default", lambda: pod_names(client) == ["db-0"])
        assert deleted == ["db-2", "db-1"]
        await eventually_async(lambda: status_of(client).get("replicas") == 1)


async def test_a_rolling_update_replaces_pods_from_the_highest_ordinal(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """A new image: db-2, then db-1, then db-0 get the new revision; then it becomes current."""
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set())
        await run_pods_until(client, "default", lambda: status_of(client).get("readyReplicas") == 3)
        old_revision = status_of(client)["currentRevision"]
        await client.patch(
            STATEFUL_SET,
            "db",
            {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}},
            namespace="default",
        )
        order: list[str] = []

        def step() -> bool:
            for found in client.list(POD, namespace="default"):
                name = found["metadata"]["name"]
                if found["metadata"]["labels"][REVISION_LABEL] != old_revision and name not in order:
                    order.append(name)
            status = status_of(client)
            return status.get("currentRevision") == status.get("updateRevision") != old_revision and (
                status.get("readyReplicas") == 3
            )

        await run_pods_until(client, "default", step)
        assert order == ["db-2", "db-1", "db-0"]
        assert all(
            p["spec"]["containers"][0]["image"] == "nginx:1.28" for p in client.list(POD, namespace="default")
        )
        assert status_of(client)["updatedReplicas"] == 3


async def test_a_partition_keeps_lower_ordinals_on_the_old_revision(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """partition 2: only db-2 is updated; the current revision stays the old one."""
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set(updateStrategy=strategy))
        await run_pods_until(client, "default", lambda: status_of(client).get("readyReplicas") == 3)
        old_revision = status_of(client)["currentRevision"]
        await client.patch(
            STATEFUL_SET,
            "db",
            {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}},
            namespace="default",
        )
        await run_pods_until(
            client,
            "default",
            lambda: (
                status_of(client).get("updatedReplicas") == 1 and status_of(client).get("readyReplicas") == 3
            ),
        )
        assert pod(client, "db-0")["metadata"]["labels"][REVISION_LABEL] == old_revision
        assert pod(client, "db-2")["metadata"]["labels"][REVISION_LABEL] != old_revision
        assert status_of(client)["currentRevision"] == old_revision


async def test_rolling_back_renumbers_the_earlier_revision(api: EmbeddedAPI, client: LocalClient) -> None:
    """Going back to the first template reuses its ControllerRevision as revision 3."""
    image = {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}}
    back = {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}}}
    async with running(api, StatefulSetController):
        await client.create(STATEFUL_SET, stateful_set(replicas=1))
        await run_pods_until(client, "default", lambda: status_of(client).get("readyReplicas") == 1)
        first = status_of(client)["currentRevision"]
        await client.patch(STATEFUL_SET, "db", image, namespace="default")
        await run_pods_until(
            client, "default", lambda: status_of(client).get("currentRevision") not in (None, first)
        )
        await client.patch(STATEFUL_SET, "db", back, namespace="default")
        await run_pods_until(
            client,
            "default",
            lambda: (
                status_of(client).get("currentRevision") == first
                and status_of(client).get("readyReplicas") == 1
            ),
        )
        revisions = {
            r["metadata"]["name"]: r["revision"]
            for r in client.list(CONTROLLER_REVISION, namespace="default")
        }
        assert revisions[first] == 3 and sorted(revisions.values()) == [2, 3]
