"""The simulated kube-scheduler's pure core: requests, filters, kube's messages and the choice of node."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.sim.kubescheduler.decision import fit_error_message, schedule
from flotilla.sim.kubescheduler.filters import Rejection, check_node_affinity, check_resources, check_taints
from flotilla.sim.kubescheduler.resources import NodeUsage, pod_request

GI = 1024**3


def node(name: str, *, cpu: str = "4", memory: str = "8Gi", pods: str = "110", **spec: Any) -> dict[str, Any]:
    labels = spec.pop("labels", {})
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def pod(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": list(containers), **spec},
    }


def container(cpu: str = "", memory: str = "", **extra: Any) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"name": "c", "image": "nginx", "resources": {"requests": requests}, **extra}


def used(cpu_milli: int = 0, memory: int = 0, pods: int = 0) -> NodeUsage:
    usage = NodeUsage(pods=pods, non_zero_milli_cpu=cpu_milli, non_zero_memory=memory)
    usage.requested.milli_cpu = cpu_milli
    usage.requested.memory = memory
    return usage


# -- requests ------------------------------------------------------------------------------------


def test_a_pod_requests_the_sum_of_its_containers_and_at_least_its_largest_init_container() -> None:
    """App containers add up; a plain init container runs alone, so only the largest one counts."""
    request = pod_request(
        pod(
            container("250m", "1Gi"),
            container("250m"),
            initContainers=[container("2", "512Mi"), container("1")],
        )
    )
    assert request.requests.milli_cpu == 2000
    assert request.requests.memory == GI


def test_sidecars_run_beside_the_app_and_overhead_comes_on_top() -> None:
    """An init container with restartPolicy Always adds to the pod's request, as does the overhead."""
    sidecar = container("100m", restartPolicy="Always")
    request = pod_request(pod(container("500m"), initContainers=[sidecar], overhead={"cpu": "50m"}))
    assert request.requests.milli_cpu == 650


def test_scoring_assumes_defaults_for_containers_without_requests() -> None:
    """kube scores a container that asks for nothing as 100m cpu and 200Mi memory."""
    request = pod_request(pod(container(), container("1")))
    assert request.requests.milli_cpu == 1000 and request.requests.memory == 0
    assert request.non_zero_milli_cpu == 1100
    assert request.non_zero_memory == 2 * 200 * 1024 * 1024


# -- filters -------------------------------------------------------------------------------------


