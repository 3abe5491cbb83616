"""Placement preview: where the scheduler would put a binding, and why every other cluster is left out.

`flotilla plan` asks this before anything is applied. The answer must be the scheduler's own, so
the result comes from the same pure pipeline the scheduler controller runs (`core.generic.schedule`,
after the same `needs_scheduling` check); this module only adds the explanation, by re-running
the public stages of that pipeline and recording where each cluster dropped out:

1. A cluster being deleted is skipped, as the scheduler skips it.
2. Filter plugins run in registry order; the first that rejects a cluster names it
   (`TaintToleration: cluster(s) had untolerated taint {key:NoSchedule}`). A ClusterAffinity
   rejection also says which part of the affinity failed (`exclude`, the label selector, a field
   expression, `clusterNames`), because Karmada's message alone does not.
3. Spread constraints select among the feasible clusters; the ones left out are explained by the
   constraint (`region spread: region eu not among the chosen regions us; maxGroups 1`).
4. Division may give a selected cluster no replicas (no static weight rule matches it, no room
   by the estimators, Aggregated packing onto fewer clusters); that is the `ReplicaScheduling`
   stage, named after the placement field that decides it.

For a workload, every cluster that passes the filters also carries its room for more replicas as
the estimators reckon it (`available`: the count, the resource that bounds it and the estimator
that said so), whether or not a new result is made — the numbers the division works with.

Scheduling errors are not exceptions here: they become the `Scheduled` condition the scheduler
would record, and the result it would then leave (empty after `NoClusterFit`, the previous one
otherwise). A binding the scheduler would not reschedule (placement and replicas unchanged)
keeps its result, and the preview says so with no condition.

Time-dependent filters judge at the binding's `now` (a NoExecute toleration that has run out), as
the scheduler does with its clock. When nothing fits without the clusters the application failed on
and the scheduler allows them again (`ScheduleResult.on_failed_clusters`), the explanation is that
second attempt's, and the preview says so.

Karmada breaks exact ties in the replica split by a hash of the resource template's UID
(`tiebreak`). When the two possible tie orders give different splits, the preview says how the tie
went (`tie`): for an existing template, by its UID's hash, which clusters it favoured; for one not
created yet, whose UID is unknown, the other split is returned too (`tie_alternative`), so the
preview never claims more certainty than it has. A result kept as it is is explained the same way
when a first schedule today would give it (a split grown by steady scaling is not).

A cluster a WorkloadAffinity or WorkloadAntiAffinity filter rejects also names the group and the
peers that decide (`peers in app.group=ha on this cluster: web-deployment`); the binding comes with
its peers' placements (`BindingInfo.with_group_peers`), as the scheduler gives it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from flotilla.scheduler.core.affinity import affinity_tier, cluster_matches
from flotilla.scheduler.core.availability import GENERAL, available_estimates
from flotilla.scheduler.core.errors import (
    FitError,
    ScheduledCondition,
    SchedulingError,
    scheduled_condition,
)
from flotilla.scheduler.core.estimation import Estimate, ReplicaEstimator
from flotilla.scheduler.core.generic import ScheduleResult, schedule
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.noderesources import ACCURATE
from flotilla.scheduler.core.placement import SchedulingType, Strategy
from flotilla.scheduler.core.scoring import prioritize_clusters
from flotilla.scheduler.core.selection import CLUSTER_FIELD, REGION_FIELD, select_clusters
from flotilla.scheduler.core.triggers import needs_scheduling
from flotilla.scheduler.framework import Registry
from flotilla.scheduler.plugins import in_tree_registry, spreadconstraint
from flotilla.scheduler.rejections import rejection_detail
from flotilla.scheduler.tiebreak import TieBreak, in_other_order, may_tie, tie_break

DIVISION_STAGE = "ReplicaScheduling"
"""The stage that gives selected clusters their replicas, named after `placement.replicaScheduling`."""
_ESTIMATOR_SOURCES = {GENERAL: "in its resource summary", ACCURATE: "on its nodes"}


class Outcome(enum.StrEnum):
    """What became of one cluster in a preview."""

    PLACED = "Placed"
    """In the result (for a workload, with replicas)."""
    DELETING = "Deleting"
    """Being deleted: the scheduler skips it."""
    FILTERED = "Filtered"
    """A filter plugin rejected it."""
    NOT_SELECTED = "NotSelected"
    """It fits, but the spread constraints chose other clusters."""
    NO_REPLICAS = "NoReplicas"
    """Selected, but the division gave it no replicas."""
    UNPLACED = "Unplaced"
    """It fits, but no new result was made (scheduling failed, or no reschedule was due)."""


@dataclass(frozen=True, slots=True)
class ClusterDecision:
    """One cluster's fate: replicas before and after (None: not in that result), and why."""

    cluster: str
    outcome: Outcome
    current: int | None = None
    planned: int | None = None
    plugin: str = ""
    reason: str = ""
    available: Estimate | None = None
    """Its room for more replicas by the estimators (a workload's clusters that pass the filters)."""


