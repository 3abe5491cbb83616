"""The choice of node for one pod: filter, score, select — or kube's FitError when no node fits.

`schedule(pod, nodes, usage)` is the pure core of the simulated kube-scheduler: nodes are looked at
in name order; those the NodeAffinity PreFilter rules out and those a filter rejects are counted
with their reasons; among the rest the best least-allocated score wins, ties to the first name.
When nothing fits, the message is kube 1.32's FitError, preemption part included:
`0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes
are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for
incoming pod.` The simulation never preempts, so every node where preemption could help reports no
victims.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.sim.kubescheduler.filters import (
    AFFINITY_PREFILTER_REASON,
    Rejection,
    affinity_node_names,
    filter_node,
)
from flotilla.sim.kubescheduler.resources import NodeUsage, pod_request
from flotilla.sim.kubescheduler.scores import least_allocated_score

AFFINITY_CONFLICT_REASON = "pod affinity terms conflict"
NO_NODES_MESSAGE = "no nodes available to schedule pods"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NEVER_PREEMPTS = "not eligible due to preemptionPolicy=Never."


def fit_error_message(
    total_nodes: int,
    reasons_by_node: Mapping[str, Iterable[str]],
    *,
    prefilter: str = "",
    postfilter: str = "",
) -> str:
    """kube's FitError text: the reasons counted over nodes, sorted as strings, then the postfilter's."""
    message = f"0/{total_nodes} nodes are available:"
    if prefilter:
        message += f" {prefilter}."
    else:
        histogram = Counter(reason for reasons in reasons_by_node.values() for reason in reasons)
        counted = sorted(f"{count} {reason}" for reason, count in histogram.items())
        if counted:
            message += f" {', '.join(counted)}."
    if postfilter:
        message += f" {postfilter}"
    return message


def preemption_message(pod: Mapping[str, Any], total_nodes: int, rejections: Mapping[str, Rejection]) -> str:
    """What DefaultPreemption says when it finds no victims (the simulation never preempts)."""
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return NEVER_PREEMPTS
    reasons = {name: (NO_VICTIMS if r.resolvable else NOT_HELPFUL,) for name, r in rejections.items()}
    return "preemption: " + fit_error_message(total_nodes, reasons)


@dataclass(frozen=True, slots=True)
class Decision:
    node_name: str = ""
    """Where the pod goes; empty when no node fits."""
    message: str = ""
    """Why no node fits (kube's wording), when none does."""


def schedule(
    pod: Mapping[str, Any], nodes: list[Mapping[str, Any]], usage: Mapping[str, NodeUsage]
) -> Decision:
    """Pick the node for `pod`: filter, then the best least-allocated score, then the first name."""
    if not nodes:
        return Decision(message=NO_NODES_MESSAGE)
    total = len(nodes)
    rejections: dict[str, Rejection] = {}
    pinned = affinity_node_names(pod)
    if pinned is not None and not pinned:
        every = {str(n["metadata"]["name"]): Rejection((AFFINITY_CONFLICT_REASON,)) for n in nodes}
        postfilter = preemption_message(pod, total, every)
        return Decision(
            message=fit_error_message(total, {}, prefilter=AFFINITY_CONFLICT_REASON, postfilter=postfilter)
        )
    request = pod_request(pod)
    best: tuple[int, str] | None = None
    for node in sorted(nodes, key=lambda n: str(n["metadata"]["name"])):
        name = str(node["metadata"]["name"])
        if pinned is not None and name not in pinned:
            rejections[name] = Rejection((AFFINITY_PREFILTER_REASON,))
            continue
        node_usage = usage.get(name) or NodeUsage()
        rejection = filter_node(pod, request, node, node_usage)
        if rejection is not None:
            rejections[name] = rejection
            continue
        score = least_allocated_score(request, node, node_usage)
        if best is None or score > best[0]:
            best = (score, name)
    if best is not None:
        return Decision(node_name=best[1])
    reasons = {name: r.reasons for name, r in rejections.items()}
    return Decision(
        message=fit_error_message(total, reasons, postfilter=preemption_message(pod, total, rejections))
    )
