"""Status conditions of workloads, with kube's rules for when their timestamps move.

Deployment conditions carry `lastUpdateTime` and `lastTransitionTime`, ReplicaSet conditions only
`lastTransitionTime`, Job conditions `lastProbeTime` and `lastTransitionTime`. They are set with
`flotilla.api.conditions.set_workload_condition` (kube's `SetDeploymentCondition` /
`SetCondition`): the same status and reason change nothing, a new reason with the same status keeps
the transition time, and the condition set last moves to the end of the list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.times import format_time


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
