"""When a workload moves back: which of the clusters it left are due, and what the binding keeps.

A binding remembers the clusters it left in two annotations of the same format
(`flotilla.api.karmada.clustertimes`): the taint manager's `failover.flotilla.io/evicted-from` and
application failover's `failover.flotilla.io/application-failed-on`, each cluster → when it left.
Its policy's `failover.flotilla.io/failback-after` says how long such a cluster must have been
healthy before the workload may return. A cluster is **due** when, for at least that long:

- it has been `Ready=True` without a NoExecute taint — counted from the later of its Ready
  condition's `lastTransitionTime` and the moment it was first seen without such a taint
  (`healthy_since`: a taint's removal leaves no time on the Cluster, so the controller notes when
  it saw the cluster clear, and a restarted controller counts from its start — later, never
  sooner);
- and the workload has been away from it — counted from its latest entry. An application fails
  over from a cluster that stays Ready, so without this the workload would go straight back to
  where it just failed: failback-after is then also the time before trying that cluster again.

A cluster is not due while a graceful eviction task of the binding names it (its old copy is still
on its way out, and the scheduler keeps it out meanwhile), nor while it carries a NoSchedule taint
the placement does not tolerate (a fresh schedule could not place anything there). A cluster that is
in `spec.clusters` again (placed back by the scheduler, or by a person) is back already: its
evicted-from entry just goes; its failed-on entry is application failover's to forget, once the
copy there is Healthy.

When any cluster is due, the binding is rescheduled from scratch (`spec.rescheduleTriggeredAt`,
as a WorkloadRebalancer does) and the due clusters' entries go. A fresh schedule makes the
scheduler forget every application-failed-on entry older than the trigger, so the failed-on entries
not yet due are restamped to the trigger's moment to keep those clusters out (their wait starts
again from it). The trigger is a whole second (`metav1.Time`) and must be later than the binding's
`status.lastScheduledTime`, or the scheduler would not act on it: `reschedule_moment` says when.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.conditions import find_condition
from flotilla.api.karmada.clustertimes import ClusterTimes, parse_failback_after
from flotilla.api.karmada.constants import (
    APPLICATION_FAILED_ON_ANNOTATION,
    CLUSTER_CONDITION_READY,
    EVICTED_FROM_ANNOTATION,
    FAILBACK_AFTER_ANNOTATION,
)
from flotilla.api.times import timestamp
from flotilla.api.tolerations import NO_EXECUTE, NO_SCHEDULE, taints_of, tolerations_of, untolerated_taint

Object = Mapping[str, Any]

RECORDS = (EVICTED_FROM_ANNOTATION, APPLICATION_FAILED_ON_ANNOTATION)
"""The binding's annotations naming the clusters it left, and when."""


def failback_after(policy: Object | None) -> float | None:
    """Seconds of the policy's failback-after; None when it does not ask (ValueError when unreadable)."""
    annotations = ((policy or {}).get("metadata") or {}).get("annotations") or {}
    value = annotations.get(FAILBACK_AFTER_ANNOTATION)
    if value is None:
        return None
    return parse_failback_after(str(value))


def clear(cluster: Object | None) -> bool:
    """Whether a Cluster is Ready=True, without a NoExecute taint, and not being deleted."""
    if cluster is None or (cluster.get("metadata") or {}).get("deletionTimestamp"):
        return False
    if any(taint.effect == NO_EXECUTE for taint in taints_of((cluster.get("spec") or {}).get("taints"))):
        return False
    ready = find_condition((cluster.get("status") or {}).get("conditions"), CLUSTER_CONDITION_READY)
    return ready is not None and ready.get("status") == "True"


def healthy_since(cluster: Object | None, seen_clear: datetime) -> datetime | None:
    """Since when a clear cluster has been healthy: the later of its Ready transition and `seen_clear`
    (when it was first seen clear); None when it is not clear now."""
    if not clear(cluster):
        return None
    ready = find_condition(((cluster or {}).get("status") or {}).get("conditions"), CLUSTER_CONDITION_READY)
    transition = timestamp((ready or {}).get("lastTransitionTime"))
    return seen_clear if transition is None else max(transition, seen_clear)


