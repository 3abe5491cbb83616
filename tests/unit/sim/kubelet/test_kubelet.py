"""The kubelet component, alone and with the node simulator and scheduler: a pod's whole life in-process."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock
from flotilla.sim.kubelet import Kubelet
from flotilla.sim.kubescheduler import KubeScheduler
from flotilla.sim.nodes import NodeSimulator
from flotilla.sim.spec import Timing
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

JOB = GroupVersionKind("batch", "v1", "Job")


@asynccontextmanager
async def simulated_cluster(**spec: Any) -> AsyncIterator[tuple[LocalClient, NodeSimulator]]:
    """Nodes, scheduler and kubelet on an in-memory API server, as `flotilla sim` runs them."""
    cluster = cluster_spec(**spec)
    clock = ManualClock(START)
    async with embedded_api() as api:
        nodes = NodeSimulator(api.client("kubelet"), cluster, clock)
        components = [
            nodes,
            KubeScheduler(api.client("kube-scheduler"), cluster, clock),
            Kubelet(api.client("kubelet"), cluster, clock),
        ]
        for component in components:
            await component.start()
        try:
            yield api.client("kubectl"), nodes
        finally:
            for component in reversed(components):
                await component.stop()


def phase(client: LocalClient, name: str) -> str:
    return str(((client.peek(POD, name, namespace="default") or {}).get("status") or {}).get("phase", ""))


def is_ready(client: LocalClient, name: str) -> bool:
    return condition(client.peek(POD, name, namespace="default"), "Ready").get("status") == "True"


async def test_a_created_pod_is_bound_runs_and_is_gone_after_deletion() -> None:
    """Create → scheduled → Running and Ready with addresses → kubectl delete → deleted for good."""
    async with simulated_cluster(nodes=2) as (client, _):
        await client.create(POD, pod("web"))
        await eventually_async(lambda: is_ready(client, "web"))
        running = client.get(POD, "web", namespace="default")
        assert running is not None
        node = client.get(NODE, running["spec"]["nodeName"])
        assert await client.delete(POD, "web", namespace="default")
        await eventually_async(lambda: client.peek(POD, "web", namespace="default") is None)
        reasons = [
            e["reason"]
            for e in client.list(EVENT, namespace="default")
            if e["involvedObject"]["name"] == "web"
        ]
    assert node is not None
    status = running["status"]
    assert status["phase"] == "Running"
    internal = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
    assert status["hostIP"] == internal and status["hostIPs"] == [{"ip": internal}]
    assert ipaddress.ip_address(status["podIP"]) in ipaddress.ip_network(node["spec"]["podCIDR"])
    assert status["podIPs"] == [{"ip": status["podIP"]}]
    assert status["qosClass"] == "BestEffort" and status["startTime"]
    assert [c["type"] for c in status["conditions"]] == [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    (container,) = status["containerStatuses"]
    assert container["ready"] and container["started"] and container["state"]["running"]["startedAt"]
    assert container["image"] == "docker.io/library/nginx:latest"
    assert sorted(reasons) == ["Created", "Pulled", "Scheduled", "Started"]


async def test_kubelet_events_name_the_container_they_are_about() -> None:
    """Started and friends carry the container's fieldPath and the node as source, for kubectl describe."""
    async with simulated_cluster(nodes=1) as (client, _):
        created = await client.create(POD, pod("web"))
        await eventually_async(lambda: is_ready(client, "web"))
        started = await eventually_async(
            lambda: [e for e in client.list(EVENT, namespace="default") if e["reason"] == "Started"]
        )
    (event,) = started
    assert event["message"] == "Started container app"
    assert event["involvedObject"]["fieldPath"] == "spec.containers{app}"
    assert event["involvedObject"]["uid"] == created["metadata"]["uid"]
    assert event["source"] == {"component": "kubelet", "host": "test-node-0"}
    assert event["count"] == 1 and event["firstTimestamp"] == "2026-01-01T00:00:00Z"


async def test_pods_on_one_node_get_distinct_addresses() -> None:
    """Every running pod on a node has its own address from the node's range."""
    async with simulated_cluster(nodes=1) as (client, _):
        for index in range(4):
            await client.create(POD, pod(f"web-{index}"))
        for index in range(4):
            await eventually_async(lambda i=index: is_ready(client, f"web-{i}"))
        addresses = {client.peek(POD, f"web-{i}", namespace="default")["status"]["podIP"] for i in range(4)}  # type: ignore[index]
    assert len(addresses) == 4


async def test_a_job_pod_runs_to_completion() -> None:
    """A pod owned by a Job goes Running, then Succeeded with its containers terminated with exit code 0."""
    async with simulated_cluster(nodes=1) as (client, _):
        template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl:5.34"}]}}
        job = await client.create(
            JOB,
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "pi", "namespace": "default"},
                "spec": {"template": template},
            },
        )
        owner = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "name": "pi",
            "uid": job["metadata"]["uid"],
            "controller": True,
        }
        job_pod = pod("pi-abcde", restartPolicy="Never")
        job_pod["metadata"]["ownerReferences"] = [owner]
        await client.create(POD, job_pod)
        await eventually_async(lambda: phase(client, "pi-abcde") == "Succeeded")
        done = client.get(POD, "pi-abcde", namespace="default")
    assert done is not None
    (container,) = done["status"]["containerStatuses"]
    assert container["state"]["terminated"]["exitCode"] == 0
    assert container["state"]["terminated"]["reason"] == "Completed"
    assert condition(done, "Ready")["reason"] == "PodCompleted"


async def test_pods_wait_out_the_start_delay_on_the_work_queue() -> None:
    """With a pod_start delay the bound pod stays Pending for a while, then runs without being poked."""
    timing = Timing(pod_start=0.2, pod_complete=0, node_lease_renew=0, node_status_refresh=0)
    async with simulated_cluster(nodes=1, timing=timing) as (client, _):
        await client.create(POD, pod("slow"))
        await eventually_async(lambda: client.peek(POD, "slow", namespace="default")["spec"].get("nodeName"))  # type: ignore[index]
        assert phase(client, "slow") == "Pending"
        await eventually_async(lambda: is_ready(client, "slow"))


async def test_pods_on_a_node_that_is_not_ours_are_left_alone() -> None:
    """A node without kwok's marker has a real kubelet somewhere: its pods are not simulated."""
    async with simulated_cluster(nodes=1) as (client, _):
        await client.create(NODE, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "real"}})
        await client.create(POD, pod("elsewhere", nodeName="real"))
        await client.create(POD, pod("here", nodeName="test-node-0"))
        await eventually_async(lambda: is_ready(client, "here"))
        assert phase(client, "elsewhere") == "Pending"


async def test_a_dead_kubelet_starts_nothing_until_its_node_recovers() -> None:
    """On an unreachable node pods stay Pending, running ones lose Ready; recovery brings both back."""
    async with simulated_cluster(nodes=1) as (client, nodes):
        await client.create(POD, pod("before"))
        await eventually_async(lambda: is_ready(client, "before"))
        await nodes.set_not_ready(True)
        await client.create(POD, pod("during", nodeName="test-node-0"))
        await eventually_async(lambda: not is_ready(client, "before"))
        assert phase(client, "during") == "Pending"
        await client.delete(POD, "before", namespace="default")
        assert client.peek(POD, "before", namespace="default") is not None, (
            "a silent kubelet cannot finish a deletion"
        )
        await nodes.set_not_ready(False)
        await eventually_async(lambda: is_ready(client, "during"))
        await eventually_async(lambda: client.peek(POD, "before", namespace="default") is None)