@dataclass(frozen=True, slots=True)
class PlacementPreview:
    """The scheduler's answer for one binding, with a decision for every cluster (sorted by name).

    `condition` is the `Scheduled` condition the round would record, None when the scheduler
    would not reschedule the binding at all. `tie` says how an exact tie in the split went (None
    without one); `tie_alternative` is the other possible split when the template's UID, unknown
    before it is created, decides a tie; empty otherwise.
    """

    decisions: tuple[ClusterDecision, ...]
    condition: ScheduledCondition | None
    targets: tuple[TargetCluster, ...]
    current: tuple[TargetCluster, ...]
    affinity_name: str | None = None
    tie_alternative: tuple[TargetCluster, ...] = ()
    tie: TieBreak | None = None
    on_failed_clusters: bool = False
    """Placed with the clusters the application failed on allowed, because no other cluster fit."""

    @property
    def rescheduled(self) -> bool:
        return self.condition is not None

    @property
    def changed(self) -> bool:
        """True when the planned result differs from the current one."""
        return _as_map(self.targets) != _as_map(self.current)


def preview_placement(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    registry: Registry | None = None,
    *,
    enable_empty_workload_propagation: bool = False,
    estimators: Sequence[ReplicaEstimator] = (),
) -> PlacementPreview:
    """What the scheduler would do with `binding` given `clusters`, and why, without doing it.

    `estimators` are those the scheduler consults beside the general estimator (the accurate one)."""
    registry = registry or in_tree_registry()
    ordered = sorted(clusters, key=lambda cluster: cluster.name)
    present = {cluster.name for cluster in ordered}
    leaving = {cluster.name for cluster in ordered if cluster.deleting}
    leaving.update(target.name for target in binding.clusters if target.name not in present)
    stage = _Stage(registry, estimators, enable_empty_workload_propagation)
    if not needs_scheduling(binding, leaving):
        return _kept(binding, ordered, stage)
    try:
        result = stage.schedule(binding, ordered)
    except SchedulingError as error:
        return _failed(binding, ordered, stage, error)
    explained = replace(binding, scheduler_observed_affinity_name=result.affinity_name or "")
    if result.on_failed_clusters:  # the scheduler allowed them because nothing else fit: explain that round
        explained = replace(explained, application_failed_clusters=frozenset())
    decisions = _explain_success(explained, ordered, stage, result)
    tie = _tie(binding, ordered, stage, result)
    return PlacementPreview(
        decisions=decisions,
        condition=scheduled_condition(None),
        targets=result.clusters,
        current=binding.clusters,
        affinity_name=result.affinity_name,
        tie_alternative=tie.alternative if tie is not None and not tie.known else (),
        tie=tie,
        on_failed_clusters=result.on_failed_clusters,
    )


