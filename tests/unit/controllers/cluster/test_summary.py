"""Node and resource summaries of a member, from node and pod lists as a member's API returns them."""

from __future__ import annotations

from typing import Any

from flotilla.controllers.cluster.summary import node_ready, node_summary, resource_summary


def node(name: str, *, ready: bool = True, **allocatable: str) -> dict[str, Any]:
    resources = {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi", **allocatable}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "capacity": dict(resources),
            "allocatable": resources,
            "conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True" if ready else "Unknown", "reason": "KubeletReady"},
            ],
        },
    }


def container(name: str, **requests: str) -> dict[str, Any]:
    return {"name": name, "image": "nginx", "resources": {"requests": requests} if requests else {}}


def pod(
    name: str,
    containers: list[dict[str, Any]],
    *,
    node_name: str = "",
    phase: str = "Running",
    init: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": containers}
    if node_name:
        spec["nodeName"] = node_name
    if init:
        spec["initContainers"] = init
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
        "status": {"phase": phase},
    }


NODES = [node("n1"), node("n2", memory="15902848Ki"), node("n3", ready=False)]


def test_node_summary_counts_all_nodes_and_the_ready_ones() -> None:
    """totalNum counts every node, readyNum only those whose Ready condition is True."""
    summary = node_summary(NODES)
    assert summary.to_object() == {"totalNum": 3, "readyNum": 2}
    assert not node_ready(NODES[2])


def test_allocatable_sums_the_ready_nodes_only() -> None:
    """A NotReady node's capacity is not offered; quantities add exactly and print as kube prints."""
    summary = resource_summary(NODES, [])
    assert summary.allocatable == {
        "cpu": "8",
        "ephemeral-storage": "200Gi",
        "memory": str(16 * 1024 * 1024 + 15902848) + "Ki",
        "pods": "220",
    }


def test_scheduled_unfinished_pods_are_allocated_with_their_count() -> None:
    """Requests of pods bound to nodes add up, Succeeded and Failed pods do not, and `pods` counts them."""
    pods = [
        pod(
            "web-1",
            [container("web", cpu="250m", memory="64Mi"), container("proxy", cpu="100m")],
            node_name="n1",
        ),
        pod("web-2", [container("web", cpu="250m", memory="64Mi")], node_name="n2", phase="Pending"),
        pod("batch", [container("job", cpu="2", memory="1Gi")], node_name="n1", phase="Succeeded"),
        pod("crashed", [container("job", cpu="2")], node_name="n2", phase="Failed"),
        pod("best-effort", [container("app")], node_name="n2"),
    ]
    summary = resource_summary(NODES, pods)
    assert summary.allocated == {"cpu": "600m", "memory": "128Mi", "pods": "3"}
    assert summary.allocating == {}


def test_pending_unscheduled_pods_are_allocating() -> None:
    """Pods without a node count as allocating: the estimator subtracts them from what is free."""
    pods = [
        pod("waiting", [container("app", cpu="1", memory="2Gi")], phase="Pending"),
        pod("waiting-2", [container("app", cpu="500m")], phase="Pending"),
    ]
    summary = resource_summary(NODES, pods)
    assert summary.allocating == {"cpu": "1500m", "memory": "2Gi", "pods": "2"}
    assert summary.allocated == {}


def test_a_pod_requests_its_largest_init_container_when_that_exceeds_its_containers() -> None:
    """Init containers run alone, so a pod needs the larger of the init phase and the app phase."""
    pods = [pod("migrate", [container("app", cpu="200m")], node_name="n1", init=[container("init", cpu="1")])]
    assert resource_summary(NODES, pods).allocated == {"cpu": "1", "pods": "1"}


def test_empty_lists_are_left_out_of_the_status() -> None:
    """A member with no pods reports allocatable only, as Go's omitempty would."""
    assert set(resource_summary(NODES, []).to_object()) == {"allocatable"}


def test_unreadable_quantities_are_skipped_not_fatal() -> None:
    """A node or pod quantity that cannot be parsed is left out; the rest still counts."""
    nodes = [node("n1", cpu="lots")]
    pods = [
        pod("odd", [container("app", cpu="a-bit")], node_name="n1"),
        pod("ok", [container("app", memory="1Gi")], node_name="n1"),
    ]
    summary = resource_summary(nodes, pods)
    assert "cpu" not in summary.allocatable
    assert summary.allocatable["pods"] == "110"
    assert summary.allocated == {"memory": "1Gi", "pods": "2"}