def test_the_first_untolerated_hard_taint_rejects_a_node_in_kubes_words() -> None:
    """PreferNoSchedule is ignored; the first NoSchedule/NoExecute taint not tolerated is named."""
    tainted = node(
        "n",
        taints=[
            {"key": "soft", "effect": "PreferNoSchedule"},
            {"key": "gpu", "value": "true", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"},
        ],
    )
    assert check_taints(pod(container()), tainted) == Rejection(
        ("node(s) had untolerated taint {gpu: true}",)
    )
    tolerant = pod(container(), tolerations=[{"key": "gpu", "operator": "Exists"}])
    assert check_taints(tolerant, tainted) == Rejection(
        ("node(s) had untolerated taint {node.kubernetes.io/unreachable: }",)
    )


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


@pytest.mark.parametrize(
    ("expression", "fits"),
    [
        ({"key": "zone", "operator": "In", "values": ["a", "b"]}, True),
        ({"key": "zone", "operator": "NotIn", "values": ["a"]}, False),
        ({"key": "absent", "operator": "NotIn", "values": ["a"]}, True),
        ({"key": "zone", "operator": "Exists"}, True),
        ({"key": "zone", "operator": "DoesNotExist"}, False),
        ({"key": "cores", "operator": "Gt", "values": ["8"]}, True),
        ({"key": "cores", "operator": "Lt", "values": ["8"]}, False),
        ({"key": "zone", "operator": "Gt", "values": ["1"]}, False),
    ],
)
def test_required_node_affinity_operators(expression: dict[str, Any], fits: bool) -> None:
    """matchExpressions read node labels with In, NotIn, Exists, DoesNotExist, Gt and Lt."""
    target = node("n", labels={"zone": "a", "cores": "16"})
    rejection = check_node_affinity(
        pod(container(), affinity=required({"matchExpressions": [expression]})), target
    )
    assert (rejection is None) is fits


def test_node_affinity_terms_are_ored_and_match_fields_read_the_node_name() -> None:
    """One matching term is enough; matchFields compare metadata.name; nodeSelector must match too."""
    target = node("n1", labels={"zone": "a"})
    terms = required(
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
    )
    assert check_node_affinity(pod(container(), affinity=terms), target) is None
    mismatch = pod(container(), affinity=terms, nodeSelector={"zone": "b"})
    assert check_node_affinity(mismatch, target) == Rejection(
        ("node(s) didn't match Pod's node affinity/selector",)
    )
    assert check_node_affinity(pod(container(), affinity=required({})), target) is not None


def test_resources_report_every_shortage_and_whether_eviction_could_help() -> None:
    """Each missing resource is named; asking for more than the node has is unresolvable."""
    small = node("n", cpu="2", memory="2Gi", pods="3")
    request = pod_request(pod(container("1500m", "1Gi")))
    assert check_resources(request, small, used(1000, GI + 1, 1)) == Rejection(
        ("Insufficient cpu", "Insufficient memory"), resolvable=True
    )
    assert check_resources(pod_request(pod(container("3"))), small, used()) == Rejection(
        ("Insufficient cpu",), resolvable=False
    )
    assert check_resources(pod_request(pod(container())), small, used(pods=3)) == Rejection(
        ("Too many pods",), resolvable=True
    )
    assert check_resources(request, small, used()) is None


# -- messages and the decision -----------------------------------------------------------------


def test_the_unschedulable_message_is_kubes_fit_error_with_its_preemption_part() -> None:
    """Reasons are counted over nodes and sorted as text, then what preemption found, as kube 1.32 prints."""
    nodes = [node("a", cpu="1", unschedulable=True), node("b", cpu="1"), node("c", cpu="1")]
    decision = schedule(pod(container("2")), nodes, {})
    assert decision.node_name == ""
    assert decision.message == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    busy = {"b": used(800), "c": used(800)}
    decision = schedule(pod(container("500m")), nodes, busy)
    assert decision.message == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. "
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod."
    )


def test_pods_that_never_preempt_say_so_and_an_empty_cluster_has_no_nodes() -> None:
    """preemptionPolicy Never replaces the preemption part; no nodes at all is its own message."""
    decision = schedule(pod(container("8"), preemptionPolicy="Never"), [node("a")], {})
    assert (
        decision.message
        == "0/1 nodes are available: 1 Insufficient cpu. not eligible due to preemptionPolicy=Never."
    )
    assert schedule(pod(container()), [], {}).message == "no nodes available to schedule pods"


def test_pinning_to_node_names_skips_the_other_nodes_as_the_prefilter_does() -> None:
    """matchFields metadata.name In narrows the nodes; the others did not satisfy NodeAffinity."""
    pinned = required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]}]})
    nodes = [node("a", cpu="1"), node("b"), node("c")]
    decision = schedule(pod(container("2"), affinity=pinned), nodes, {})
    assert decision.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    assert schedule(pod(container(), affinity=pinned), nodes, {}).node_name == "a"


def test_the_least_allocated_node_wins_and_ties_go_to_the_first_name() -> None:
    """Scores follow free cpu and memory after placement; equal scores pick the lowest name."""
    nodes = [node("c"), node("b"), node("a")]
    assert schedule(pod(container("1")), nodes, {}).node_name == "a"
    assert schedule(pod(container("1")), nodes, {"a": used(2000, GI, 1)}).node_name == "b"


def test_fit_error_message_with_a_prefilter_failure_names_it_instead_of_nodes() -> None:
    """A PreFilter rejection replaces the per-node histogram."""
    message = fit_error_message(2, {"a": ("x",)}, prefilter="pod affinity terms conflict", postfilter="p.")
    assert message == "0/2 nodes are available: pod affinity terms conflict. p."
