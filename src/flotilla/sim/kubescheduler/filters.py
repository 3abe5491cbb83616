"""kube-scheduler's default filter plugins: which nodes can take a pod, and in kube's words why not.

In their default order, the first that rejects a node decides: NodeUnschedulable (a cordoned node),
TaintToleration (NoSchedule and NoExecute taints; PreferNoSchedule only scores in kube), NodeAffinity
(`nodeSelector` and required node affinity, with the PreFilter that narrows to the nodes a
`matchFields metadata.name` term pins) and NodeResourcesFit (pod count, cpu, memory, ephemeral
storage, extended resources). A `Rejection` carries kube's reasons and whether evicting pods could
change it, which the preemption part of the message reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.nodeaffinity import RequiredNodeAffinity, required_terms
from flotilla.api.tolerations import NO_SCHEDULE, untolerated
from flotilla.sim.kubescheduler.resources import NodeUsage, PodRequest, allocatable
from flotilla.sim.nodes.taints import UNSCHEDULABLE_TAINT

_UNSCHEDULABLE = {"key": UNSCHEDULABLE_TAINT, "effect": NO_SCHEDULE}

UNSCHEDULABLE_REASON = "node(s) were unschedulable"
AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
AFFINITY_PREFILTER_REASON = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
TOO_MANY_PODS_REASON = "Too many pods"


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a node cannot take the pod; `resolvable`: evicting pods could change that (kube's codes)."""

    reasons: tuple[str, ...]
    resolvable: bool = False


def _tolerations(pod: Mapping[str, Any]) -> Any:
    return (pod.get("spec") or {}).get("tolerations")


def check_unschedulable(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """NodeUnschedulable: a cordoned node takes only pods tolerating its unschedulable taint."""
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    if untolerated([_UNSCHEDULABLE], _tolerations(pod)) is None:
        return None
    return Rejection((UNSCHEDULABLE_REASON,))


def check_taints(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """TaintToleration: the first NoSchedule / NoExecute taint the pod does not tolerate rejects it."""
    taint = untolerated((node.get("spec") or {}).get("taints"), _tolerations(pod))
    if taint is None:
        return None
    key, value = taint.get("key") or "", taint.get("value") or ""
    return Rejection((f"node(s) had untolerated taint {{{key}: {value}}}",))


def check_node_affinity(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """NodeAffinity: every `nodeSelector` label, and one of the required terms (kube's `nodeaffinity`)."""
    if not RequiredNodeAffinity.of_pod_spec(pod.get("spec") or {}).matches(node):
        return Rejection((AFFINITY_REASON,))
    return None


def affinity_node_names(pod: Mapping[str, Any]) -> set[str] | None:
    """NodeAffinity's PreFilter: the only node names the pod may land on, or None for any node.

    When every required term pins `metadata.name` with `In`, only those nodes are evaluated (an
    empty set means the terms contradict each other).
    """
    terms = required_terms(pod.get("spec") or {})
    if not terms:
        return None
    names: set[str] = set()
    for term in terms:
        pinned: set[str] | None = None
        for requirement in term.get("matchFields") or []:
            if requirement.get("key") == "metadata.name" and requirement.get("operator") == "In":
                values = {str(v) for v in requirement.get("values") or []}
                pinned = values if pinned is None else pinned & values
        if pinned is None:
            return None
        names |= pinned
    return names


def check_resources(request: PodRequest, node: Mapping[str, Any], usage: NodeUsage) -> Rejection | None:
    """NodeResourcesFit: room for one more pod and for every resource the pod requests."""
    capacity, max_pods = allocatable(node)
    reasons: list[str] = []
    resolvable = True
    if usage.pods + 1 > max_pods:
        reasons.append(TOO_MANY_PODS_REASON)
    wanted = request.requests
    used = usage.requested
    for label, asked, have, taken in (
        ("cpu", wanted.milli_cpu, capacity.milli_cpu, used.milli_cpu),
        ("memory", wanted.memory, capacity.memory, used.memory),
        ("ephemeral-storage", wanted.ephemeral_storage, capacity.ephemeral_storage, used.ephemeral_storage),
        *(
            (name, amount, capacity.scalars.get(name, 0), used.scalars.get(name, 0))
            for name, amount in sorted(wanted.scalars.items())
        ),
    ):
        if asked > 0 and asked > have - taken:
            reasons.append(f"Insufficient {label}")
            # No eviction frees more than the node has: kube marks that unresolvable.
            resolvable = resolvable and asked <= have
    return Rejection(tuple(reasons), resolvable) if reasons else None


def filter_node(
    pod: Mapping[str, Any], request: PodRequest, node: Mapping[str, Any], usage: NodeUsage
) -> Rejection | None:
    """kube's default filter plugins in order; the first that rejects the node decides."""
    return (
        check_unschedulable(pod, node)
        or check_taints(pod, node)
        or check_node_affinity(pod, node)
        or check_resources(request, node, usage)
    )
