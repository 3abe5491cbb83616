"""When an application fails over: a toleration per unhealthy copy, and the copies it has run out for.

Karmada's rule (`detectFailure`), level-based over the binding: a copy on a scheduled cluster whose
`aggregatedStatus[].health` is `Unhealthy`, on a cluster no eviction task names yet, starts its
toleration when first seen so; once it has been unhealthy for `tolerationSeconds` (0: at once) the
cluster is due for eviction. `Healthy` or `Unknown` ends the toleration — the next `Unhealthy`
starts it over. A scheduled cluster with no status item yet (its Work is being written) keeps a
running toleration but is not judged until it reports. The earliest moment a running toleration
runs out is when to look again.

The times come in and go out as data (`records`), so a restarted controller, or the next leader,
takes every toleration up where it stood. Everything here is a pure function of the binding and a
clock reading.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from flotilla.api.karmada.clustertimes import ClusterTimes, forgotten_by_reschedule
from flotilla.api.karmada.constants import ResourceHealth
from flotilla.api.karmada.work import AggregatedStatusItem

DEFAULT_TOLERATION_SECONDS = 300
"""Karmada's default `decisionConditions.tolerationSeconds` (the API server's admission sets it too)."""


@dataclass(frozen=True, slots=True)
class DueEviction:
    """A cluster whose copy has been unhealthy for longer than the toleration, and since when."""

    cluster: str
    unhealthy_since: datetime


@dataclass(frozen=True, slots=True)
class Decision:
    running: ClusterTimes
    """The tolerations still running (clusters due for eviction are not among them)."""
    due: tuple[DueEviction, ...]
    started: tuple[str, ...]
    """Clusters whose toleration started now (and has not run out at once)."""
    requeue_after: float | None
    """Seconds until the earliest running toleration runs out; None when none runs."""


def cluster_health(items: Sequence[AggregatedStatusItem]) -> dict[str, str]:
    """Each cluster's health as `aggregatedStatus` reports it."""
    return {item.cluster_name: item.health or ResourceHealth.UNKNOWN for item in items}


def decide(
    *,
    scheduled: Sequence[str],
    evicting: Collection[str],
    health: Mapping[str, str],
    recorded: Mapping[str, datetime],
    toleration_seconds: int,
    now: datetime,
) -> Decision:
    """The tolerations of the copies on `scheduled` clusters and the evictions due at `now`.

    `evicting` are the clusters the binding's eviction tasks name (already on their way out);
    `recorded` the tolerations running before (`records.UNHEALTHY_SINCE_ANNOTATION`).
    """
    running: ClusterTimes = {}
    due: list[DueEviction] = []
    started: list[str] = []
    waits: list[float] = []
    for cluster in dict.fromkeys(scheduled):
        if cluster in evicting:
            continue
        state = health.get(cluster)
        if state is None:
            if cluster in recorded:
                running[cluster] = recorded[cluster]
            continue
        if state != ResourceHealth.UNHEALTHY:
            continue
        since = recorded.get(cluster)
        if since is None:
            since = now
        elapsed = max((now - since).total_seconds(), 0.0)
        if elapsed >= toleration_seconds:
            due.append(DueEviction(cluster, since))
            continue
        if cluster not in recorded:
            started.append(cluster)
        running[cluster] = since
        waits.append(toleration_seconds - elapsed)
    return Decision(running, tuple(due), tuple(started), min(waits) if waits else None)


def still_failed(
    failed_on: Mapping[str, datetime],
    *,
    scheduled: Collection[str],
    health: Mapping[str, str],
    reschedule_triggered_at: datetime | None,
) -> ClusterTimes:
    """The clusters the binding still remembers the application failing on.

    An entry is forgotten when someone asks to reschedule the binding from scratch after it (a
    WorkloadRebalancer sets `rescheduleTriggeredAt`), or when the workload is scheduled there again
    and its copy reports `Healthy` — it no longer fails there.
    """
    kept: ClusterTimes = {}
    for cluster, failed_at in failed_on.items():
        if forgotten_by_reschedule(failed_at, reschedule_triggered_at):
            continue
        if cluster in scheduled and health.get(cluster) == ResourceHealth.HEALTHY:
            continue
        kept[cluster] = failed_at
    return kept
