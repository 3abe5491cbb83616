"""The pods of a DaemonSet: made for one node, found by node, up to date or not, and counted.

A daemon pod is the template's pod with the tolerations kube gives every DaemonSet pod (not-ready,
unreachable, pressure and unschedulable taints; network-unavailable with host networking),
pinned to its node by a required node affinity on `metadata.name` (the scheduler binds it), and
labelled with its template's revision hash. The status counts, per node that should run the
DaemonSet, that node's oldest pod (kube's `updateDaemonSetStatus`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.api.nodeaffinity import required_terms
from flotilla.api.objects import copy_object
from flotilla.sim.controllers.daemonsets import nodeplacement
from flotilla.sim.controllers.podowners import pods

REVISION_LABEL = "controller-revision-hash"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
BURST_REPLICAS = 250

_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")

Pod = dict[str, Any]


def daemon_pod_spec(template_spec: Mapping[str, Any]) -> dict[str, Any]:
    """The template's pod spec with the tolerations kube gives every DaemonSet pod."""
    spec = copy_object(dict(template_spec))
    tolerations = list(spec.get("tolerations") or [])
    wanted = list(_DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(_HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        if not any(t.get("key") == key and t.get("effect") == effect for t in tolerations):
            tolerations.append(toleration)
    spec["tolerations"] = tolerations
    return spec


def pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """Replace the required node affinity with `metadata.name In [node]` (kube's daemon pod pinning)."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}


def target_node(pod: Pod) -> str:
    """The node a daemon pod is for: its nodeName, else the node its affinity pins it to."""
    if pods.node_name(pod):
        return pods.node_name(pod)
    terms = required_terms(pod.get("spec") or {}) or []
    if len(terms) == 1:
        for requirement in terms[0].get("matchFields") or ():
            values = requirement.get("values") or []
            if (
                requirement.get("key") == "metadata.name"
                and requirement.get("operator") == "In"
                and len(values) == 1
            ):
                return str(values[0])
    return ""


def is_updated(pod: Pod, revision_hash: str, generation: str | None) -> bool:
    labels = pod["metadata"].get("labels") or {}
    return labels.get(REVISION_LABEL) == revision_hash or (
        generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == generation
    )


def oldest_first(node_pods: list[Pod]) -> list[Pod]:
    return sorted(
        node_pods, key=lambda p: (p["metadata"].get("creationTimestamp", ""), p["metadata"]["name"])
    )


def daemon_set_status(
    daemon_set: Mapping[str, Any],
    nodes: list[dict[str, Any]],
    by_node: dict[str, list[Pod]],
    revision_hash: str,
    collision_count: int,
    now: datetime,
) -> dict[str, Any]:
    """kube's `updateDaemonSetStatus`: per node that should run the pod, its oldest pod counts."""
    spec = daemon_pod_spec(daemon_set["spec"]["template"].get("spec") or {})
    min_ready = int(daemon_set["spec"].get("minReadySeconds") or 0)
    generation = (daemon_set["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    desired = current = misscheduled = ready = available = updated = 0
    for node in nodes:
        run, _ = nodeplacement.should_run(spec, node)
        node_pods = by_node.get(node["metadata"]["name"], [])
        if not run:
            misscheduled += bool(node_pods)
            continue
        desired += 1
        if not node_pods:
            continue
        current += 1
        oldest = oldest_first(node_pods)[0]
        if pods.is_ready(oldest):
            ready += 1
            available += pods.is_available(oldest, min_ready, now)
        updated += is_updated(oldest, revision_hash, generation)
    status: dict[str, Any] = {
        "currentNumberScheduled": current,
        "numberMisscheduled": misscheduled,
        "desiredNumberScheduled": desired,
        "numberReady": ready,
        "observedGeneration": daemon_set["metadata"].get("generation", 1),
    }
    # kube leaves these out when zero (`omitempty`).
    optional = {
        "updatedNumberScheduled": updated,
        "numberAvailable": available,
        "numberUnavailable": desired - available,
        "collisionCount": collision_count,
    }
    status.update({field: value for field, value in optional.items() if value})
    return status
