"""What the descheduler decides for one binding: which bindings it looks at, and how many replicas
it takes back from each cluster (Karmada's `pkg/descheduler/core`).

- Only ResourceBindings of `apps/v1` Deployments whose applied placement (the
  `policy.karmada.io/applied-placement` annotation: what the scheduler last placed by) divides
  replicas dynamically — Divided with Aggregated, or with `dynamicWeight` — are in scope; static
  weights and Duplicated placements say where replicas go whatever the capacity, so there is
  nothing to correct.
- Per target cluster, `ready` is `aggregatedStatus[].status.readyReplicas`; a cluster whose status
  does not carry it (zero ready is omitted from a Deployment's status) has an unknown ready count,
  Karmada's "unauthentic" -1.
- A cluster whose ready count is below its share ("undesired") is asked how many of its replicas
  have been unschedulable for longer than the threshold (`unschedulable`).
- With `u > 0` unschedulable out of a share `s >= u`, the share becomes `s - u`, but never less
  than the ready count when that is known and at most `s`. Each change is reported as
  "N replica(s) in cluster(X)", in Karmada's event message.

The scheduler then sees fewer replicas assigned than desired and places the difference (Steady
mode), where the estimators find room.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from flotilla.scheduler.core.inputs import BindingInfo
from flotilla.scheduler.core.placement import Strategy

DEPLOYMENT = ("apps/v1", "Deployment")
DYNAMIC_STRATEGIES = frozenset({Strategy.AGGREGATED, Strategy.DYNAMIC_WEIGHT})
SUCCESS_MESSAGE = "Binding has been descheduled"


@dataclass(frozen=True, slots=True)
class ClusterReplicas:
    """One target cluster of a binding: its share, its ready replicas (None: unknown) and how many
    of its replicas have been unschedulable past the threshold."""

    cluster: str
    spec: int
    ready: int | None
    unschedulable: int = 0

    @property
    def undesired(self) -> bool:
        """Fewer replicas ready than the share (an unknown ready count counts as fewer)."""
        return self.ready is None or self.ready < self.spec


@dataclass(frozen=True, slots=True)
class Descheduled:
    """A cluster's share cut from `spec` to `target`."""

    cluster: str
    spec: int
    target: int

    @property
    def taken(self) -> int:
        return self.spec - self.target


def in_scope(binding: Mapping[str, Any]) -> bool:
    """A Deployment's ResourceBinding whose applied placement divides replicas dynamically."""
    if binding.get("kind") not in (None, "ResourceBinding"):
        return False
    info = BindingInfo.from_object(binding)
    if (info.api_version, info.kind) != DEPLOYMENT or info.deleting:
        return False
    return info.applied_placement is not None and info.applied_placement.strategy in DYNAMIC_STRATEGIES


def replica_statuses(binding: Mapping[str, Any]) -> list[ClusterReplicas]:
    """Each target cluster's share and ready replicas, in `spec.clusters` order."""
    ready = ready_replicas(binding)
    clusters = (binding.get("spec") or {}).get("clusters") or []
    return [
        ClusterReplicas(
            str(item.get("name") or ""), _integer(item.get("replicas")), ready.get(str(item.get("name")))
        )
        for item in clusters
        if isinstance(item, Mapping)
    ]


def ready_replicas(binding: Mapping[str, Any]) -> dict[str, int]:
    """`readyReplicas` per cluster from `status.aggregatedStatus`, for the clusters that report it."""
    found: dict[str, int] = {}
    for item in (binding.get("status") or {}).get("aggregatedStatus") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("status"), Mapping):
            continue
        value = item["status"].get("readyReplicas")
        if isinstance(value, int) and not isinstance(value, bool):
            found[str(item.get("clusterName") or "")] = value
    return found


def with_unschedulable(
    statuses: Sequence[ClusterReplicas], unschedulable: Mapping[str, int]
) -> list[ClusterReplicas]:
    """The statuses with each undesired cluster's unschedulable count (0 where none is known)."""
    return [
        replace(status, unschedulable=unschedulable.get(status.cluster, 0)) if status.undesired else status
        for status in statuses
    ]


def deschedule(statuses: Sequence[ClusterReplicas]) -> list[Descheduled]:
    """The clusters whose share shrinks, and to what (Karmada's `updateScheduleResult`)."""
    changes = []
    for status in statuses:
        if status.unschedulable <= 0 or status.spec < status.unschedulable:
            continue
        target = status.spec - status.unschedulable
        if status.ready is not None and target < status.ready <= status.spec:
            target = status.ready
        if target < status.spec:
            changes.append(Descheduled(status.cluster, status.spec, target))
    return changes


def descheduled_clusters(binding: Mapping[str, Any], changes: Sequence[Descheduled]) -> list[dict[str, Any]]:
    """`spec.clusters` with the changed shares (a share of 0 stays listed without `replicas`, as
    Karmada's update leaves it; the scheduler drops it when it places the difference)."""
    targets = {change.cluster: change.target for change in changes}
    clusters = []
    for item in (binding.get("spec") or {}).get("clusters") or []:
        if not isinstance(item, Mapping):
            continue
        entry = dict(item)
        name = str(entry.get("name") or "")
        if name in targets:
            entry.pop("replicas", None)
            if targets[name]:
                entry["replicas"] = targets[name]
        clusters.append(entry)
    return clusters


def event_message(changes: Sequence[Descheduled]) -> str:
    """Karmada's event message: `Binding has been descheduled, 2 replica(s) in cluster(member1), …`."""
    parts = [
        SUCCESS_MESSAGE,
        *(f"{change.taken} replica(s) in cluster({change.cluster})" for change in changes),
    ]
    total = sum(change.taken for change in changes)
    return ", ".join([*parts, f"{total} total descheduled replica(s)"])


def _integer(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
