"""The accurate estimator: how many replicas fit on a member's nodes, node by node.

Karmada's `NodeResourceEstimator` runs in a `karmada-scheduler-estimator` per member; here it is a
function of the member's nodes and pods, which the hub process already watches (the scheduler's
shell builds the snapshots, `flotilla.scheduler.nodesnapshots`). For one replica's requirements:

- A node takes replicas only if it is Ready, not cordoned (`spec.unschedulable`, unless the
  replica tolerates `node.kubernetes.io/unschedulable:NoSchedule`, as kube and Karmada allow),
  tolerates none of its NoSchedule/NoExecute taints wrongly (`flotilla.api.tolerations`), and
  matches the replica's node selector and required node affinity (`flotilla.api.nodeaffinity`).
  Karmada does not test readiness itself — kube taints a NotReady node `not-ready:NoSchedule`,
  which the taint test then refuses; testing it here keeps a node whose taint has not been written
  yet out too, as the Cluster's resource summary leaves out the capacity of NotReady nodes.
- On such a node, `rest = allocatable - requested` per resource, where `requested` sums the
  effective requests (`flotilla.interpreter.requests`) of the pods bound to the node that have not
  finished; the node holds `min over requested resources of floor(rest / request)` replicas —
  `cpu` in millicores, `memory`, `ephemeral-storage` and extended resources (`nvidia.com/gpu`) in
  whole units — capped by its free pod slots (`allocatable pods - pods on the node`), never below 0.
- The cluster holds the sum over its nodes; no node, no replica.

The answer names what bounded it: the resource that limited most of the nodes that take replicas
(`cpu`, `pods`…), or, when no node takes any, the reason: how many nodes were left out, and why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.conditions import find_condition
from flotilla.api.tolerations import NO_SCHEDULE, Taint, taints_of, untolerated_taint
from flotilla.interpreter import InterpreterError
from flotilla.interpreter.requests import counted_units, counts_as_resource, pod_requests
from flotilla.scheduler.core.estimation import UNAUTHENTIC, Estimate
from flotilla.scheduler.core.inputs import ClusterInfo, ReplicaRequirements
from flotilla.scheduler.core.wirefields import mapping_of, text_of

ACCURATE = "accurate"
CPU = "cpu"
PODS = "pods"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", effect=NO_SCHEDULE)
FINISHED_PHASES = frozenset({"Succeeded", "Failed"})
NO_NODES = "no nodes"

NOT_READY = "NotReady"
CORDONED = "cordoned"
TAINTED = "untolerated taint"
AFFINITY = "node selector/affinity"
_RESOURCE_ORDER = {CPU: 0, "memory": 1, "ephemeral-storage": 2}


@dataclass(frozen=True, slots=True)
class PodUsage:
    """What one pod takes from the node it is bound to."""

    node_name: str
    requests: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class NodeRoom:
    """One node as the estimator sees it: whether it takes pods, and what it has left."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    ready: bool = True
    unschedulable: bool = False
    free: Mapping[str, int] = field(default_factory=dict)
    """`allocatable - requested` per resource, in counted units (millicores for cpu); may be negative."""
    free_pods: int = 0


def pod_usage(pod: Mapping[str, Any]) -> PodUsage | None:
    """What a pod takes from its node; None for a pod not bound to a node or already finished."""
    spec = mapping_of(pod.get("spec"))
    node_name = text_of(spec.get("nodeName"))
    if not node_name or mapping_of(pod.get("status")).get("phase") in FINISHED_PHASES:
        return None
    try:
        requests = pod_requests(spec)
    except InterpreterError:
        requests = {}
    requests.pop(PODS, None)
    return PodUsage(node_name, requests)


def node_room(node: Mapping[str, Any], usages: Sequence[PodUsage]) -> NodeRoom:
    """A node with the usage of the pods bound to it."""
    metadata = mapping_of(node.get("metadata"))
    spec = mapping_of(node.get("spec"))
    status = mapping_of(node.get("status"))
    allocatable = _allocatable(mapping_of(status.get("allocatable")))
    free = {name: amount for name, amount in allocatable.items() if name != PODS}
    for usage in usages:
        for name, amount in usage.requests.items():
            free[name] = free.get(name, 0) - amount
    ready = find_condition(status.get("conditions"), "Ready")
    return NodeRoom(
        name=text_of(metadata.get("name")),
        labels={str(key): str(value) for key, value in mapping_of(metadata.get("labels")).items()},
        taints=taints_of(spec.get("taints")),
        ready=ready is not None and ready.get("status") == "True",
        unschedulable=bool(spec.get("unschedulable")),
        free=free,
        free_pods=max(allocatable.get(PODS, 0) - len(usages), 0),
    )


