"""Replica division: how many replicas each selected cluster gets.

By the binding's strategy (Karmada's `assignment.go`):

- Duplicated: every cluster gets `spec.replicas`.
- Static weights: each cluster weighs the largest `weight` of the `staticWeightList` rules that
  match it; unmatched clusters are left out, and when no cluster matches any rule (or there is no
  list) all weigh 1. Replicas are apportioned from scratch by Webster every time.
- Dynamic weights and Aggregated weigh clusters by how many replicas they can still take:
  - Steady mode (the default) changes as little as it can. On the first schedule and on scale
    up, only the missing replicas are apportioned, by each cluster's free capacity, and added to
    the previous result (replicas on clusters that are no longer candidates count as missing). On
    scale down the previous per-cluster counts are the weights for the new total. An unchanged
    total keeps the previous result.
  - Fresh mode (`rescheduleTriggeredAt` after `lastScheduledTime`) apportions the whole total by
    free capacity plus what each cluster already runs, ignoring the previous result.
  - Aggregated first packs: clusters already running replicas come first, then by capacity, and
    only the shortest prefix that can hold the replicas is used.
  - Overflow tiers fill in order: each tier takes what it can hold of the remainder; scale down
    takes replicas back from the last tier first.
  - Clusters that cannot hold the replicas together fail with `UnschedulableError`.

Every apportionment breaks exact ties by name, in the order the template's UID picks
(`apportionment.names_descending`, as Karmada's dispenser does with `spec.resource.uid`).

Clusters ending with 0 replicas are dropped by the caller. Results are sorted by cluster name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from flotilla.scheduler.core.affinity import cluster_matches
from flotilla.scheduler.core.apportionment import names_descending, webster
from flotilla.scheduler.core.errors import SchedulerError, SchedulingError, UnschedulableError
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.placement import Strategy
from flotilla.scheduler.core.triggers import reschedule_requested


def assign_replicas(
    binding: BindingInfo,
    candidates: Sequence[ClusterInfo],
    available: Mapping[str, int],
    tiers: Mapping[str, int] | None = None,
) -> list[TargetCluster]:
    """The replicas per selected cluster. `available` is each candidate's free capacity in replicas;
    `tiers` each candidate's overflow tier (0 for all when absent). Candidates come best first."""
    if not candidates:
        raise SchedulerError("no clusters available to schedule")
    if binding.replicas <= 0:
        return [TargetCluster(name) for name in sorted(cluster.name for cluster in candidates)]
    strategy = binding.placement.strategy
    if strategy == Strategy.DUPLICATED:
        counts = {cluster.name: binding.replicas for cluster in candidates}
    elif strategy == Strategy.STATIC_WEIGHT:
        counts = _static_weights(binding, candidates)
    else:
        counts = _dynamic(binding, candidates, available, tiers or {})
    return [TargetCluster(name, counts[name]) for name in sorted(counts) if counts[name] > 0]


def _static_weights(binding: BindingInfo, candidates: Sequence[ClusterInfo]) -> dict[str, int]:
    scheduling = binding.placement.replica_scheduling
    preference = scheduling.weight_preference if scheduling is not None else None
    weights: dict[str, int] = {}
    if preference is not None:
        for cluster in candidates:
            weight = max(
                (
                    rule.weight
                    for rule in preference.static_weight_list
                    if cluster_matches(cluster, rule.target_cluster)
                ),
                default=0,
            )
            if weight > 0:
                weights[cluster.name] = weight
    if not weights:
        weights = {cluster.name: 1 for cluster in candidates}
    return webster(binding.replicas, weights, descending_names=names_descending(binding.template_uid))


def _dynamic(
    binding: BindingInfo,
    candidates: Sequence[ClusterInfo],
    available: Mapping[str, int],
    tiers: Mapping[str, int],
) -> dict[str, int]:
    order = [cluster.name for cluster in candidates]
    candidate_names = set(order)
    previous = {target.name: target.replicas for target in binding.clusters if target.name in candidate_names}
    assigned = sum(previous.values())
    division = _Division(binding, order, tiers)
    if reschedule_requested(binding):
        weights = {name: available.get(name, 0) + previous.get(name, 0) for name in order}
        return _explained("failed to do fresh scale", lambda: division.fill(binding.replicas, weights, {}))
    if assigned > binding.replicas:
        return _explained("failed to scale down", lambda: division.shrink(binding.replicas, previous))
    if assigned < binding.replicas:
        weights = {name: available.get(name, 0) for name in order}
        return _explained(
            "failed to scale up", lambda: division.fill(binding.replicas - assigned, weights, previous)
        )
    return previous


class _Division:
    """Apportioning by capacity-like weights within overflow tiers, for one binding."""

    def __init__(self, binding: BindingInfo, order: Sequence[str], tiers: Mapping[str, int]) -> None:
        self._aggregated = binding.placement.strategy == Strategy.AGGREGATED
        self._descending = names_descending(binding.template_uid)
        self._order = list(order)
        levels = sorted({tiers.get(name, 0) for name in order})
        self._tiers = [[name for name in order if tiers.get(name, 0) == level] for level in levels]

    def fill(self, target: int, weights: Mapping[str, int], initial: Mapping[str, int]) -> dict[str, int]:
        """Add `target` replicas to `initial`, tier by tier, each tier up to its total weight."""
        total = sum(weights.get(name, 0) for name in self._order)
        if total < target:
            raise UnschedulableError(f"Clusters available replicas {total} are not enough to schedule.")
        result = dict(initial)
        remaining = target
        for tier in self._tiers:
            if remaining <= 0:
                break
            capacity = sum(weights.get(name, 0) for name in tier)
            share = min(remaining, capacity)
            prior = [name for name in tier if initial.get(name, 0) > 0]
            for name, seats in self._spread(share, tier, weights, prior).items():
                result[name] = result.get(name, 0) + seats
            remaining -= share
        return result

    def shrink(self, target: int, previous: Mapping[str, int]) -> dict[str, int]:
        """Cut `previous` down to `target`, from the last tier first, proportionally within a tier."""
        kept = [sum(previous.get(name, 0) for name in tier) for tier in self._tiers]
        excess = sum(kept) - target
        for index in reversed(range(len(kept))):
            cut = min(excess, kept[index])
            kept[index] -= cut
            excess -= cut
        result: dict[str, int] = {}
        for tier, total in zip(self._tiers, kept, strict=True):
            if total > 0:
                result.update(self._spread(total, tier, previous, []))
        return result

    def _spread(
        self, seats: int, tier: Sequence[str], weights: Mapping[str, int], prior: Sequence[str]
    ) -> dict[str, int]:
        ranked = sorted(tier, key=lambda name: -weights.get(name, 0))
        if self._aggregated:
            ranked = [name for name in ranked if name in prior] + [
                name for name in ranked if name not in prior
            ]
            used, held = [], 0
            for name in ranked:
                used.append(name)
                held += weights.get(name, 0)
                if held >= seats:
                    break
            ranked = used
        votes = {name: weights.get(name, 0) for name in ranked}
        if seats <= 0 or sum(votes.values()) <= 0:
            return {}
        return webster(seats, votes, descending_names=self._descending)


def _explained(context: str, divide: Callable[[], dict[str, int]]) -> dict[str, int]:
    try:
        return divide()
    except SchedulingError as error:
        raise error.wrapped(context) from error