def _tie(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], stage: _Stage, result: ScheduleResult
) -> TieBreak | None:
    """How the tie order shaped the split: the same round in the other order, compared."""
    if not may_tie(binding):
        return None
    try:
        other = stage.schedule(in_other_order(binding), clusters)
    except SchedulingError:  # the tie order cannot make a feasible split fail; be safe anyway
        return None
    return tie_break(binding.template_uid, result.clusters, other.clusters)


def _current_tie(binding: BindingInfo, clusters: Sequence[ClusterInfo], stage: _Stage) -> TieBreak | None:
    """How the tie order shaped the current split, when a first schedule today would give it: the
    split is then explained as a fresh one. A split grown by steady scaling is not explained."""
    if not may_tie(binding):
        return None
    fresh = replace(binding, clusters=())
    try:
        first = stage.schedule(fresh, clusters)
    except SchedulingError:
        return None
    if _as_map(first.clusters) != _as_map(binding.clusters):
        return None
    return _tie(fresh, clusters, stage, first)


@dataclass(frozen=True, slots=True)
class _Stage:
    """What the scheduler runs with: its plugins, the estimators beside the general one, its flags."""

    registry: Registry
    estimators: Sequence[ReplicaEstimator]
    keep_empty: bool = False

    def schedule(self, binding: BindingInfo, clusters: Sequence[ClusterInfo]) -> ScheduleResult:
        """The scheduler's own round (`core.generic.schedule`)."""
        return schedule(
            binding,
            clusters,
            self.registry,
            enable_empty_workload_propagation=self.keep_empty,
            estimators=self.estimators,
        )

    def room(self, binding: BindingInfo, feasible: Sequence[ClusterInfo]) -> dict[str, Estimate]:
        """Each feasible cluster's room for the binding's replicas, as the division sees it."""
        return available_estimates(binding, feasible, self.estimators)


def _shown_room(binding: BindingInfo, room: Mapping[str, Estimate], name: str) -> Estimate | None:
    """The room a decision reports: a workload's, for a cluster that passed the filters."""
    return room.get(name) if binding.replicas > 0 else None


# --- outcomes without a new result -------------------------------------------------------------


def _kept(binding: BindingInfo, clusters: Sequence[ClusterInfo], stage: _Stage) -> PlacementPreview:
    """No reschedule trigger: the current result stands; other clusters say whether they would fit."""
    reason = "the current result stands (placement and replicas unchanged: no reschedule)"
    decisions = _decide_unplaced(binding, clusters, stage, binding.clusters, reason)
    tie = _current_tie(binding, clusters, stage)
    return PlacementPreview(decisions, None, binding.clusters, binding.clusters, tie=tie)


def _failed(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], stage: _Stage, error: SchedulingError
) -> PlacementPreview:
    """A failed round: `NoClusterFit` empties the result, other errors keep the previous one."""
    targets = () if isinstance(error, FitError) else binding.clusters
    decisions = _decide_unplaced(
        binding, clusters, stage, targets, f"fits, but scheduling failed ({error.reason})"
    )
    return PlacementPreview(decisions, scheduled_condition(error), targets, binding.clusters)


def _decide_unplaced(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    stage: _Stage,
    targets: Sequence[TargetCluster],
    reason: str,
) -> tuple[ClusterDecision, ...]:
    kept = _as_map(targets)
    rejections = {
        cluster.name: _filter_decision(binding, cluster, stage.registry, _current(binding, cluster.name))
        for cluster in clusters
    }
    room = stage.room(binding, [cluster for cluster in clusters if rejections[cluster.name] is None])
    decisions = []
    for cluster in clusters:
        name = cluster.name
        current = _current(binding, name)
        rejected = rejections[name]
        if name in kept:
            decision = ClusterDecision(name, Outcome.PLACED, current, kept[name])
        elif rejected is not None:
            decision = rejected
        else:
            decision = ClusterDecision(name, Outcome.UNPLACED, current, reason=reason)
        decisions.append(replace(decision, available=_shown_room(binding, room, name)))
    return tuple(decisions)


