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
   by its resource summary, Aggregated packing onto fewer clusters); that is the
   `ReplicaScheduling` stage, named after the placement field that decides it.

Scheduling errors are not exceptions here: they become the `Scheduled` condition the scheduler
would record, and the result it would then leave (empty after `NoClusterFit`, the previous one
otherwise). A binding the scheduler would not reschedule (placement and replicas unchanged)
keeps its result, and the preview says so with no condition.

A new binding's UID is not known before it exists, yet Karmada breaks exact ties in the replica
split by a hash of it. When the two possible tie orders give different splits, the other one is
returned too (`tie_alternative`), so the preview never claims more certainty than it has.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from flotilla.scheduler.core.affinity import affinity_tier, affinity_tiers, cluster_matches
from flotilla.scheduler.core.availability import available_replicas_by_cluster
from flotilla.scheduler.core.errors import (
    FitError,
    ScheduledCondition,
    SchedulingError,
    scheduled_condition,
)
from flotilla.scheduler.core.generic import ScheduleResult, schedule
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.placement import ClusterAffinity, FieldRequirement, SchedulingType, Strategy
from flotilla.scheduler.core.scoring import prioritize_clusters
from flotilla.scheduler.core.selection import CLUSTER_FIELD, REGION_FIELD, select_clusters
from flotilla.scheduler.core.triggers import needs_scheduling
from flotilla.scheduler.framework import Registry
from flotilla.scheduler.plugins import clusteraffinity, in_tree_registry, spreadconstraint

DIVISION_STAGE = "ReplicaScheduling"
"""The stage that gives selected clusters their replicas, named after `placement.replicaScheduling`."""
DESCENDING_TIE_UID = "descending"
"""A stand-in UID whose FNV-1a hash is odd: Karmada's descending tie order for a binding's split."""


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


@dataclass(frozen=True, slots=True)
class PlacementPreview:
    """The scheduler's answer for one binding, with a decision for every cluster (sorted by name).

    `condition` is the `Scheduled` condition the round would record, None when the scheduler
    would not reschedule the binding at all. `tie_alternative` is the other possible split when
    the binding's UID (unknown before creation) decides a tie; empty otherwise.
    """

    decisions: tuple[ClusterDecision, ...]
    condition: ScheduledCondition | None
    targets: tuple[TargetCluster, ...]
    current: tuple[TargetCluster, ...]
    affinity_name: str | None = None
    tie_alternative: tuple[TargetCluster, ...] = ()

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
) -> PlacementPreview:
    """What the scheduler would do with `binding` given `clusters`, and why, without doing it."""
    registry = registry or in_tree_registry()
    ordered = sorted(clusters, key=lambda cluster: cluster.name)
    present = {cluster.name for cluster in ordered}
    leaving = {cluster.name for cluster in ordered if cluster.deleting}
    leaving.update(target.name for target in binding.clusters if target.name not in present)
    if not needs_scheduling(binding, leaving):
        return _kept(binding, ordered, registry)
    try:
        result = schedule(
            binding, ordered, registry, enable_empty_workload_propagation=enable_empty_workload_propagation
        )
    except SchedulingError as error:
        return _failed(binding, ordered, registry, error)
    explained = replace(binding, scheduler_observed_affinity_name=result.affinity_name or "")
    decisions = _explain_success(explained, ordered, registry, result)
    alternative: tuple[TargetCluster, ...] = ()
    if not binding.uid and binding.replicas > 0:
        try:
            other = schedule(
                replace(binding, uid=DESCENDING_TIE_UID),
                ordered,
                registry,
                enable_empty_workload_propagation=enable_empty_workload_propagation,
            )
        except SchedulingError:  # the tie order cannot make a feasible split fail; be safe anyway
            other = result
        if _as_map(other.clusters) != _as_map(result.clusters):
            alternative = other.clusters
    return PlacementPreview(
        decisions=decisions,
        condition=scheduled_condition(None),
        targets=result.clusters,
        current=binding.clusters,
        affinity_name=result.affinity_name,
        tie_alternative=alternative,
    )


# --- outcomes without a new result -------------------------------------------------------------


def _kept(binding: BindingInfo, clusters: Sequence[ClusterInfo], registry: Registry) -> PlacementPreview:
    """No reschedule trigger: the current result stands; other clusters say whether they would fit."""
    reason = "the current result stands (placement and replicas unchanged: no reschedule)"
    decisions = _decide_unplaced(binding, clusters, registry, binding.clusters, reason)
    return PlacementPreview(decisions, None, binding.clusters, binding.clusters)


def _failed(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], registry: Registry, error: SchedulingError
) -> PlacementPreview:
    """A failed round: `NoClusterFit` empties the result, other errors keep the previous one."""
    targets = () if isinstance(error, FitError) else binding.clusters
    decisions = _decide_unplaced(
        binding, clusters, registry, targets, f"fits, but scheduling failed ({error.reason})"
    )
    return PlacementPreview(decisions, scheduled_condition(error), targets, binding.clusters)


def _decide_unplaced(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    registry: Registry,
    targets: Sequence[TargetCluster],
    reason: str,
) -> tuple[ClusterDecision, ...]:
    kept = _as_map(targets)
    decisions = []
    for cluster in clusters:
        current = _current(binding, cluster.name)
        if cluster.name in kept:
            decisions.append(ClusterDecision(cluster.name, Outcome.PLACED, current, kept[cluster.name]))
            continue
        rejected = _filter_decision(binding, cluster, registry, current)
        decisions.append(rejected or ClusterDecision(cluster.name, Outcome.UNPLACED, current, reason=reason))
    return tuple(decisions)


