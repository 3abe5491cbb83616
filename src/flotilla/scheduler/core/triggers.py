"""When a binding needs (re)scheduling, as Karmada's scheduler decides on every binding event.

In this order (`doScheduleBinding`):

1. The placement differs from the one last scheduled (the `policy.karmada.io/applied-placement`
   annotation; none yet means never scheduled). With `clusterAffinities`, a change confined to
   terms other than the one in use does not count.
2. The replicas no longer match the result: Duplicated — some cluster runs a different count;
   Divided — the counts no longer add up to `spec.replicas` (a scale, or an eviction that
   removed a cluster).
3. A reschedule was asked for: `spec.rescheduleTriggeredAt` later than `status.lastScheduledTime`.
4. Duplicated workloads and non-workloads (no replicas) always reschedule, so they follow cluster
   joins and label changes. Divided workloads do not move on cluster changes by themselves.

Beyond Karmada's list, a binding that still targets a cluster being deleted is rescheduled, and a
binding being deleted never is.
"""

from __future__ import annotations

from collections.abc import Collection

from flotilla.scheduler.core.affinity import observed_term
from flotilla.scheduler.core.inputs import BindingInfo
from flotilla.scheduler.core.placement import Placement, SchedulingType


def needs_scheduling(binding: BindingInfo, deleting_clusters: Collection[str] = ()) -> bool:
    """True when the scheduler should place `binding` again."""
    if binding.deleting:
        return False
    placement = binding.placement
    return (
        placement_changed(placement, binding.applied_placement, binding.scheduler_observed_affinity_name)
        or replicas_changed(binding)
        or reschedule_requested(binding)
        or binding.replicas == 0
        or placement.scheduling_type == SchedulingType.DUPLICATED
        or any(target.name in deleting_clusters for target in binding.clusters)
    )


def placement_changed(placement: Placement, applied: Placement | None, observed_affinity_name: str) -> bool:
    """Karmada's `placementChanged`: has the placement moved on since it was last scheduled?"""
    if applied is None:
        return True
    if placement == applied:
        return False
    if (
        placement.cluster_affinity != applied.cluster_affinity
        or placement.cluster_tolerations != applied.cluster_tolerations
        or placement.spread_constraints != applied.spread_constraints
        or placement.replica_scheduling != applied.replica_scheduling
    ):
        return True
    if not observed_affinity_name:
        return True
    current = observed_term(placement, observed_affinity_name)
    previous = observed_term(applied, observed_affinity_name)
    return current is None or previous is None or current != previous


def replicas_changed(binding: BindingInfo) -> bool:
    """Karmada's `IsBindingReplicasChanged`."""
    scheduling = binding.placement.replica_scheduling
    if scheduling is None:
        return False
    if scheduling.scheduling_type == SchedulingType.DUPLICATED:
        return any(target.replicas != binding.replicas for target in binding.clusters)
    return sum(target.replicas for target in binding.clusters) != binding.replicas


def reschedule_requested(binding: BindingInfo) -> bool:
    """Karmada's `RescheduleRequired`: asked after the last successful schedule (never before one)."""
    asked, last = binding.reschedule_triggered_at, binding.last_scheduled_time
    return asked is not None and last is not None and asked > last
