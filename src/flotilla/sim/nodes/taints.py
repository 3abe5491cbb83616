"""The taints kube's node lifecycle controller keeps on a node, from its cordon and its readiness.

`kubectl cordon` sets `spec.unschedulable`; the controller answers with the
`node.kubernetes.io/unschedulable:NoSchedule` taint, and with `not-ready` / `unreachable` taints
(NoSchedule and NoExecute) while a node is not Ready. It owns only these: every other taint on a
node is the user's and stays where it is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.times import format_time
from flotilla.sim.nodes.objects import NodeHealth

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
CONTROLLER_TAINTS = frozenset({UNSCHEDULABLE_TAINT, NOT_READY_TAINT, UNREACHABLE_TAINT})
"""Taints this component owns; every other taint on a node is the user's and is left alone."""


def desired_taints(node: dict[str, Any], health: NodeHealth, now: datetime) -> list[dict[str, Any]]:
    """The node's taints with the controller's own set to match cordon and readiness.

    User taints stay where they are; a controller taint already present keeps its `timeAdded`.
    """
    spec = node.get("spec") or {}
    current = list(spec.get("taints") or [])
    wanted: list[tuple[str, str]] = []
    if spec.get("unschedulable"):
        wanted.append((UNSCHEDULABLE_TAINT, "NoSchedule"))
    if health is not NodeHealth.READY:
        key = UNREACHABLE_TAINT if health is NodeHealth.UNREACHABLE else NOT_READY_TAINT
        wanted += [(key, "NoSchedule"), (key, "NoExecute")]
    kept = [
        t for t in current if t.get("key") not in CONTROLLER_TAINTS or (t["key"], t.get("effect")) in wanted
    ]
    present = {(t.get("key"), t.get("effect")) for t in kept}
    stamp = format_time(now)
    kept += [{"key": k, "effect": e, "timeAdded": stamp} for k, e in wanted if (k, e) not in present]
    return kept