# --- a successful round, explained -------------------------------------------------------------


def _explain_success(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], registry: Registry, result: ScheduleResult
) -> tuple[ClusterDecision, ...]:
    feasible: list[ClusterInfo] = []
    filtered: dict[str, ClusterDecision] = {}
    for cluster in clusters:
        rejected = _filter_decision(binding, cluster, registry, _current(binding, cluster.name))
        if rejected is None:
            feasible.append(cluster)
        else:
            filtered[cluster.name] = rejected
    scores = prioritize_clusters(registry.score_plugins, binding, feasible)
    available = available_replicas_by_cluster(binding, feasible)
    tiers = {cluster.name: affinity_tier(binding, cluster) or 0 for cluster in feasible}
    selected = select_clusters(binding, feasible, scores, available, tiers) if feasible else []
    selected_names = {cluster.name for cluster in selected}
    planned = _as_map(result.clusters)
    weights = _static_weights(binding, selected)
    decisions = []
    for cluster in clusters:
        name = cluster.name
        current = _current(binding, name)
        if name in filtered:
            decisions.append(filtered[name])
        elif name in planned:
            reason = _placed_reason(binding, cluster, weights, available, tiers)
            decisions.append(ClusterDecision(name, Outcome.PLACED, current, planned[name], reason=reason))
        elif name not in selected_names:
            reason = _spread_reason(binding, cluster, selected)
            decisions.append(
                ClusterDecision(
                    name, Outcome.NOT_SELECTED, current, plugin=spreadconstraint.NAME, reason=reason
                )
            )
        else:
            reason = _division_reason(binding, cluster, weights, available)
            decisions.append(
                ClusterDecision(name, Outcome.NO_REPLICAS, current, plugin=DIVISION_STAGE, reason=reason)
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
        if plugin.name == clusteraffinity.NAME:
            detail = affinity_mismatch(binding, cluster)
            reason = f"{reason}: {detail}" if detail else reason
        return ClusterDecision(cluster.name, Outcome.FILTERED, current, plugin=plugin.name, reason=reason)
    return None


def affinity_mismatch(binding: BindingInfo, cluster: ClusterInfo) -> str:
    """Which part of the binding's (first-tier) cluster affinity leaves `cluster` out; "" if none does."""
    tiers = affinity_tiers(binding)
    if not tiers:
        return ""
    affinity = tiers[0]
    term = binding.scheduler_observed_affinity_name or (
        binding.placement.cluster_affinities[0].name if binding.placement.cluster_affinities else ""
    )
    prefix = f"affinity term {term}: " if binding.placement.cluster_affinities else ""
    if cluster.name in affinity.exclude:
        return f"{prefix}cluster is in exclude"
    selector = affinity.label_selector
    if selector is not None and not cluster_matches(cluster, ClusterAffinity(label_selector=selector)):
        return f"{prefix}cluster labels do not match labelSelector {_selector_text(selector.requirements)}"
    for requirement in affinity.field_selector:
        if not cluster_matches(cluster, ClusterAffinity(field_selector=(requirement,))):
            actual = _field_value(cluster, requirement.key)
            return f"{prefix}fieldSelector {_requirement_text(requirement)} does not match {actual}"
    if affinity.cluster_names and cluster.name not in affinity.cluster_names:
        return f"{prefix}cluster is not in clusterNames [{', '.join(affinity.cluster_names)}]"
    return ""


def _selector_text(requirements: Sequence[object]) -> str:
    text = ",".join(str(requirement) for requirement in requirements)
    return text or "<nothing>"


def _requirement_text(requirement: FieldRequirement) -> str:
    values = f" [{', '.join(requirement.values)}]" if requirement.values else ""
    return f"{requirement.key} {requirement.operator}{values}"


def _field_value(cluster: ClusterInfo, key: str) -> str:
    if key == "zone":
        return f"zones [{', '.join(cluster.zones)}]" if cluster.zones else "zones <none>"
    value = {"provider": cluster.provider, "region": cluster.region}.get(key, "")
    return f"{key} {value or '<none>'}"


def _placed_reason(
    binding: BindingInfo,
    cluster: ClusterInfo,
    weights: Mapping[str, int],
    available: Mapping[str, int],
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
            parts.append(f"room for {available.get(cluster.name, 0)} more replicas")
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
    binding: BindingInfo, cluster: ClusterInfo, weights: Mapping[str, int], available: Mapping[str, int]
) -> str:
    strategy = binding.placement.strategy
    if strategy == Strategy.STATIC_WEIGHT:
        weight = weights.get(cluster.name, 0)
        if weight == 0:
            return "no staticWeightList rule matches the cluster (weight 0)"
        return f"static weight {weight} earned none of {binding.replicas} replicas"
    room = available.get(cluster.name, 0)
    if room <= 0:
        return "no room for a replica by its resource summary (0 available)"
    if binding.placement.scheduling_type == SchedulingType.DIVIDED and binding.clusters:
        previous = sum(target.replicas for target in binding.clusters)
        if previous >= binding.replicas:
            return "replicas stay where they run (steady division: scale-down or unchanged total)"
    if strategy == Strategy.AGGREGATED:
        return f"Aggregated: the replicas fit on fewer clusters (room for {room})"
    return f"room for {room} replicas earned none of {binding.replicas}"


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
