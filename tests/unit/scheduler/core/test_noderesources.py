"""The accurate estimator: replicas that fit on a member's nodes, from its nodes and pods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.scheduler.core.availability import available_estimates
from flotilla.scheduler.core.estimation import UNAUTHENTIC, Estimate
from flotilla.scheduler.core.generic import schedule
from flotilla.scheduler.core.inputs import BindingInfo, ReplicaRequirements
from flotilla.scheduler.core.noderesources import (
    ACCURATE,
    NO_NODES,
    NodeResourceEstimator,
    NodeRoom,
    estimate_on_nodes,
    node_rooms,
    pod_usage,
)
from flotilla.scheduler.plugins import in_tree_registry
from tests.unit.scheduler.manifests import binding, binding_object, cluster, dynamic_weights


def node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    labels: Mapping[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    ready: bool = True,
    unschedulable: bool = False,
    **extended: str,
) -> dict[str, Any]:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **_resource_names(extended)}
    spec: dict[str, Any] = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": spec,
        "status": {
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def pod(node_name: str, *, phase: str = "Running", **requests: str) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": _resource_names(requests)}}
    return {"spec": {"nodeName": node_name, "containers": [container]}, "status": {"phase": phase}}


def _resource_names(amounts: Mapping[str, str]) -> dict[str, str]:
    """Keyword arguments as resource names: `ephemeral_storage` → `ephemeral-storage`, `gpu` → a GPU."""
    names = {"ephemeral_storage": "ephemeral-storage", "gpu": "nvidia.com/gpu"}
    return {names.get(key, key): value for key, value in amounts.items()}


def requirements(
    *,
    node_selector: Mapping[str, str] | None = None,
    hard_affinity: Mapping[str, Any] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    **requests: str,
) -> ReplicaRequirements:
    claim: dict[str, Any] = {}
    if node_selector:
        claim["nodeSelector"] = dict(node_selector)
    if hard_affinity:
        claim["hardNodeAffinity"] = dict(hard_affinity)
    if tolerations:
        claim["tolerations"] = tolerations
    wire = {"resourceRequest": _resource_names(requests), "nodeClaim": claim}
    found = BindingInfo.from_object({"spec": {"replicaRequirements": wire}}).replica_requirements
    assert found is not None
    return found


def rooms(nodes: list[dict[str, Any]], pods: list[dict[str, Any]] | None = None) -> tuple[NodeRoom, ...]:
    usages = [usage for usage in map(pod_usage, pods or []) if usage is not None]
    return node_rooms(nodes, usages)


def estimate(
    nodes: list[dict[str, Any]], wanted: ReplicaRequirements | None, pods: list[dict[str, Any]] | None = None
) -> Estimate:
    return estimate_on_nodes(rooms(nodes, pods), wanted)


# --- each resource, and the pod slots ------------------------------------------------------------


def test_the_sum_over_nodes_of_what_each_node_has_left() -> None:
    """Each node holds floor(rest / request); the cluster holds their sum."""
    nodes = [node("a"), node("b")]
    found = estimate(nodes, requirements(cpu="1", memory="1Gi"), [pod("a", cpu="1500m")])
    assert found == Estimate(2 + 4, "cpu", ACCURATE)


def test_cpu_is_counted_in_millicores() -> None:
    """1500m left holds three 500m replicas."""
    assert estimate([node("a", cpu="1500m")], requirements(cpu="500m")).replicas == 3


def test_memory_can_be_the_limit() -> None:
    """The tightest requested resource decides, and is named."""
    assert estimate([node("a")], requirements(cpu="500m", memory="3Gi")) == Estimate(2, "memory", ACCURATE)


def test_ephemeral_storage_can_be_the_limit() -> None:
    """Ephemeral storage counts like memory, in whole bytes."""
    nodes = [node("a", ephemeral_storage="10Gi")]
    found = estimate(nodes, requirements(cpu="100m", ephemeral_storage="4Gi"))
    assert found == Estimate(2, "ephemeral-storage", ACCURATE)


def test_an_extended_resource_counts_only_where_a_node_offers_it() -> None:
    """A GPU request fits only on nodes with GPUs left; a node without any holds none."""
    nodes = [node("gpu-node", gpu="4"), node("plain")]
    found = estimate(nodes, requirements(cpu="100m", gpu="1"), [pod("gpu-node", gpu="1")])
    assert found == Estimate(3, "nvidia.com/gpu", ACCURATE)


def test_free_pod_slots_cap_each_node() -> None:
    """allocatable pods minus the pods on the node bounds it, whatever the resources say."""
    nodes = [node("a", pods="3")]
    found = estimate(nodes, requirements(cpu="100m"), [pod("a"), pod("a")])
    assert found == Estimate(1, "pods", ACCURATE)


def test_without_requests_only_pod_slots_count() -> None:
    """A replica that asks for nothing is bounded by pod slots alone."""
    assert estimate([node("a", pods="5"), node("b", pods="7")], None) == Estimate(12, "pods", ACCURATE)


def test_an_overcommitted_node_holds_nothing_rather_than_less() -> None:
    """Pods requesting more than the node has leave it at zero, never negative."""
    nodes = [node("full", cpu="1"), node("free", cpu="2")]
    found = estimate(nodes, requirements(cpu="1"), [pod("full", cpu="3")])
    assert found.replicas == 2


def test_unbound_and_finished_pods_take_nothing() -> None:
    """Pending pods have no node yet; Succeeded and Failed pods have let go of theirs."""
    pods = [
        {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}},
        pod("a", phase="Succeeded", cpu="4"),
        pod("a", phase="Failed", cpu="4"),
    ]
    assert estimate([node("a")], requirements(cpu="1"), pods).replicas == 4


def test_the_limit_of_most_nodes_is_named() -> None:
    """With nodes limited by different resources, the one limiting most of them is reported."""
    nodes = [node("a", memory="64Gi"), node("b", memory="64Gi"), node("c", cpu="64")]
    assert estimate(nodes, requirements(cpu="1", memory="4Gi")).limited_by == "cpu"


# --- which nodes count ---------------------------------------------------------------------------


def test_cordoned_and_not_ready_nodes_take_nothing() -> None:
    """Only Ready nodes that are not cordoned hold replicas."""
    nodes = [node("a"), node("cordoned", unschedulable=True), node("down", ready=False)]
    assert estimate(nodes, requirements(cpu="1")).replicas == 4


def test_a_replica_tolerating_the_cordon_may_use_a_cordoned_node() -> None:
    """As kube and Karmada allow: a toleration of node.kubernetes.io/unschedulable lets it in."""
    toleration = {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
    nodes = [node("cordoned", unschedulable=True)]
    assert estimate(nodes, requirements(cpu="1", tolerations=[toleration])).replicas == 4


def test_untolerated_taints_leave_a_node_out() -> None:
    """NoSchedule and NoExecute taints keep replicas off unless tolerated; PreferNoSchedule does not."""
    gpu_taint = {"key": "gpu", "value": "true", "effect": "NoSchedule"}
    nodes = [
        node("tainted", taints=[gpu_taint]),
        node("soft", taints=[{"key": "spot", "effect": "PreferNoSchedule"}]),
    ]
    assert estimate(nodes, requirements(cpu="1")).replicas == 4
    tolerating = requirements(cpu="1", tolerations=[{"key": "gpu", "operator": "Equal", "value": "true"}])
    assert estimate(nodes, tolerating).replicas == 8


def test_node_selector_and_required_affinity_pick_the_nodes() -> None:
    """nodeSelector needs every label; hardNodeAffinity needs one of its terms."""
    nodes = [
        node("ssd-a", labels={"disk": "ssd", "zone": "a"}),
        node("ssd-b", labels={"disk": "ssd", "zone": "b"}),
        node("hdd-a", labels={"disk": "hdd", "zone": "a"}),
    ]
    assert estimate(nodes, requirements(cpu="1", node_selector={"disk": "ssd"})).replicas == 8
    zone_a = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
    }
    found = estimate(nodes, requirements(cpu="1", node_selector={"disk": "ssd"}, hard_affinity=zone_a))
    assert found.replicas == 4


def test_no_nodes_hold_no_replicas() -> None:
    """A member without nodes takes nothing, and says so."""
    assert estimate([], requirements(cpu="1")) == Estimate(0, estimator=ACCURATE, reason=NO_NODES)


def test_when_no_node_takes_a_replica_the_reasons_are_named() -> None:
    """Zero with the nodes left out by each reason, rather than a resource."""
    nodes = [node("down", ready=False), node("other", labels={"disk": "hdd"})]
    found = estimate(nodes, requirements(cpu="1", node_selector={"disk": "ssd"}))
    assert found.replicas == 0
    assert found.reason == "no node takes it: 1 NotReady, 1 node selector/affinity"


# --- beside the general estimator ----------------------------------------------------------------


def summary_of(cpu: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": "64Gi", "pods": "110"}


def test_the_estimator_knows_only_the_members_it_was_given() -> None:
    """A cluster without a snapshot gets UNAUTHENTIC, not zero."""
    estimator = NodeResourceEstimator({"member1": node_rooms([node("a")], [])})
    wanted = requirements(cpu="1")
    assert estimator.estimate(cluster("member1"), wanted).replicas == 4
    assert estimator.estimate(cluster("member2"), wanted).replicas == UNAUTHENTIC


def test_the_smaller_answer_wins_and_an_unauthentic_one_is_ignored() -> None:
    """Karmada's calAvailableReplicas: minimum over estimators per cluster, -1 left out."""
    # Two nodes with 1.5 cpu free each: the summary adds them up to 3, the nodes hold 1 each.
    fragmented = rooms([node("a", cpu="2"), node("b", cpu="2")], [pod("a", cpu="500m"), pod("b", cpu="500m")])
    roomy = node_rooms([node("c", cpu="16")], [])
    estimator = NodeResourceEstimator({"member1": fragmented, "member2": roomy})
    clusters = [
        cluster("member1", allocatable=summary_of("3")),
        cluster("member2", allocatable=summary_of("4")),
        cluster("member3", allocatable=summary_of("5")),
    ]
    wanted = binding(replicas=3, requests={"cpu": "1"})
    found = available_estimates(wanted, clusters, [estimator])
    assert found["member1"] == Estimate(2, "cpu", ACCURATE)
    assert found["member2"] == Estimate(4, "cpu", "general")
    assert found["member3"] == Estimate(5, "cpu", "general")


def test_aggregated_division_follows_what_the_nodes_hold() -> None:
    """The summary would put all 3 replicas on member1; its nodes hold 2, so one goes to member2."""
    fragmented = node_rooms([node("a", cpu="1500m"), node("b", cpu="1500m")], [])
    single = node_rooms([node("c", cpu="1")], [])
    clusters = [
        cluster("member1", allocatable=summary_of("3")),
        cluster("member2", allocatable=summary_of("1")),
    ]
    wanted = BindingInfo.from_object(
        binding_object(replicas=3, requests={"cpu": "1"}, placement=dynamic_weights(aggregated=True))
    )
    without = schedule(wanted, clusters, in_tree_registry())
    assert {target.name: target.replicas for target in without.clusters} == {"member1": 3}
    estimator = NodeResourceEstimator({"member1": fragmented, "member2": single})
    with_nodes = schedule(wanted, clusters, in_tree_registry(), estimators=[estimator])
    assert {target.name: target.replicas for target in with_nodes.clusters} == {"member1": 2, "member2": 1}