def keeps_out(cluster: Object | None, placement: Object) -> bool:
    """Whether a NoSchedule taint of the cluster that the placement does not tolerate keeps it out."""
    taints = taints_of(((cluster or {}).get("spec") or {}).get("taints"))
    tolerations = tolerations_of(placement.get("clusterTolerations"))
    return untolerated_taint(taints, tolerations, (NO_SCHEDULE,)) is not None


@dataclass(frozen=True, slots=True)
class DueCluster:
    """A cluster the workload may move back to: healthy since `healthy_since`, left at `left_at`."""

    cluster: str
    healthy_since: datetime
    left_at: datetime


@dataclass(frozen=True, slots=True)
class Decision:
    due: tuple[DueCluster, ...] = ()
    """Clusters due now: when any, the binding is rescheduled from scratch."""
    records: dict[str, ClusterTimes] = field(default_factory=dict)
    """Each record annotation's entries after the decision (a change only where they differ)."""
    next_due: float | None = None
    """Seconds until the next healthy cluster becomes due; None when none will by waiting alone."""


def decide(
    *,
    records: Mapping[str, ClusterTimes],
    scheduled: Collection[str],
    evicting: Collection[str],
    healthy: Mapping[str, datetime | None],
    kept_out: Collection[str],
    failback_after: float,
    now: datetime,
    trigger: datetime,
) -> Decision:
    """Which clusters of `records` are due at `now` and the records left.

    `healthy` is each recorded cluster's `healthy_since` (None or absent: not healthy now);
    `evicting` the clusters the binding's eviction tasks name; `kept_out` the clusters a NoSchedule
    taint keeps out of this placement; `trigger` the moment a reschedule would be stamped with.
    """
    after = timedelta(seconds=failback_after)
    left_at = _left_at(records)
    due: list[DueCluster] = []
    waits: list[float] = []
    for cluster, left in left_at.items():
        since = healthy.get(cluster)
        if cluster in scheduled or cluster in evicting or cluster in kept_out or since is None:
            continue
        ready_at = max(since, left) + after
        if ready_at <= now:
            due.append(DueCluster(cluster, since, left))
        else:
            waits.append((ready_at - now).total_seconds())
    gone = {entry.cluster for entry in due}
    kept = {
        EVICTED_FROM_ANNOTATION: {
            cluster: moment
            for cluster, moment in records.get(EVICTED_FROM_ANNOTATION, {}).items()
            if cluster not in gone and cluster not in scheduled
        },
        APPLICATION_FAILED_ON_ANNOTATION: {
            cluster: max(moment, trigger) if due else moment
            for cluster, moment in records.get(APPLICATION_FAILED_ON_ANNOTATION, {}).items()
            if cluster not in gone
        },
    }
    return Decision(tuple(due), kept, min(waits) if waits and not due else None)


def reschedule_moment(now: datetime, last_scheduled: datetime | None) -> datetime | None:
    """The whole second to stamp `rescheduleTriggeredAt` with, or None while it would not be later than
    the last schedule (the scheduler would ignore it; ask again a second later)."""
    moment = now.replace(microsecond=0)
    if last_scheduled is not None and moment <= last_scheduled:
        return None
    return moment


def record_names(records: Mapping[str, ClusterTimes]) -> set[str]:
    """Every cluster any record names."""
    return {cluster for entries in records.values() for cluster in entries}


def _left_at(records: Mapping[str, ClusterTimes]) -> dict[str, datetime]:
    """Each recorded cluster's latest entry across the records."""
    latest: dict[str, datetime] = {}
    for entries in records.values():
        for cluster, moment in entries.items():
            latest[cluster] = max(moment, latest.get(cluster, moment))
    return latest
