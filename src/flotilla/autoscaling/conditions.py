"""An autoscaler's status conditions (an HPA's or a FederatedHPA's), set as kube's HPA controller sets them.

`AbleToScale` says whether the target's scale could be read and written, `ScalingActive` whether
a replica count could be computed from the metrics, `ScalingLimited` whether the count was held
back by the bounds or the rate limits. Setting a condition keeps its place in the list and its
`lastTransitionTime` unless the status changes (`setConditionInList`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.autoscaling import HPAConditionType

Condition = dict[str, Any]


def set_condition(
    conditions: list[Condition],
    kind: HPAConditionType,
    status: bool,
    reason: str,
    message: str,
    now: str,
) -> None:
    """Set condition `kind` in place; `now` (RFC 3339) is its transition time if its status changes."""
    value = "True" if status else "False"
    existing = next((c for c in conditions if c.get("type") == kind), None)
    if existing is None:
        existing = {"type": str(kind)}
        conditions.append(existing)
    if existing.get("status") != value:
        existing["lastTransitionTime"] = now
    existing["status"] = value
    existing["reason"] = reason
    existing["message"] = message
