"""An application failover as it is written: the eviction task, and the one patch that evicts.

Evicting a cluster is Karmada's `GracefulEvictCluster`: the cluster leaves `spec.clusters` and a
`gracefulEvictionTasks` entry takes its place, saying who evicted it (producer
`resource-binding-application-failover-controller`), why (`ApplicationFailure`, with a message naming
the cluster and how long its copy was unhealthy), how the old copy goes (the policy's
`purgeMode`: `Directly` at once; `Gracefully` once the new copies are healthy or after
`gracePeriodSeconds`; `Never` keeps it, `suppressDeletion: true`, until a person sets it to false),
the replicas it ran, when, and what state to hand on (`preservedLabelState` with the clusters the
workload ran on before, `clustersBeforeFailover`). The graceful eviction controller finishes the
task; the scheduler keeps the cluster out while the task lasts.

Every cluster due in one reconcile leaves in one merge patch, together with the controller's
records (`records`) and pinned to the binding's resourceVersion: a binding the scheduler or
another evictor changed meanwhile is read again rather than overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.api.duration import human_duration
from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import PurgeMode
from flotilla.api.karmada.policy import ApplicationFailoverBehavior
from flotilla.api.times import format_time

MESSAGE_MAX = 1024
"""The API's limit on a task's message."""


@dataclass(frozen=True, slots=True)
class Eviction:
    """One cluster leaving, with the task that records it."""

    cluster: str
    task: dict[str, Any]


def purge_mode(behavior: ApplicationFailoverBehavior) -> str:
    """The policy's purge mode; `Gracefully` when it says none (Karmada's default)."""
    return behavior.purge_mode or PurgeMode.GRACEFULLY


def eviction_message(cluster: str, unhealthy_since: datetime, now: datetime, toleration_seconds: int) -> str:
    """Which cluster, since when and for how long its copy was unhealthy, against the toleration."""
    unhealthy_for = human_duration(now - unhealthy_since)
    message = (
        f"the application on cluster {cluster} has been unhealthy for {unhealthy_for} "
        f"(since {format_time(unhealthy_since)}), longer than its toleration of {toleration_seconds}s"
    )
    return message[:MESSAGE_MAX]


def eviction_task(
    behavior: ApplicationFailoverBehavior,
    *,
    cluster: str,
    replicas: int | None,
    message: str,
    preserved_label_state: Mapping[str, str] | None,
    clusters_before_failover: Sequence[str],
    now: datetime,
) -> dict[str, Any]:
    """The `gracefulEvictionTasks` entry evicting `cluster`, as Karmada's `buildTaskOptions` shapes it."""
    mode = purge_mode(behavior)
    task: dict[str, Any] = {
        "fromCluster": cluster,
        "purgeMode": mode,
        "reason": constants.EVICTION_REASON_APPLICATION_FAILURE,
        "message": message,
        "producer": constants.EVICTION_PRODUCER_APPLICATION_FAILOVER,
    }
    if replicas:
        task["replicas"] = replicas
    if mode == PurgeMode.GRACEFULLY:
        task["gracePeriodSeconds"] = (
            behavior.grace_period_seconds or constants.DEFAULT_GRACEFUL_EVICTION_SECONDS
        )
    elif mode == PurgeMode.NEVER:
        task["suppressDeletion"] = True
    if preserved_label_state is not None:
        task["preservedLabelState"] = dict(preserved_label_state)
        task["clustersBeforeFailover"] = list(clusters_before_failover)
    task["creationTimestamp"] = format_time(now)
    return task


def failover_patch(
    binding: Mapping[str, Any], evictions: Sequence[Eviction], annotations: Mapping[str, str | None]
) -> dict[str, Any]:
    """The merge patch evicting `evictions` and writing `annotations` (None removes one).

    Lists are replaced whole by a merge patch, so `spec.clusters` and `spec.gracefulEvictionTasks`
    are written entire — the targets left, the tasks there were plus the new ones — and pinned to
    the binding's resourceVersion. Records alone are not pinned: a record written from a stale
    read is corrected by the next reconcile, and pinning would make them race every status write.
    """
    patch: dict[str, Any] = {"metadata": {}}
    if annotations:
        patch["metadata"]["annotations"] = dict(annotations)
    if evictions:
        patch["metadata"]["resourceVersion"] = (binding.get("metadata") or {}).get("resourceVersion")
        spec = binding.get("spec") or {}
        leaving = {eviction.cluster for eviction in evictions}
        patch["spec"] = {
            "clusters": [
                target
                for target in spec.get("clusters") or []
                if not (isinstance(target, Mapping) and target.get("name") in leaving)
            ],
            "gracefulEvictionTasks": [
                *(spec.get("gracefulEvictionTasks") or []),
                *(eviction.task for eviction in evictions),
            ],
        }
    return patch
