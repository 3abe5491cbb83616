"""The simulated kube-scheduler on an in-memory API server: binding, conditions, events, retries on events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock
from flotilla.sim.kubescheduler import KubeScheduler
from flotilla.sim.nodes import NodeSimulator
from tests.support.waiting import eventually_async
from tests.unit.sim.nodes.harness import (
    EVENT,
    NODE,
    POD,
    cluster_spec,
    condition,
    embedded_api,
    pod,
)

START = datetime(2026, 1, 1, tzinfo=UTC)


@asynccontextmanager
async def scheduled_cluster(**spec: Any) -> AsyncIterator[tuple[LocalClient, KubeScheduler]]:
    """Nodes and a scheduler (no kubelet: pods stay Pending once bound)."""
    cluster = cluster_spec(**spec)
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster, clock)
        scheduler = KubeScheduler(api.client("kube-scheduler"), cluster, clock)
        await nodes.start()
        await scheduler.start()
        try:
            yield api.client("kubectl"), scheduler
        finally:
            await scheduler.stop()
            await nodes.stop()


def node_of(client: LocalClient, name: str) -> str:
    found = client.peek(POD, name, namespace="default") or {}
    return str((found.get("spec") or {}).get("nodeName") or "")


def events_for(client: LocalClient, name: str) -> list[dict[str, Any]]:
    return [e for e in client.list(EVENT, namespace="default") if e["involvedObject"]["name"] == name]


async def test_a_pending_pod_is_bound_and_marked_scheduled_with_an_event() -> None:
    """spec.nodeName, PodScheduled=True and a Scheduled event that names the pod as involved object."""
    async with scheduled_cluster(nodes=2) as (client, _):
        created = await client.create(POD, pod("web"))
        node_name = await eventually_async(lambda: node_of(client, "web"))
        bound = client.get(POD, "web", namespace="default")
        events = await eventually_async(lambda: events_for(client, "web"))
    assert node_name in ("test-node-0", "test-node-1")
    assert condition(bound, "PodScheduled")["status"] == "True"
    (event,) = events
    assert event["reason"] == "Scheduled" and event["type"] == "Normal"
    assert event["message"] == f"Successfully assigned default/web to {node_name}"
    assert event["involvedObject"]["uid"] == created["metadata"]["uid"]
    assert event["involvedObject"]["kind"] == "Pod"
    assert event["reportingComponent"] == "default-scheduler"


async def test_an_unschedulable_pod_gets_kubes_message_and_is_retried_when_room_appears() -> None:
    """Too little cpu: PodScheduled=False/Unschedulable and FailedScheduling; freed cpu binds it."""
    async with scheduled_cluster(nodes=1, node_cpu="1") as (client, scheduler):
        await client.create(POD, pod("first", cpu="600m"))
        await eventually_async(lambda: node_of(client, "first"))
        await client.create(POD, pod("second", cpu="600m"))
        waiting = await eventually_async(
            lambda: (
                condition(client.peek(POD, "second", namespace="default"), "PodScheduled").get("reason")
                == "Unschedulable"
                and client.get(POD, "second", namespace="default")
            )
        )
        failed = await eventually_async(
            lambda: [e for e in events_for(client, "second") if e["reason"] == "FailedScheduling"]
        )
        assert scheduler.usage("test-node-0").requested.milli_cpu == 600
        # No kubelet here to finish a graceful deletion: force it, as `kubectl delete --force` does.
        await client.delete(POD, "first", namespace="default", grace_period_seconds=0)
        node_name = await eventually_async(lambda: node_of(client, "second"))
        rebound = client.get(POD, "second", namespace="default")
    message = (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    scheduled = condition(waiting, "PodScheduled")
    assert scheduled["status"] == "False" and scheduled["message"] == message
    assert failed[0]["message"] == message and failed[0]["type"] == "Warning"
    assert node_name == "test-node-0"
    assert condition(rebound, "PodScheduled")["status"] == "True"
    assert "reason" not in condition(rebound, "PodScheduled")


async def test_a_cordoned_node_gets_no_new_pods_until_uncordoned() -> None:
    """kubectl cordon keeps new pods off a node; uncordoning lets the waiting pod in."""
    async with scheduled_cluster(nodes=1) as (client, _):
        await client.patch(NODE, "test-node-0", {"spec": {"unschedulable": True}})
        await client.create(POD, pod("web"))
        waiting = await eventually_async(
            lambda: condition(client.peek(POD, "web", namespace="default"), "PodScheduled").get("message")
        )
        await client.patch(NODE, "test-node-0", {"spec": {"unschedulable": None}})
        node_name = await eventually_async(lambda: node_of(client, "web"))
    assert waiting == (
        "0/1 nodes are available: 1 node(s) were unschedulable. "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
    assert node_name == "test-node-0"


async def test_pods_land_where_their_selectors_and_tolerations_allow() -> None:
    """nodeSelector picks the labelled node; a tainted node takes only the pod that tolerates it."""
    async with scheduled_cluster(nodes=3) as (client, _):
        await client.patch(NODE, "test-node-2", {"metadata": {"labels": {"disk": "ssd"}}})
        taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
        await client.patch(NODE, "test-node-0", {"spec": {"taints": [taint]}})
        await client.patch(NODE, "test-node-1", {"spec": {"taints": [taint]}})
        await client.create(POD, pod("ssd", nodeSelector={"disk": "ssd"}))
        toleration = {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["test-node-1"]}
                            ]
                        }
                    ]
                }
            }
        }
        await client.create(POD, pod("db", tolerations=[toleration], affinity=affinity))
        await client.create(POD, pod("plain", nodeSelector={"disk": "hdd"}))
        ssd = await eventually_async(lambda: node_of(client, "ssd"))
        db = await eventually_async(lambda: node_of(client, "db"))
        plain = await eventually_async(
            lambda: condition(client.peek(POD, "plain", namespace="default"), "PodScheduled").get("message")
        )
    assert ssd == "test-node-2" and db == "test-node-1"
    assert plain == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "2 node(s) had untolerated taint {dedicated: db}. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


async def test_pods_for_another_scheduler_or_already_bound_are_left_alone() -> None:
    """schedulerName other than default-scheduler, and pods with a nodeName, are not touched."""
    async with scheduled_cluster(nodes=1) as (client, _):
        await client.create(POD, pod("custom", schedulerName="my-scheduler"))
        await client.create(POD, pod("pinned", nodeName="elsewhere"))
        await client.create(POD, pod("probe"))
        await eventually_async(lambda: node_of(client, "probe"))
        custom = client.get(POD, "custom", namespace="default")
        pinned = client.get(POD, "pinned", namespace="default")
    assert custom is not None and not custom["spec"].get("nodeName") and not condition(custom, "PodScheduled")
    assert pinned is not None and pinned["spec"]["nodeName"] == "elsewhere"


async def test_replicas_spread_over_nodes_by_least_allocation() -> None:
    """Equal pods go to the emptiest node each time, so three pods use three nodes."""
    async with scheduled_cluster(nodes=3) as (client, _):
        for index in range(3):
            await client.create(POD, pod(f"web-{index}", cpu="1"))
        placed = [await eventually_async(lambda i=index: node_of(client, f"web-{i}")) for index in range(3)]
    assert sorted(placed) == ["test-node-0", "test-node-1", "test-node-2"]
