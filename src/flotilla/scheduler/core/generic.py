"""The scheduling pipeline for one binding: filter → score → select → divide replicas.

`schedule` is Karmada's generic scheduler plus its handling of ordered `clusterAffinities`:

1. Clusters being deleted are skipped; every filter plugin must pass. No cluster left raises
   `FitError` (`0/N clusters are available: …`).
2. Score plugins are summed per cluster.
3. Spread constraints pick the clusters (`selection`), using each cluster's free capacity: the
   smallest answer of the general estimator (its resource summary) and the estimators given —
   the accurate one, from the member's nodes and pods (`availability`, `noderesources`).
4. Replicas are divided by the binding's strategy (`division`); clusters left with 0 replicas are
   dropped unless empty-workload propagation is on.

With `clusterAffinities`, terms are tried in order starting at the one the binding currently
observes (`status.schedulerObservingAffinityName`; the first when unset): the first term that
schedules wins and its name is returned for the status. If every term fails, the first failure
is raised. The scheduler never moves back to an earlier term by itself; only an explicit
reschedule (`rescheduleTriggeredAt` after `lastScheduledTime`) starts again at the first term.

The clusters the binding's application failed on (`BindingInfo.application_failed_clusters`) are
kept out by the ClusterEviction filter only while something else fits: when the whole attempt ends
in a `FitError`, it is made again with them allowed, and the result says so
(`ScheduleResult.on_failed_clusters`). Only "no cluster passes the filters" brings them back; too
little room on the other clusters (`UnschedulableError`) does not.

Nothing here does I/O: the caller turns the result into `spec.clusters` and the `Scheduled`
condition (`errors.scheduled_condition`), and on a `FitError` writes an empty target list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from flotilla.scheduler.core.affinity import affinity_tier
from flotilla.scheduler.core.availability import available_replicas_by_cluster
from flotilla.scheduler.core.division import assign_replicas
from flotilla.scheduler.core.errors import FitError, SchedulingError
from flotilla.scheduler.core.estimation import ReplicaEstimator
from flotilla.scheduler.core.filtering import find_clusters_that_fit
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.scoring import prioritize_clusters
from flotilla.scheduler.core.selection import select_clusters
from flotilla.scheduler.core.triggers import reschedule_requested
from flotilla.scheduler.framework import Registry


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    """Where the binding goes, and the `clusterAffinities` term that placed it (None without terms)."""

    clusters: tuple[TargetCluster, ...]
    affinity_name: str | None = None
    on_failed_clusters: bool = False
    """Placed with the clusters the application failed on allowed, because no other cluster fit."""

    def spec_clusters(self) -> list[dict[str, Any]]:
        """The result as `spec.clusters` JSON (`replicas` omitted when 0, as Karmada writes it)."""
        return [
            {"name": target.name, "replicas": target.replicas} if target.replicas else {"name": target.name}
            for target in self.clusters
        ]


def schedule(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    registry: Registry,
    *,
    enable_empty_workload_propagation: bool = False,
    estimators: Sequence[ReplicaEstimator] = (),
) -> ScheduleResult:
    """Place `binding` on `clusters`; raises `FitError`, `UnschedulableError` or `SchedulerError`.

    `estimators` size clusters beside the general estimator, which is always consulted."""
    keep_empty = enable_empty_workload_propagation
    try:
        return _schedule_terms(binding, clusters, registry, keep_empty, estimators)
    except FitError:
        if not binding.application_failed_clusters:
            raise
    # Nothing fits without the clusters the application failed on: one of them is better than none.
    allowed = replace(binding, application_failed_clusters=frozenset())
    result = _schedule_terms(allowed, clusters, registry, keep_empty, estimators)
    return replace(result, on_failed_clusters=True)


def _schedule_terms(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    registry: Registry,
    keep_empty: bool,
    estimators: Sequence[ReplicaEstimator],
) -> ScheduleResult:
    """The placement's `clusterAffinities` terms in turn (or its one affinity), the first that schedules."""
    terms = binding.placement.cluster_affinities
    if not terms:
        return ScheduleResult(_schedule_once(binding, clusters, registry, keep_empty, estimators))
    names = [term.name for term in terms]
    observed = binding.scheduler_observed_affinity_name
    start = names.index(observed) if observed in names and not reschedule_requested(binding) else 0
    first_error: SchedulingError | None = None
    for name in names[start:]:
        attempt = replace(binding, scheduler_observed_affinity_name=name)
        try:
            targets = _schedule_once(attempt, clusters, registry, keep_empty, estimators)
        except SchedulingError as error:
            first_error = first_error or error
            continue
        return ScheduleResult(targets, name)
    assert first_error is not None  # the loop ran at least once and every attempt failed
    raise first_error


def _schedule_once(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    registry: Registry,
    keep_empty: bool,
    estimators: Sequence[ReplicaEstimator],
) -> tuple[TargetCluster, ...]:
    outcome = find_clusters_that_fit(registry.filter_plugins, binding, clusters)
    if not outcome.feasible:
        raise FitError(len(clusters), outcome.diagnosis)
    scores = prioritize_clusters(registry.score_plugins, binding, outcome.feasible)
    available = available_replicas_by_cluster(binding, outcome.feasible, estimators)
    tiers = {cluster.name: affinity_tier(binding, cluster) or 0 for cluster in outcome.feasible}
    try:
        selected = select_clusters(binding, outcome.feasible, scores, available, tiers)
    except SchedulingError as error:
        raise error.wrapped("failed to select clusters") from error
    try:
        targets = assign_replicas(binding, selected, available, tiers)
    except SchedulingError as error:
        raise error.wrapped("failed to assign replicas") from error
    if keep_empty:
        named = {target.name for target in targets}
        targets += [TargetCluster(cluster.name) for cluster in selected if cluster.name not in named]
    return tuple(targets)
