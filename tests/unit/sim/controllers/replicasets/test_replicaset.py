"""The ReplicaSet controller on an in-memory API server, with the test standing in for the kubelet."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock, SystemClock
from flotilla.sim.controllers.framework.kinds import POD, REPLICA_SET
from flotilla.sim.controllers.podowners import pods
from flotilla.sim.controllers.replicasets.replicaset import ReplicaSetController, replica_set_status
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import pods_of, ready_all, set_ready
from tests.unit.sim.controllers.harness import pod_template, running


def replica_set(name: str = "web", replicas: int = 3, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": pod_template({"app": name}),
            **spec,
        },
    }


def status_of(client: LocalClient, name: str = "web") -> dict[str, Any]:
    found = client.get(REPLICA_SET, name, namespace="default")
    assert found is not None
    return found.get("status") or {}


async def test_a_replica_set_creates_its_pods_owned_and_named_after_it(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Three replicas: three pods `web-xxxxx`, controlled by the ReplicaSet, carrying the template labels."""
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set())
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 3)
        for pod in pods_of(client, "default", uid):
            assert pod["metadata"]["name"].startswith("web-") and len(pod["metadata"]["name"]) == 9
            assert pod["metadata"]["labels"] == {"app": "web"}
            [reference] = pod["metadata"]["ownerReferences"]
            assert reference["kind"] == "ReplicaSet" and reference["controller"] is True
            assert reference["blockOwnerDeletion"] is True
        await eventually_async(lambda: status_of(client).get("replicas") == 3)
        assert status_of(client).get("readyReplicas") is None


async def test_status_follows_the_readiness_the_kubelet_reports(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Ready pods count as ready and available; observedGeneration follows the spec."""
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set())
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 3)
        await ready_all(client, pods_of(client, "default", uid))
        await eventually_async(lambda: status_of(client).get("availableReplicas") == 3)
        status = status_of(client)
        assert status["readyReplicas"] == 3 and status["fullyLabeledReplicas"] == 3
        assert status["observedGeneration"] == 1


async def test_scaling_down_deletes_unready_pods_before_ready_ones(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """From three to one, the two pods that are not ready go and the ready one stays."""
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set())
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 3)
        survivor = pods_of(client, "default", uid)[1]
        await set_ready(client, survivor)
        await client.patch(REPLICA_SET, "web", {"spec": {"replicas": 1}}, namespace="default")
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 1)
        assert pods_of(client, "default", uid)[0]["metadata"]["name"] == survivor["metadata"]["name"]
        await eventually_async(lambda: status_of(client).get("observedGeneration") == 2)


async def test_a_deleted_pod_is_replaced(api: EmbeddedAPI, client: LocalClient) -> None:
    """The controller keeps the count: a pod deleted by someone else comes back under a new name."""
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set(replicas=2))
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 2)
        victim = pods_of(client, "default", uid)[0]["metadata"]["name"]
        await client.delete(POD, victim, namespace="default")
        await eventually_async(
            lambda: (
                len(pods_of(client, "default", uid)) == 2
                and victim not in {p["metadata"]["name"] for p in pods_of(client, "default", uid)}
            )
        )


async def test_an_orphan_pod_matching_the_selector_is_adopted(api: EmbeddedAPI, client: LocalClient) -> None:
    """A standalone pod with the selected labels becomes one of the replicas instead of a new pod."""
    stray = {"apiVersion": "v1", "kind": "Pod", **pod_template({"app": "web"})}
    stray["metadata"].update(name="stray", namespace="default")
    await client.create(POD, stray)
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set(replicas=2))
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 2)
        assert "stray" in {p["metadata"]["name"] for p in pods_of(client, "default", uid)}


async def test_a_pod_relabelled_out_of_the_selector_is_released_and_replaced(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """Changing a pod's labels frees it from the ReplicaSet, which makes a new one."""
    async with running(api, ReplicaSetController):
        created = await client.create(REPLICA_SET, replica_set(replicas=1))
        uid = created["metadata"]["uid"]
        await eventually_async(lambda: len(pods_of(client, "default", uid)) == 1)
        name = pods_of(client, "default", uid)[0]["metadata"]["name"]
        await client.patch(POD, name, {"metadata": {"labels": {"app": "debug"}}}, namespace="default")
        await eventually_async(
            lambda: (
                len(pods_of(client, "default", uid)) == 1
                and pods_of(client, "default", uid)[0]["metadata"]["name"] != name
            )
        )
        released = client.get(POD, name, namespace="default")
        assert released is not None and "ownerReferences" not in released["metadata"]


def test_availability_waits_for_min_ready_seconds() -> None:
    """A pod ready for less than minReadySeconds is ready but not yet available."""
    clock = ManualClock()
    replica = replica_set(replicas=1, minReadySeconds=10)
    replica["metadata"]["uid"] = "u"
    since = clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    pod = {
        "metadata": {"name": "web-a", "labels": {"app": "web"}},
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": since}],
        },
    }
    early = replica_set_status(replica, [pod], None, clock.now() + timedelta(seconds=5))
    late = replica_set_status(replica, [pod], None, clock.now() + timedelta(seconds=10))
    assert early.get("readyReplicas") == 1 and "availableReplicas" not in early
    assert late["availableReplicas"] == 1
    assert pods.seconds_to_availability(pod, 10, clock.now() + timedelta(seconds=4)) == 6


def test_deletion_order_prefers_unscheduled_then_pending_then_unready_then_newest() -> None:
    """kube's ranking: unassigned < Pending < not ready < ready; newer before older among equals."""
    now = SystemClock().now()

    def pod(name: str, node: str, phase: str, ready: bool, age: int) -> dict[str, Any]:
        created = (now - timedelta(seconds=age)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {
            "metadata": {"name": name, "creationTimestamp": created},
            "spec": {"nodeName": node} if node else {},
            "status": {
                "phase": phase,
                "conditions": [
                    {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": created}
                ],
            },
        }

    ordered = pods.deletion_order(
        [
            pod("old-ready", "n1", "Running", True, 4000),
            pod("new-ready", "n2", "Running", True, 10),
            pod("unready", "n1", "Running", False, 5000),
            pod("pending", "n1", "Pending", False, 5000),
            pod("unscheduled", "", "Pending", False, 5000),
        ],
        now,
    )
    assert [p["metadata"]["name"] for p in ordered] == [
        "unscheduled",
        "pending",
        "unready",
        "new-ready",
        "old-ready",
    ]
