"""The node simulator: registration, leases, heartbeats, cordon taints and the NotReady fault."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from flotilla.api.times import format_micro_time
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock
from flotilla.sim.nodes import NodeSimulator
from flotilla.sim.nodes.objects import NODE_LEASE_NAMESPACE, NodeHealth, is_managed
from flotilla.sim.spec import Timing
from tests.support.waiting import eventually_async
from tests.unit.sim.nodes.harness import (
    FAST,
    LEASE,
    NODE,
    POD,
    cluster_spec,
    condition,
    embedded_api,
    pod,
)

START = datetime(2026, 1, 1, tzinfo=UTC)
ZONED = {"topology.kubernetes.io/region": "eu-west", "topology.kubernetes.io/zone": "eu-west-a,eu-west-b"}


def taint_keys(node: dict | None) -> set[tuple[str, str]]:
    return {(t["key"], t["effect"]) for t in ((node or {}).get("spec") or {}).get("taints") or []}


async def test_nodes_are_registered_with_capacity_labels_and_conditions() -> None:
    """Every node of the spec appears Ready with its capacity, topology labels (zones round-robin), info."""
    spec = cluster_spec(nodes=3, node_cpu="4", node_memory="16Gi", node_pods=50, labels=ZONED)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), spec, ManualClock(START))
        await nodes.start()
        try:
            client = api.client("test")
            found = [client.get(NODE, spec.node_name(i)) for i in range(3)]
        finally:
            await nodes.stop()
    assert all(n is not None and is_managed(n) for n in found)
    first, second, third = found
    assert first is not None and second is not None and third is not None
    expected = {"cpu": "4", "memory": "16Gi", "pods": "50", "ephemeral-storage": "100Gi"}
    assert first["status"]["capacity"] == expected == first["status"]["allocatable"]
    assert [n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in (first, second, third)] == [
        "eu-west-a",
        "eu-west-b",
        "eu-west-a",
    ]
    labels = first["metadata"]["labels"]
    assert labels["topology.kubernetes.io/region"] == "eu-west"
    assert labels["kubernetes.io/hostname"] == "test-node-0"
    assert labels["kubernetes.io/os"] == "linux" and labels["kubernetes.io/arch"] == "amd64"
    assert labels["node.kubernetes.io/instance-type"] and labels["type"] == "kwok"
    assert {c["type"]: c["status"] for c in first["status"]["conditions"]} == {
        "NetworkUnavailable": "False",
        "MemoryPressure": "False",
        "DiskPressure": "False",
        "PIDPressure": "False",
        "Ready": "True",
    }
    assert condition(first, "Ready")["lastHeartbeatTime"] == "2026-01-01T00:00:00Z"
    info = first["status"]["nodeInfo"]
    assert info["kubeletVersion"] == spec.kubernetes_version and info["operatingSystem"] == "linux"
    internal = [a["address"] for n in found for a in n["status"]["addresses"] if a["type"] == "InternalIP"]
    assert len(set(internal)) == 3
    assert len({n["spec"]["podCIDR"] for n in found}) == 3


async def test_each_node_lease_is_renewed_with_a_micro_time() -> None:
    """A node's Lease names its holder and owner and moves its renewTime on each renewal."""
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=2), clock)
        await nodes.start()
        try:
            client = api.client("test")
            lease = client.get(LEASE, "test-node-1", namespace=NODE_LEASE_NAMESPACE)
            node = client.get(NODE, "test-node-1")
            clock.advance(10.5)
            await nodes.renew_leases()
            renewed = client.get(LEASE, "test-node-1", namespace=NODE_LEASE_NAMESPACE)
        finally:
            await nodes.stop()
    assert lease is not None and renewed is not None and node is not None
    assert lease["spec"]["holderIdentity"] == "test-node-1"
    assert lease["spec"]["leaseDurationSeconds"] == 40
    assert lease["spec"]["renewTime"] == "2026-01-01T00:00:00.000000Z"
    assert renewed["spec"]["renewTime"] == "2026-01-01T00:00:10.500000Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", renewed["spec"]["renewTime"])
    assert lease["metadata"]["ownerReferences"][0]["uid"] == node["metadata"]["uid"]


