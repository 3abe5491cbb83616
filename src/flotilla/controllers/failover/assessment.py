"""Which graceful eviction tasks of a binding are done, as pure functions (Karmada's `evictiontask.go`).

A task keeps the old copy of a workload on the cluster it was evicted from (unless its purge mode is
`Directly`). Each task is looked at in turn:

1. `suppressDeletion: true` keeps it; `suppressDeletion: false` drops it now — a person confirmed.
   A task with purge mode `Never` and no `suppressDeletion` is kept too: `Never` waits for a person
   (Karmada's application failover writes `suppressDeletion: true` with it).
2. A task without `creationTimestamp` (written by someone who did not stamp it) is stamped now and
   kept, as in Karmada.
3. Past `creationTimestamp` + `gracePeriodSeconds` (or the manager's `--graceful-eviction-timeout`),
   it is dropped: the old copy has had its time.
4. Once the binding has been scheduled since its last change (`schedulerObservedGeneration` equals
   `generation`) and every cluster in `spec.clusters` reports `aggregatedStatus[].health: Healthy`,
   it is dropped: the workload runs elsewhere.

Two guards go beyond Karmada, both so that an old copy is never removed before a new one serves:
an empty `spec.clusters` is not "healthy elsewhere" (Karmada's check passes vacuously there, and
would remove the last copy of a workload that fits nowhere else), and a workload cluster whose
reported status counts fewer available (or ready) replicas than it is scheduled to run is not
healthy yet — right after a reschedule the statuses still describe the old, smaller share, which
the interpreter calls Healthy until the member has seen the new Work.

`assess` returns the tasks to keep, the dropped ones with why, and when to look again: the earliest
deadline among the kept tasks that have one.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.karmada.constants import PurgeMode, ResourceHealth
from flotilla.api.times import format_time, timestamp

Object = Mapping[str, Any]


class Drop(enum.StrEnum):
    """Why a task was dropped (and the old copy, unless already gone, removed)."""

    CONFIRMED = "Confirmed"
    TIMEOUT = "Timeout"
    HEALTHY = "HealthyElsewhere"


@dataclass(frozen=True, slots=True)
class DroppedTask:
    task: Object
    why: Drop


@dataclass(frozen=True, slots=True)
class Assessment:
    kept: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[DroppedTask] = field(default_factory=list)
    changed: bool = False
    """Whether the tasks to write differ from the binding's (a task dropped or stamped)."""
    next_check: float | None = None
    """Seconds until the earliest deadline of a kept task; None when no kept task has one."""


def waits_for_a_person(task: Object) -> bool:
    """Kept until someone sets `suppressDeletion: false`: suppressed, or `Never` with nothing said."""
    suppress = task.get("suppressDeletion")
    if suppress is not None:
        return suppress is True
    return task.get("purgeMode") == PurgeMode.NEVER


def deadline(task: Object, default_timeout: float) -> datetime | None:
    """When the task's grace period ends; None without a creation time."""
    created = timestamp(task.get("creationTimestamp"))
    if created is None:
        return None
    grace = task.get("gracePeriodSeconds")
    seconds = grace if isinstance(grace, int) and not isinstance(grace, bool) else default_timeout
    return created + timedelta(seconds=seconds)


def scheduled(binding: Object) -> bool:
    """Whether the scheduler has seen the binding's current spec."""
    observed = (binding.get("status") or {}).get("schedulerObservedGeneration")
    return observed is not None and observed == (binding.get("metadata") or {}).get("generation")


def healthy_elsewhere(clusters: Sequence[Object], aggregated_status: Sequence[Object]) -> bool:
    """Every scheduled cluster (at least one) reports the workload Healthy, carrying its share."""
    if not clusters:
        return False
    items = {item.get("clusterName"): item for item in aggregated_status}
    for target in clusters:
        item = items.get(target.get("name"))
        if item is None or item.get("health") != ResourceHealth.HEALTHY:
            return False
        if not _carries(item, target.get("replicas")):
            return False
    return True


def _carries(item: Object, replicas: object) -> bool:
    """Whether a workload's reported status has the replicas it is scheduled to run available."""
    status = item.get("status")
    if not isinstance(replicas, int) or replicas <= 0 or not isinstance(status, Mapping):
        return True
    for counter in ("availableReplicas", "readyReplicas"):
        value = status.get(counter)
        if isinstance(value, int) and not isinstance(value, bool):
            return value >= replicas
    return True


def assess(binding: Object, now: datetime, default_timeout: float) -> Assessment:
    """The binding's tasks assessed at `now` (Karmada's `assessEvictionTasks` with the guards above)."""
    spec = binding.get("spec") or {}
    tasks = [t for t in spec.get("gracefulEvictionTasks") or [] if isinstance(t, Mapping)]
    done = scheduled(binding) and healthy_elsewhere(
        [t for t in spec.get("clusters") or [] if isinstance(t, Mapping)],
        [i for i in (binding.get("status") or {}).get("aggregatedStatus") or [] if isinstance(i, Mapping)],
    )
    kept: list[dict[str, Any]] = []
    dropped: list[DroppedTask] = []
    stamped = False
    deadlines: list[datetime] = []
    for task in tasks:
        why = _drop(task, now, default_timeout, done)
        if why is not None:
            dropped.append(DroppedTask(task, why))
            continue
        entry = dict(task)
        if not entry.get("creationTimestamp"):
            entry["creationTimestamp"] = format_time(now)
            stamped = True
        end = deadline(entry, default_timeout)
        if end is not None and not waits_for_a_person(entry):
            deadlines.append(end)
        kept.append(entry)
    next_check = min((max((d - now).total_seconds(), 0.0) for d in deadlines), default=None)
    return Assessment(kept, dropped, bool(dropped) or stamped, next_check)


def _drop(task: Object, now: datetime, default_timeout: float, healthy: bool) -> Drop | None:
    if task.get("suppressDeletion") is False:
        return Drop.CONFIRMED
    if waits_for_a_person(task):
        return None
    end = deadline(task, default_timeout)
    if end is None:
        return None  # stamped now, judged from the next look on (Karmada does the same)
    if now >= end:
        return Drop.TIMEOUT
    return Drop.HEALTHY if healthy else None
