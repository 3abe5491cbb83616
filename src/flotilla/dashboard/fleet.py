"""The fleet at a glance, computed from Cluster objects: pure functions, no I/O.

The overview's tiles (clusters by state, nodes, CPU, memory and pods allocated and total) and the
clusters page's rows are derived here from the hub's Cluster objects as listed, the way Karmada's
dashboard derives them from `status.nodeSummary` and `status.resourceSummary`, so they can be
tested without a server and the HTTP layer stays a thin shell.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.quantities import parse_quantity
from flotilla.api.times import parse_timestamp

Object = Mapping[str, Any]

RESOURCES = ("cpu", "memory", "pods")
"""The resources the overview totals (Karmada's dashboard shows the same three, plus nodes)."""


def _amount(value: object) -> Fraction:
    try:
        return parse_quantity(value).amount
    except (TypeError, ValueError):
        return Fraction(0)


def ready_condition(cluster: Object) -> Mapping[str, Any]:
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") == constants.CLUSTER_CONDITION_READY:
            return dict(condition)
    return {}


def cluster_state(cluster: Object) -> str:
    """Ready, NotReady or Unknown, as `kubectl get clusters` shows READY."""
    status = ready_condition(cluster).get("status")
    if status == "True":
        return "Ready"
    if status == "False":
        return "NotReady"
    return "Unknown"


def is_cordoned(cluster: Object) -> bool:
    return any(
        taint.get("key") == constants.TAINT_CLUSTER_UNSCHEDULABLE
        for taint in (cluster.get("spec") or {}).get("taints") or []
    )


def _number(amount: Fraction) -> float | int:
    return int(amount) if amount.denominator == 1 else round(float(amount), 3)


def overview(clusters: Iterable[Object]) -> dict[str, Any]:
    """Clusters by state and the fleet's nodes and resources, allocated against allocatable."""
    states: Counter[str] = Counter()
    nodes_ready = nodes_total = 0
    allocated = dict.fromkeys(RESOURCES, Fraction(0))
    allocatable = dict.fromkeys(RESOURCES, Fraction(0))
    count = 0
    for cluster in clusters:
        count += 1
        states[cluster_state(cluster)] += 1
        status = cluster.get("status") or {}
        summary = status.get("nodeSummary") or {}
        nodes_ready += int(summary.get("readyNum") or 0)
        nodes_total += int(summary.get("totalNum") or 0)
        resources = status.get("resourceSummary") or {}
        for name in RESOURCES:
            allocated[name] += _amount((resources.get("allocated") or {}).get(name, 0))
            allocatable[name] += _amount((resources.get("allocatable") or {}).get(name, 0))
    return {
        "clusters": {"total": count, **{state: states[state] for state in ("Ready", "NotReady", "Unknown")}},
        "nodes": {"ready": nodes_ready, "total": nodes_total},
        "resources": {
            name: {"allocated": _number(allocated[name]), "total": _number(allocatable[name])}
            for name in RESOURCES
        },
    }


def _age_seconds(stamp: str | None, now: datetime) -> float | None:
    if not stamp:
        return None
    try:
        moment = parse_timestamp(stamp)
    except ValueError:
        return None
    return None if moment is None else max(0.0, (now - moment).total_seconds())


def cluster_row(cluster: Object, lease: Object | None, now: datetime) -> dict[str, Any]:
    """One row of the clusters page: Karmada's columns, then taints, conditions and lease age."""
    meta = cluster.get("metadata") or {}
    spec = cluster.get("spec") or {}
    status = cluster.get("status") or {}
    summary = status.get("nodeSummary") or {}
    resources = status.get("resourceSummary") or {}
    renewed = (lease or {}).get("spec", {}).get("renewTime") if lease else None
    return {
        "name": meta.get("name", ""),
        "version": status.get("kubernetesVersion", ""),
        "state": cluster_state(cluster),
        "syncMode": spec.get("syncMode", "Push"),
        "region": spec.get("region", ""),
        "provider": spec.get("provider", ""),
        "nodes": {"ready": int(summary.get("readyNum") or 0), "total": int(summary.get("totalNum") or 0)},
        "resources": {
            name: {
                "allocated": _number(_amount((resources.get("allocated") or {}).get(name, 0))),
                "total": _number(_amount((resources.get("allocatable") or {}).get(name, 0))),
            }
            for name in RESOURCES
        },
        "cordoned": is_cordoned(cluster),
        "taints": [
            {"key": t.get("key", ""), "value": t.get("value", ""), "effect": t.get("effect", "")}
            for t in spec.get("taints") or []
        ],
        "conditions": [
            {
                "type": c.get("type", ""),
                "status": c.get("status", ""),
                "reason": c.get("reason", ""),
                "message": c.get("message", ""),
                "lastTransitionTime": c.get("lastTransitionTime", ""),
            }
            for c in status.get("conditions") or []
        ],
        "leaseAgeSeconds": _age_seconds(renewed, now),
        "deleting": bool(meta.get("deletionTimestamp")),
    }