# --- a successful round, explained -------------------------------------------------------------


def _explain_success(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], stage: _Stage, result: ScheduleResult
) -> tuple[ClusterDecision, ...]:
    feasible: list[ClusterInfo] = []
    filtered: dict[str, ClusterDecision] = {}
    for cluster in clusters:
        rejected = _filter_decision(binding, cluster, stage.registry, _current(binding, cluster.name))
        if rejected is None:
            feasible.append(cluster)
        else:
            filtered[cluster.name] = rejected
    scores = prioritize_clusters(stage.registry.score_plugins, binding, feasible)
    room = stage.room(binding, feasible)
    available = {name: estimate.replicas for name, estimate in room.items()}
    tiers = {cluster.name: affinity_tier(binding, cluster) or 0 for cluster in feasible}
    selected = select_clusters(binding, feasible, scores, available, tiers) if feasible else []
    selected_names = {cluster.name for cluster in selected}
    planned = _as_map(result.clusters)
    weights = _static_weights(binding, selected)
    decisions = []
    for cluster in clusters:
        name = cluster.name
        current = _current(binding, name)
        shown = _shown_room(binding, room, name)
        if name in filtered:
            decisions.append(filtered[name])
        elif name in planned:
            reason = _placed_reason(binding, cluster, weights, shown, tiers)
            decisions.append(
                ClusterDecision(name, Outcome.PLACED, current, planned[name], reason=reason, available=shown)
            )
        elif name not in selected_names:
            reason = _spread_reason(binding, cluster, selected)
            decisions.append(
                ClusterDecision(
                    name,
                    Outcome.NOT_SELECTED,
                    current,
                    plugin=spreadconstraint.NAME,
                    reason=reason,
                    available=shown,
                )
            )
        else:
            reason = _division_reason(binding, cluster, weights, shown)
            decisions.append(
                ClusterDecision(
                    name, Outcome.NO_REPLICAS, current, plugin=DIVISION_STAGE, reason=reason, available=shown
                )
            )
    return tuple(decisions)


def _filter_decision(
    binding: BindingInfo, cluster: ClusterInfo, registry: Registry, current: int | None
) -> ClusterDecision | None:
    """The decision for a cluster the scheduler skips or a filter rejects; None when it fits."""
    if cluster.deleting:
        return ClusterDecision(cluster.name, Outcome.DELETING, current, reason="cluster is being deleted")
    for plugin in registry.filter_plugins:
        result = plugin.filter(binding, cluster)
        if result.is_success:
            continue
        reason = "; ".join(result.reasons)
        detail = rejection_detail(plugin.name, binding, cluster)
        reason = f"{reason}: {detail}" if detail else reason
        return ClusterDecision(cluster.name, Outcome.FILTERED, current, plugin=plugin.name, reason=reason)
    return None


def _placed_reason(
    binding: BindingInfo,
    cluster: ClusterInfo,
    weights: Mapping[str, int],
    available: Estimate | None,
    tiers: Mapping[str, int],
) -> str:
    """What a placed cluster's share rests on: its static weight or its room for replicas."""
    parts = []
    if tiers.get(cluster.name, 0) > 0:
        parts.append(f"overflow tier {tiers[cluster.name]}")
    if binding.replicas > 0:
        strategy = binding.placement.strategy
        if strategy == Strategy.STATIC_WEIGHT:
            parts.append(f"static weight {weights.get(cluster.name, 0)}")
        elif strategy != Strategy.DUPLICATED:
            count = available.replicas if available else 0
            room = f"room for {count} more replica{'' if count == 1 else 's'}"
            bound = bound_text(available)
            parts.append(f"{room}, {bound}" if bound else room)
    return ", ".join(parts)


