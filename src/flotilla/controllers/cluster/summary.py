"""A member's node and resource summaries, from its nodes and pods, for the Cluster's status.

The scheduler's general estimator sizes a cluster from `status.resourceSummary` alone (free =
`allocatable - allocated - allocating`, per resource, `pods` included), so the three lists must
count what the member's own scheduler counts:

- `allocatable`: the sum of the `allocatable` of every Ready node — a node that is not Ready takes
  no pods, so its capacity is not offered (Karmada sums every node; this is the stricter reading);
- `allocated`: the requests of pods bound to a node that have not finished (kube-scheduler stops
  counting Succeeded and Failed pods), plus `pods`: how many there are;
- `allocating`: the requests of pods still waiting for a node, plus their count as `pods`.

A pod's requests are its effective requests (containers, sidecars, init containers, overhead) as
`flotilla.interpreter.requests` computes them for one replica. Resources are `cpu`, `memory`,
`ephemeral-storage`, `pods` and scalar resources (extended, hugepages), counted as Karmada counts
them — CPU in millicores, the rest in whole units — and written as kube writes quantities. A
quantity the member wrote that cannot be read is left out rather than failing the summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.karmada.cluster import NodeSummary, ResourceSummary
from flotilla.interpreter.kinds import InterpreterError
from flotilla.interpreter.requests import (
    ResourceAmounts,
    counted_units,
    counts_as_resource,
    pod_requests,
    resource_list,
)

PODS = "pods"
FINISHED_PHASES = frozenset({"Succeeded", "Failed"})


def node_ready(node: Mapping[str, Any]) -> bool:
    """Whether the node's Ready condition is True."""
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(
        isinstance(c, Mapping) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions
    )


def node_summary(nodes: Iterable[Mapping[str, Any]]) -> NodeSummary:
    """How many nodes the member has, and how many of them are Ready."""
    total = 0
    ready = 0
    for node in nodes:
        total += 1
        ready += node_ready(node)
    return NodeSummary(total_num=total, ready_num=ready)


def resource_summary(
    nodes: Iterable[Mapping[str, Any]], pods: Iterable[Mapping[str, Any]]
) -> ResourceSummary:
    """Allocatable, allocated and allocating resources of a member (see the module docstring)."""
    allocatable: ResourceAmounts = {}
    for node in nodes:
        if node_ready(node):
            _add(allocatable, _node_allocatable(node))
    allocated: ResourceAmounts = {}
    allocating: ResourceAmounts = {}
    for pod in pods:
        status = pod.get("status") or {}
        if status.get("phase") in FINISHED_PHASES:
            continue
        spec = pod.get("spec") or {}
        target = allocated if spec.get("nodeName") else allocating
        _add(target, _pod_requests(spec))
        target[PODS] = target.get(PODS, 0) + 1
    written = {
        "allocatable": resource_list(allocatable),
        "allocated": resource_list(allocated),
        "allocating": resource_list(allocating),
    }
    # Only non-empty lists are set: like Go's `omitempty`, an empty one is left out of the status.
    return ResourceSummary.from_object({field: amounts for field, amounts in written.items() if amounts})


def _node_allocatable(node: Mapping[str, Any]) -> ResourceAmounts:
    listed = (node.get("status") or {}).get("allocatable") or {}
    amounts: ResourceAmounts = {}
    for name, quantity in listed.items():
        if not counts_as_resource(name):
            continue
        try:
            amounts[name] = counted_units(name, quantity)
        except InterpreterError:
            continue
    return amounts


def _pod_requests(spec: Mapping[str, Any]) -> ResourceAmounts:
    try:
        requests = pod_requests(spec)
    except InterpreterError:
        return {}
    # A container cannot request pods; the pod count is added by the caller.
    requests.pop(PODS, None)
    return requests


def _add(total: ResourceAmounts, more: Mapping[str, int]) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0) + amount