async def test_one_heartbeat_timer_renews_every_lease_and_refreshes_node_status() -> None:
    """With a renewal period set, leases and then heartbeat times follow the clock without being asked."""
    clock = ManualClock(START)
    timing = Timing(pod_start=0, pod_complete=0, node_lease_renew=0.01, node_status_refresh=0.02)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=2, timing=timing), clock)
        await nodes.start()
        client = api.client("test")
        try:
            clock.advance(60)
            wanted = format_micro_time(clock.now())
            await eventually_async(
                lambda: all(
                    (client.peek(LEASE, f"test-node-{i}", namespace=NODE_LEASE_NAMESPACE) or {})["spec"][
                        "renewTime"
                    ]
                    == wanted
                    for i in range(2)
                )
            )
            await eventually_async(
                lambda: (
                    condition(client.peek(NODE, "test-node-0"), "Ready").get("lastHeartbeatTime")
                    == "2026-01-01T00:01:00Z"
                )
            )
        finally:
            await nodes.stop()
    assert nodes._heartbeat is None


async def test_cordon_adds_the_unschedulable_taint_and_uncordon_removes_it() -> None:
    """`spec.unschedulable` brings the node controller's NoSchedule taint; user taints stay untouched."""
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=1), ManualClock(START))
        await nodes.start()
        client = api.client("kubectl")
        try:
            user_taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
            await client.patch(NODE, "test-node-0", {"spec": {"unschedulable": True, "taints": [user_taint]}})
            cordoned = await eventually_async(
                lambda: (
                    (n := client.peek(NODE, "test-node-0"))
                    and ("node.kubernetes.io/unschedulable", "NoSchedule") in taint_keys(n)
                    and n
                )
            )
            await client.patch(NODE, "test-node-0", {"spec": {"unschedulable": None}})
            uncordoned = await eventually_async(
                lambda: (
                    (n := client.peek(NODE, "test-node-0"))
                    and ("node.kubernetes.io/unschedulable", "NoSchedule") not in taint_keys(n)
                    and n
                )
            )
        finally:
            await nodes.stop()
    added = next(t for t in cordoned["spec"]["taints"] if t["key"] == "node.kubernetes.io/unschedulable")
    assert added["timeAdded"] == "2026-01-01T00:00:00Z"
    assert taint_keys(cordoned) == {
        ("dedicated", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    }
    assert taint_keys(uncordoned) == {("dedicated", "NoSchedule")}


async def test_unreachable_nodes_go_unknown_lose_their_leases_and_recover() -> None:
    """The NotReady fault silences kubelets: Unknown, unreachable taints, no renewals, pods not Ready."""
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=1), clock)
        await nodes.start()
        client = api.client("test")
        try:
            running = pod("web", nodeName="test-node-0")
            created = await client.create(POD, running)

            def ready(obj: dict) -> None:
                obj["status"]["phase"] = "Running"
                obj["status"]["conditions"] = [{"type": "Ready", "status": "True"}]

            await client.mutate(
                POD, created["metadata"]["name"], ready, namespace="default", subresource="status"
            )
            clock.advance(30)
            await nodes.set_not_ready(True)
            down = client.get(NODE, "test-node-0")
            pod_down = client.get(POD, "web", namespace="default")
            clock.advance(30)
            await nodes.renew_leases()
            lease_down = client.get(LEASE, "test-node-0", namespace=NODE_LEASE_NAMESPACE)
            await nodes.set_not_ready(False)
            up = client.get(NODE, "test-node-0")
            lease_up = client.get(LEASE, "test-node-0", namespace=NODE_LEASE_NAMESPACE)
        finally:
            await nodes.stop()
    assert nodes.not_ready is False
    ready_down = condition(down, "Ready")
    assert ready_down["status"] == "Unknown" and ready_down["reason"] == "NodeStatusUnknown"
    assert ready_down["message"] == "Kubelet stopped posting node status."
    assert ready_down["lastHeartbeatTime"] == "2026-01-01T00:00:00Z"
    assert condition(down, "MemoryPressure")["status"] == "Unknown"
    assert taint_keys(down) == {
        ("node.kubernetes.io/unreachable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
    }
    assert condition(pod_down, "Ready")["status"] == "False"
    assert lease_down is not None and lease_down["spec"]["renewTime"] == "2026-01-01T00:00:00.000000Z"
    assert condition(up, "Ready")["status"] == "True" and condition(up, "Ready")["reason"] == "KubeletReady"
    assert taint_keys(up) == set()
    assert lease_up is not None and lease_up["spec"]["renewTime"] == "2026-01-01T00:01:00.000000Z"


async def test_a_not_ready_kubelet_keeps_renewing_and_gets_the_not_ready_taint() -> None:
    """`unreachable=False`: Ready=False from a live kubelet, not-ready taints, leases still renewed."""
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=1), clock)
        await nodes.start()
        client = api.client("test")
        try:
            await nodes.set_not_ready(True, unreachable=False)
            clock.advance(10)
            await nodes.renew_leases()
            node = client.get(NODE, "test-node-0")
            lease = client.get(LEASE, "test-node-0", namespace=NODE_LEASE_NAMESPACE)
        finally:
            await nodes.stop()
    assert nodes.health is NodeHealth.NOT_READY
    assert (
        condition(node, "Ready")["status"] == "False"
        and condition(node, "Ready")["reason"] == "KubeletNotReady"
    )
    assert condition(node, "MemoryPressure")["status"] == "False"
    assert taint_keys(node) == {
        ("node.kubernetes.io/not-ready", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute"),
    }
    assert lease is not None and lease["spec"]["renewTime"] == "2026-01-01T00:00:10.000000Z"


async def test_a_restarted_simulator_keeps_existing_nodes_and_refreshes_their_status() -> None:
    """Nodes that exist already keep labels and spec; their conditions get fresh heartbeats."""
    clock = ManualClock(START)
    async with embedded_api() as api:
        client = api.client("test")
        first = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=1), clock)
        await first.start()
        await first.stop()
        await client.patch(NODE, "test-node-0", {"metadata": {"labels": {"team": "blue"}}})
        clock.advance(120)
        second = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=1), clock)
        await second.start()
        try:
            node = client.get(NODE, "test-node-0")
        finally:
            await second.stop()
    assert node is not None and node["metadata"]["labels"]["team"] == "blue"
    ready = condition(node, "Ready")
    assert ready["lastHeartbeatTime"] == "2026-01-01T00:02:00Z"
    assert ready["lastTransitionTime"] == "2026-01-01T00:00:00Z"


async def test_a_deleted_node_is_not_recreated_nor_heartbeated() -> None:
    """Deleting a node (as kubectl would) stops its lease renewals until the simulator restarts."""
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster_spec(nodes=2, timing=FAST), clock)
        await nodes.start()
        client: LocalClient = api.client("kubectl")
        try:
            await client.delete(NODE, "test-node-1")
            await client.delete(LEASE, "test-node-1", namespace=NODE_LEASE_NAMESPACE)
            await nodes.renew_leases()
            gone = client.get(LEASE, "test-node-1", namespace=NODE_LEASE_NAMESPACE)
            kept = client.get(LEASE, "test-node-0", namespace=NODE_LEASE_NAMESPACE)
            node = client.get(NODE, "test-node-1")
        finally:
            await nodes.stop()
    assert gone is None and node is None and kept is not None