def _spread_reason(binding: BindingInfo, cluster: ClusterInfo, selected: Sequence[ClusterInfo]) -> str:
    constraints = {item.spread_by_field: item for item in binding.placement.spread_constraints}
    chosen = ", ".join(item.name for item in selected) or "<none>"
    by_cluster = constraints.get(CLUSTER_FIELD)
    if REGION_FIELD in constraints:
        regions = sorted({item.region for item in selected})
        if cluster.region not in regions:
            region = constraints[REGION_FIELD]
            return (
                f"region spread: region {cluster.region} not among the chosen regions {', '.join(regions)} "
                f"(minGroups {region.min_groups}, maxGroups {region.max_groups})"
            )
        peers = ", ".join(item.name for item in selected if item.region == cluster.region)
        if by_cluster is None:
            return f"region spread: one cluster per region, and region {cluster.region} has {peers}"
        return (
            f"region spread: region {cluster.region} already has {peers}; "
            f"cluster maxGroups {by_cluster.max_groups} reached"
        )
    if by_cluster is not None:
        return f"cluster spread: maxGroups {by_cluster.max_groups}, ranked below {chosen}"
    return f"spread constraints chose {chosen}"


def _division_reason(
    binding: BindingInfo, cluster: ClusterInfo, weights: Mapping[str, int], available: Estimate | None
) -> str:
    strategy = binding.placement.strategy
    if strategy == Strategy.STATIC_WEIGHT:
        weight = weights.get(cluster.name, 0)
        if weight == 0:
            return "no staticWeightList rule matches the cluster (weight 0)"
        return f"static weight {weight} earned none of {binding.replicas} replicas"
    room = available.replicas if available is not None else 0
    if room <= 0:
        bound = bound_text(available)
        separator = ", " if available is not None and available.limited_by else ": "
        return f"no room for a replica{separator}{bound}" if bound else "no room for a replica"
    if binding.placement.scheduling_type == SchedulingType.DIVIDED and binding.clusters:
        previous = sum(target.replicas for target in binding.clusters)
        if previous >= binding.replicas:
            return "replicas stay where they run (steady division: scale-down or unchanged total)"
    if strategy == Strategy.AGGREGATED:
        return f"Aggregated: the replicas fit on fewer clusters (room for {room})"
    return f"room for {room} replicas earned none of {binding.replicas}"


def bound_text(estimate: Estimate | None) -> str:
    """What bounds a cluster's room, and by whose reckoning: `limited by cpu on its nodes`,
    `limited by pods in its resource summary`, or the reason nothing fits."""
    if estimate is None:
        return ""
    if not estimate.limited_by:
        return estimate.reason
    source = _ESTIMATOR_SOURCES.get(estimate.estimator, "")
    return f"limited by {estimate.limited_by} {source}".rstrip()


def _static_weights(binding: BindingInfo, selected: Sequence[ClusterInfo]) -> dict[str, int]:
    """The weight of each selected cluster by the static weight list, as the division reads it:
    the largest matching rule's weight, and 1 for every cluster when no rule matches any of them."""
    scheduling = binding.placement.replica_scheduling
    preference = scheduling.weight_preference if scheduling is not None else None
    rules = preference.static_weight_list if preference is not None else ()
    weights = {
        cluster.name: max(
            (rule.weight for rule in rules if cluster_matches(cluster, rule.target_cluster)), default=0
        )
        for cluster in selected
    }
    if not any(weight > 0 for weight in weights.values()):
        return dict.fromkeys(weights, 1)
    return weights


def _current(binding: BindingInfo, cluster_name: str) -> int | None:
    return binding.assigned_replicas(cluster_name) if binding.targets(cluster_name) else None


def _as_map(targets: Sequence[TargetCluster]) -> dict[str, int]:
    return {target.name: target.replicas for target in targets}
