"""Status conditions of workloads, with kube's rules for when their timestamps move.

Deployment conditions carry `lastUpdateTime` and `lastTransitionTime`, ReplicaSet conditions only
`lastTransitionTime`, Job conditions `lastProbeTime` and `lastTransitionTime`. Setting a condition
that already has the same status and reason changes nothing; a new reason with the same status
keeps the transition time (kube's `SetDeploymentCondition` / `SetCondition`). The condition set
last moves to the end of the list, as in kube.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.times import format_time


def find(conditions: Sequence[Mapping[str, Any]] | None, kind: str) -> Mapping[str, Any] | None:
    for condition in conditions or ():
        if condition.get("type") == kind:
            return condition
    return None


def without(conditions: Sequence[Mapping[str, Any]] | None, kind: str) -> list[dict[str, Any]]:
    return [dict(condition) for condition in conditions or () if condition.get("type") != kind]


def deployment_condition(kind: str, status: str, reason: str, message: str, now: datetime) -> dict[str, Any]:
    stamp = format_time(now)
    return {
        "type": kind,
        "status": status,
        "lastUpdateTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }


def replica_set_condition(kind: str, status: str, reason: str, message: str, now: datetime) -> dict[str, Any]:
    return {
        "type": kind,
        "status": status,
        "lastTransitionTime": format_time(now),
        "reason": reason,
        "message": message,
    }


def job_condition(kind: str, status: str, reason: str, message: str, now: datetime) -> dict[str, Any]:
    stamp = format_time(now)
    condition = {"type": kind, "status": status, "lastProbeTime": stamp, "lastTransitionTime": stamp}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def set_condition(
    conditions: Sequence[Mapping[str, Any]] | None, new: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The conditions with `new` set: unchanged if one of its type has the same status and reason."""
    current = find(conditions, str(new["type"]))
    if (
        current is not None
        and current.get("status") == new["status"]
        and current.get("reason") == new.get("reason")
    ):
        return [dict(condition) for condition in conditions or ()]
    updated = dict(new)
    if current is not None and current.get("status") == new["status"]:
        updated["lastTransitionTime"] = current.get("lastTransitionTime")
    return [*without(conditions, str(new["type"])), updated]
