"""A Deployment's status from its ReplicaSets, and the conditions of its rollout (kube's `progress.go`).

Counts add up the ReplicaSets: `replicas` (pods that exist), `updatedReplicas` (those of the new
ReplicaSet), `readyReplicas`, `availableReplicas`, and `unavailableReplicas` (desired minus
available). `Available` is True while at least replicas - maxUnavailable pods are available.
`Progressing` says how the rollout goes: `NewReplicaSetCreated` / `FoundNewReplicaSet` when it
starts, `ReplicaSetUpdated` while pods move (each step of progress renews `lastUpdateTime`),
`NewReplicaSetAvailable` once complete, `ProgressDeadlineExceeded` (False) when no progress was
seen for `progressDeadlineSeconds`; `DeploymentPaused` / `DeploymentResumed` (Unknown) on pause.
`kubectl rollout status` waits for observedGeneration, updatedReplicas, replicas and
availableReplicas to line up, and fails on ProgressDeadlineExceeded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.conditions import find_condition, set_workload_condition
from flotilla.api.times import timestamp
from flotilla.sim.controllers.deployments.rollout import (
    ReplicaSet,
    desired_replicas,
    max_unavailable,
    total_spec_replicas,
    total_status,
)
from flotilla.sim.controllers.podowners import conditions

AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"
NEW_REPLICA_SET_CREATED = "NewReplicaSetCreated"
FOUND_NEW_REPLICA_SET = "FoundNewReplicaSet"
REPLICA_SET_UPDATED = "ReplicaSetUpdated"
NEW_REPLICA_SET_AVAILABLE = "NewReplicaSetAvailable"
PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
_NO_DEADLINE = 2**31 - 1


def has_progress_deadline(deployment: Mapping[str, Any]) -> bool:
    deadline = deployment["spec"].get("progressDeadlineSeconds")
    return deadline is not None and int(deadline) != _NO_DEADLINE


def calculate_status(
    deployment: Mapping[str, Any],
    all_sets: Sequence[ReplicaSet | None],
    new: ReplicaSet | None,
    now: datetime,
) -> dict[str, Any]:
    """Counts and the Available condition (kube's `calculateStatus`); other conditions carried over."""
    previous = deployment.get("status") or {}
    available = total_status(all_sets, "availableReplicas")
    counts = {
        "observedGeneration": deployment["metadata"].get("generation", 1),
        "replicas": total_status(all_sets, "replicas"),
        "updatedReplicas": total_status([new], "replicas"),
        "readyReplicas": total_status(all_sets, "readyReplicas"),
        "availableReplicas": available,
        "unavailableReplicas": max(0, total_spec_replicas(all_sets) - available),
    }
    # kube leaves out the counts that are zero (`omitempty`); clients read them as absent.
    status: dict[str, Any] = {field: value for field, value in counts.items() if value}
    if previous.get("collisionCount") is not None:
        status["collisionCount"] = previous["collisionCount"]
    current = [dict(condition) for condition in previous.get("conditions") or ()]
    if available >= desired_replicas(deployment) - max_unavailable(deployment):
        condition = conditions.deployment_condition(
            AVAILABLE, "True", MINIMUM_REPLICAS_AVAILABLE, "Deployment has minimum availability.", now
        )
    else:
        condition = conditions.deployment_condition(
            AVAILABLE,
            "False",
            MINIMUM_REPLICAS_UNAVAILABLE,
            "Deployment does not have minimum availability.",
            now,
        )
    status["conditions"] = set_workload_condition(current, condition)
    return status


def _count(status: Mapping[str, Any], field: str) -> int:
    return int(status.get(field) or 0)


def is_complete(deployment: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """Every desired pod updated, existing and available, for the current generation."""
    desired = desired_replicas(deployment)
    return (
        _count(status, "updatedReplicas") == desired
        and _count(status, "replicas") == desired
        and _count(status, "availableReplicas") == desired
        and _count(status, "observedGeneration") >= int(deployment["metadata"].get("generation", 1))
    )


def is_progressing(deployment: Mapping[str, Any], new_status: Mapping[str, Any]) -> bool:
    """More pods updated, ready or available than before, or fewer old ones."""
    old = deployment.get("status") or {}
    old_old = _count(old, "replicas") - _count(old, "updatedReplicas")
    new_old = _count(new_status, "replicas") - _count(new_status, "updatedReplicas")
    return (
        _count(new_status, "updatedReplicas") > _count(old, "updatedReplicas")
        or new_old < old_old
        or _count(new_status, "readyReplicas") > _count(old, "readyReplicas")
        or _count(new_status, "availableReplicas") > _count(old, "availableReplicas")
    )


def timed_out(deployment: Mapping[str, Any], status: Mapping[str, Any], now: datetime) -> bool:
    if not has_progress_deadline(deployment):
        return False
    condition = find_condition(status.get("conditions"), PROGRESSING)
    if condition is None:
        return False
    if condition.get("reason") == PROGRESS_DEADLINE_EXCEEDED:
        return True
    if condition.get("reason") == NEW_REPLICA_SET_AVAILABLE:
        return False
    updated = timestamp(str(condition.get("lastUpdateTime") or ""))
    deadline = int(deployment["spec"]["progressDeadlineSeconds"])
    return updated is not None and (now - updated).total_seconds() > deadline


def rollout_status(
    deployment: Mapping[str, Any],
    all_sets: Sequence[ReplicaSet | None],
    new: ReplicaSet | None,
    now: datetime,
) -> dict[str, Any]:
    """The status after a rollout step, Progressing included (kube's `syncRolloutStatus`)."""
    status = calculate_status(deployment, all_sets, new, now)
    if not has_progress_deadline(deployment):
        status["conditions"] = conditions.without(status["conditions"], PROGRESSING)
    current = find_condition((deployment.get("status") or {}).get("conditions"), PROGRESSING)
    finished = (
        _count(status, "replicas") == _count(status, "updatedReplicas")
        and current is not None
        and current.get("reason") == NEW_REPLICA_SET_AVAILABLE
    )
    name = new["metadata"]["name"] if new is not None else ""
    subject = f'ReplicaSet "{name}"' if new is not None else f'Deployment "{deployment["metadata"]["name"]}"'
    if has_progress_deadline(deployment) and not finished:
        if is_complete(deployment, status):
            condition = conditions.deployment_condition(
                PROGRESSING, "True", NEW_REPLICA_SET_AVAILABLE, f"{subject} has successfully progressed.", now
            )
            status["conditions"] = set_workload_condition(status["conditions"], condition)
        elif is_progressing(deployment, status):
            condition = conditions.deployment_condition(
                PROGRESSING, "True", REPLICA_SET_UPDATED, f"{subject} is progressing.", now
            )
            if current is not None and current.get("status") == "True":
                condition["lastTransitionTime"] = current.get("lastTransitionTime")
            # Unlike other conditions, progress renews lastUpdateTime even with the same reason.
            status["conditions"] = [*conditions.without(status["conditions"], PROGRESSING), condition]
        elif timed_out(deployment, status, now):
            condition = conditions.deployment_condition(
                PROGRESSING, "False", PROGRESS_DEADLINE_EXCEEDED, f"{subject} has timed out progressing.", now
            )
            status["conditions"] = set_workload_condition(status["conditions"], condition)
    failures = _replica_failures(all_sets, new)
    if failures:
        status["conditions"] = set_workload_condition(status["conditions"], failures[0])
    else:
        status["conditions"] = conditions.without(status["conditions"], REPLICA_FAILURE)
    return status


def _replica_failures(all_sets: Sequence[ReplicaSet | None], new: ReplicaSet | None) -> list[dict[str, Any]]:
    """ReplicaSets' ReplicaFailure conditions as Deployment conditions, the new ReplicaSet's first."""
    found: list[dict[str, Any]] = []
    for replica_set in ([new] if new is not None else []) + [rs for rs in all_sets if rs is not new]:
        if replica_set is None:
            continue
        for condition in (replica_set.get("status") or {}).get("conditions") or ():
            if condition.get("type") == REPLICA_FAILURE:
                found.append(
                    {
                        "type": REPLICA_FAILURE,
                        "status": condition.get("status"),
                        "lastUpdateTime": condition.get("lastTransitionTime"),
                        "lastTransitionTime": condition.get("lastTransitionTime"),
                        "reason": condition.get("reason", ""),
                        "message": condition.get("message", ""),
                    }
                )
        if found and replica_set is new:
            return found
    return found


def progress_recheck(deployment: Mapping[str, Any], status: Mapping[str, Any], now: datetime) -> float | None:
    """Seconds until a stalled rollout is checked against its deadline (kube's `requeueStuckDeployment`)."""
    current = find_condition((deployment.get("status") or {}).get("conditions"), PROGRESSING)
    if not has_progress_deadline(deployment) or current is None:
        return None
    if is_complete(deployment, status) or current.get("reason") == PROGRESS_DEADLINE_EXCEEDED:
        return None
    updated = timestamp(str(current.get("lastUpdateTime") or ""))
    if updated is None:
        return None
    left = (updated - now).total_seconds() + int(deployment["spec"]["progressDeadlineSeconds"])
    return 0.0 if left < 1 else left + 1
