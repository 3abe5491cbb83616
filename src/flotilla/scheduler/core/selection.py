"""Selection: which of the feasible clusters a binding is placed on, honouring spread constraints.

Candidates are ranked by overflow tier, then score (high first), then capacity — free replicas
plus what the cluster already runs for this binding — then name. Without spread constraints, or
with static weights (which ignore them), every candidate is selected in that order. Otherwise
(Karmada's `spreadconstraint` package; only `cluster` and `region` are implemented):

- By cluster: fewer candidates than `minGroups` fails; the best `min(maxGroups, candidates)` are
  taken. For divided workloads they must hold the replicas together: while they cannot, the
  lowest-ranked pick (from the back) is swapped for the remaining cluster with the most capacity,
  if that has more; still short fails with `no enough resource when selecting N clusters`.
- By region: fewer regions than the region `minGroups` fails. Regions are scored — for duplicated
  workloads 1000 per cluster that can hold all replicas plus those clusters' average score, for
  divided ones 1000 per replica (up to the per-region share) the region's best clusters can hold,
  plus their average score. A depth-first search finds region sets of allowed size whose
  clusters can meet the cluster `minGroups`; the heaviest set wins, but a shorter set that is its
  prefix is preferred. Each chosen region gives its best cluster, then the best remaining
  clusters fill up to the cluster `maxGroups`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from flotilla.scheduler.core.errors import SchedulerError
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.core.placement import SchedulingType, SpreadConstraint, Strategy

CLUSTER_FIELD = "cluster"
REGION_FIELD = "region"
_WEIGHT_UNIT = 1000


@dataclass(frozen=True, slots=True)
class _Candidate:
    cluster: ClusterInfo
    score: int
    available: int
    tier: int

    @property
    def rank(self) -> tuple[int, int, int, str]:
        return (self.tier, -self.score, -self.available, self.cluster.name)


@dataclass(frozen=True, slots=True)
class _Group:
    name: str
    value: int
    weight: int


@dataclass(frozen=True, slots=True)
class _Path:
    order: int
    groups: tuple[_Group, ...]
    weight: int
    value: int


def select_clusters(
    binding: BindingInfo,
    clusters: Sequence[ClusterInfo],
    scores: Mapping[str, int],
    available: Mapping[str, int],
    tiers: Mapping[str, int] | None = None,
) -> list[ClusterInfo]:
    """The clusters to divide replicas over, best first."""
    candidates = sorted(
        (
            _Candidate(
                cluster,
                scores.get(cluster.name, 0),
                available.get(cluster.name, 0) + binding.assigned_replicas(cluster.name),
                (tiers or {}).get(cluster.name, 0),
            )
            for cluster in clusters
        ),
        key=lambda candidate: candidate.rank,
    )
    placement = binding.placement
    if not placement.spread_constraints or placement.strategy == Strategy.STATIC_WEIGHT:
        return [candidate.cluster for candidate in candidates]
    constraints = {constraint.spread_by_field: constraint for constraint in placement.spread_constraints}
    needed = None if placement.scheduling_type == SchedulingType.DUPLICATED else binding.replicas
    if REGION_FIELD in constraints:
        by_cluster = constraints.get(
            CLUSTER_FIELD, SpreadConstraint(CLUSTER_FIELD, max_groups=0, min_groups=0)
        )
        return _select_by_region(binding, candidates, constraints[REGION_FIELD], by_cluster)
    if CLUSTER_FIELD in constraints:
        return _select_by_cluster(candidates, constraints[CLUSTER_FIELD], needed)
    raise SchedulerError("just support cluster and region spread constraint")


def _select_by_cluster(
    candidates: Sequence[_Candidate], constraint: SpreadConstraint, needed: int | None
) -> list[ClusterInfo]:
    if len(candidates) < constraint.min_groups:
        raise SchedulerError("the number of feasible clusters is less than spreadConstraint.MinGroups")
    count = min(constraint.max_groups, len(candidates))
    chosen, rest = list(candidates[:count]), list(candidates[count:])
    if needed is not None:
        position = len(chosen) - 1
        while sum(candidate.available for candidate in chosen) < needed and position >= 0:
            replacement = _most_available(rest, chosen[position].available)
            if replacement is not None:
                chosen[position], rest[replacement] = rest[replacement], chosen[position]
            position -= 1
        if sum(candidate.available for candidate in chosen) < needed:
            raise SchedulerError(f"no enough resource when selecting {count} clusters")
    return [candidate.cluster for candidate in chosen]


def _most_available(candidates: Sequence[_Candidate], more_than: int) -> int | None:
    """The index of the first candidate with the most capacity above `more_than`, if any."""
    best, best_available = None, more_than
    for index, candidate in enumerate(candidates):
        if candidate.available > best_available:
            best, best_available = index, candidate.available
    return best


def _select_by_region(
    binding: BindingInfo,
    candidates: Sequence[_Candidate],
    by_region: SpreadConstraint,
    by_cluster: SpreadConstraint,
) -> list[ClusterInfo]:
    regions: dict[str, list[_Candidate]] = {}
    for candidate in candidates:
        if candidate.cluster.region:
            regions.setdefault(candidate.cluster.region, []).append(candidate)
    if len(regions) < by_region.min_groups:
        raise SchedulerError("the number of feasible region is less than spreadConstraint.MinGroups")
    groups = [
        _Group(
            name, len(members), _region_score(binding, members, by_region.min_groups, by_cluster.min_groups)
        )
        for name, members in regions.items()
    ]
    chosen = _select_groups(groups, by_region.min_groups, by_region.max_groups, by_cluster.min_groups)
    if not chosen:
        raise SchedulerError("the number of clusters is less than the cluster spreadConstraint.MinGroups")
    selected = [regions[group.name][0] for group in chosen]
    spare = sorted(
        (candidate for group in chosen for candidate in regions[group.name][1:]), key=lambda item: item.rank
    )
    wanted = min(len(selected) + len(spare), by_cluster.max_groups)
    selected.extend(spare[: max(wanted - len(selected), 0)])
    return [candidate.cluster for candidate in selected]


def _region_score(
    binding: BindingInfo, members: Sequence[_Candidate], region_min: int, cluster_min: int
) -> int:
    if binding.placement.scheduling_type == SchedulingType.DUPLICATED:
        hosting = [member for member in members if member.available >= binding.replicas]
        if not hosting:
            return 0
        return len(hosting) * _WEIGHT_UNIT + sum(member.score for member in hosting) // len(hosting)
    share = math.ceil(binding.replicas / max(region_min, 1))
    needed_clusters = max(cluster_min, region_min)
    held = total_score = counted = 0
    for member in members:
        held += member.available
        total_score += member.score
        counted += 1
        if counted >= needed_clusters and held >= share:
            break
    if held < share:
        return held * _WEIGHT_UNIT + total_score // len(members)
    return share * _WEIGHT_UNIT + total_score // counted


def _select_groups(groups: Sequence[_Group], minimum: int, maximum: int, target: int) -> tuple[_Group, ...]:
    """Karmada's `selectGroups`: the best feasible set of groups found by depth-first search."""
    ordered = sorted(groups, key=lambda group: (group.value, -group.weight, group.name))
    paths: list[_Path] = []
    path: list[_Group] = []

    def search(total: int, begin: int) -> None:
        if total >= target and minimum <= len(path) <= maximum:
            members = tuple(sorted(path, key=lambda group: (-group.weight, group.name)))
            paths.append(
                _Path(len(paths), members, sum(g.weight for g in members), sum(g.value for g in members))
            )
            return
        if len(path) >= maximum:
            return
        for index in range(begin, len(ordered)):
            path.append(ordered[index])
            search(total + ordered[index].value, index + 1)
            path.pop()

    search(0, 0)
    if not paths:
        return ()
    paths.sort(key=lambda item: (-item.weight, -item.value, item.order))
    best = paths[0]
    for candidate in paths[1:]:
        if len(candidate.groups) < len(best.groups) and all(
            mine.name == theirs.name for mine, theirs in zip(best.groups, candidate.groups, strict=False)
        ):
            best = candidate
    return best.groups