def node_rooms(nodes: Iterable[Mapping[str, Any]], usages: Iterable[PodUsage]) -> tuple[NodeRoom, ...]:
    """Every node with the usage of the pods bound to it, sorted by name."""
    by_node: dict[str, list[PodUsage]] = {}
    for usage in usages:
        by_node.setdefault(usage.node_name, []).append(usage)
    rooms = (node_room(node, by_node.get(_name(node), [])) for node in nodes)
    return tuple(sorted(rooms, key=lambda room: room.name))


def estimate_on_nodes(rooms: Sequence[NodeRoom], requirements: ReplicaRequirements | None) -> Estimate:
    """The replicas the nodes hold together, and what bounded them (see the module docstring)."""
    if not rooms:
        return Estimate(0, estimator=ACCURATE, reason=NO_NODES)
    left_out: Counter[str] = Counter()
    limits: Counter[str] = Counter()
    requested = _per_replica(requirements)
    total = 0
    for room in rooms:
        refusal = _refusal(room, requirements)
        if refusal:
            left_out[refusal] += 1
            continue
        replicas, limit = _replicas_on(room, requested)
        total += replicas
        limits[limit] += 1
    if not limits:
        reasons = ", ".join(f"{count} {reason}" for reason, count in left_out.items())
        return Estimate(0, estimator=ACCURATE, reason=f"no node takes it: {reasons}")
    return Estimate(total, _most_common(limits), ACCURATE)


class NodeResourceEstimator:
    """The accurate estimator over node snapshots of some members; others it cannot answer for."""

    name = ACCURATE

    def __init__(self, members: Mapping[str, Sequence[NodeRoom]]) -> None:
        self._members = members

    def estimate(self, cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> Estimate:
        rooms = self._members.get(cluster.name)
        if rooms is None:
            return Estimate(UNAUTHENTIC, estimator=ACCURATE)
        return estimate_on_nodes(rooms, requirements)


def _refusal(room: NodeRoom, requirements: ReplicaRequirements | None) -> str:
    """Why the node takes no replica at all ("" when it may take some)."""
    tolerations = requirements.tolerations if requirements is not None else ()
    if not room.ready:
        return NOT_READY
    if room.unschedulable and untolerated_taint((UNSCHEDULABLE_TAINT,), tolerations) is not None:
        return CORDONED
    if untolerated_taint(room.taints, tolerations) is not None:
        return TAINTED
    affinity = requirements.node_affinity if requirements is not None else None
    # Most replicas claim no particular node: only build the node's view for one that does.
    claims = affinity is not None and (bool(affinity.node_selector) or affinity.affinity is not None)
    if claims and affinity is not None and not affinity.matches(_node_view(room)):
        return AFFINITY
    return ""


def _node_view(room: NodeRoom) -> dict[str, Any]:
    """What node affinity reads of a node: its name and labels."""
    return {"metadata": {"name": room.name, "labels": room.labels}}


def _per_replica(requirements: ReplicaRequirements | None) -> list[tuple[str, int]]:
    """What one replica requests, in counted units, last-reported resource first (see `_replicas_on`)."""
    units = requirements.request_units if requirements is not None else {}
    requested = []
    for name in sorted(units, key=_resource_rank, reverse=True):
        whole, milli = units[name]
        per_replica = milli if name == CPU else whole
        if name != PODS and per_replica > 0:
            requested.append((name, per_replica))
    return requested


def _replicas_on(room: NodeRoom, requested: list[tuple[str, int]]) -> tuple[int, str]:
    """Replicas one node holds, and the resource that bounded them (Karmada's `MaxDivided`)."""
    fewest, limit = room.free_pods, PODS
    for name, per_replica in requested:
        count = max(room.free.get(name, 0), 0) // per_replica
        # `<=`: on a tie the resource, not the pod slots, is named; the earlier resource wins.
        if count <= fewest:
            fewest, limit = count, name
    return max(fewest, 0), limit


def _resource_rank(name: str) -> tuple[int, str]:
    return (_RESOURCE_ORDER.get(name, len(_RESOURCE_ORDER)), name)


def _most_common(limits: Counter[str]) -> str:
    """The limit of most nodes; ties go to cpu, memory, ephemeral-storage, others by name, pods last."""
    return min(limits, key=lambda name: (-limits[name], name == PODS, _resource_rank(name)))


def _allocatable(listed: Mapping[str, Any]) -> dict[str, int]:
    amounts: dict[str, int] = {}
    for name, quantity in listed.items():
        if not counts_as_resource(str(name)):
            continue
        try:
            amounts[str(name)] = counted_units(str(name), quantity)
        except InterpreterError:
            continue
    return amounts


def _name(node: Mapping[str, Any]) -> str:
    return text_of(mapping_of(node.get("metadata")).get("name"))
