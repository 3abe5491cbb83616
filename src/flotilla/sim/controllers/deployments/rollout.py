"""The arithmetic of a Deployment rollout: how big each ReplicaSet should be next.

Pure functions over stored ReplicaSet objects, after kube's `deployment/util` and `rolling.go`:

- `maxSurge` / `maxUnavailable` are an int or a percentage of the desired replicas; surge rounds
  up, unavailable rounds down, and if both come out 0, one pod may be unavailable.
- RollingUpdate grows the new ReplicaSet while the total stays within replicas + surge, and
  shrinks old ones while enough pods stay available (replicas - unavailable): unhealthy old
  replicas go first, then the oldest ReplicaSets.
- A change of `spec.replicas` during a rollout resizes every active ReplicaSet in proportion to
  its share (`max-replicas` annotation), largest first, leftovers to the largest.

Plans are `{replica set name: new spec.replicas}`; the controller applies them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flotilla.sim.controllers.deployments.revisions import DESIRED_REPLICAS, MAX_REPLICAS, annotation_int
from flotilla.sim.controllers.podowners.intorpercent import scaled_value

ReplicaSet = Mapping[str, Any]
Plan = dict[str, int]


def resolve_fenceposts(
    max_surge: int | str | None, max_unavailable: int | str | None, desired: int
) -> tuple[int, int]:
    """(surge, unavailable) for `desired` replicas; never both zero."""
    surge = scaled_value(max_surge, desired, round_up=True)
    unavailable = scaled_value(max_unavailable, desired, round_up=False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def desired_replicas(deployment: Mapping[str, Any]) -> int:
    return int(deployment["spec"].get("replicas", 1))


def is_rolling_update(deployment: Mapping[str, Any]) -> bool:
    strategy = deployment["spec"].get("strategy") or {}
    return str(strategy.get("type", "RollingUpdate")) == "RollingUpdate"


def _rolling_update(deployment: Mapping[str, Any]) -> Mapping[str, Any]:
    return (deployment["spec"].get("strategy") or {}).get("rollingUpdate") or {}


def max_surge(deployment: Mapping[str, Any]) -> int:
    if not is_rolling_update(deployment):
        return 0
    rolling = _rolling_update(deployment)
    surge, _ = resolve_fenceposts(
        rolling.get("maxSurge"), rolling.get("maxUnavailable"), desired_replicas(deployment)
    )
    return surge


def max_unavailable(deployment: Mapping[str, Any]) -> int:
    """Pods that may be unavailable during a rolling update, at most all of them."""
    desired = desired_replicas(deployment)
    if not is_rolling_update(deployment) or desired == 0:
        return 0
    rolling = _rolling_update(deployment)
    _, unavailable = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), desired)
    return min(unavailable, desired)


# -- reading ReplicaSets --------------------------------------------------------------------------


def spec_replicas(replica_set: ReplicaSet | None) -> int:
    return int(replica_set["spec"].get("replicas", 1)) if replica_set is not None else 0


def status_count(replica_set: ReplicaSet | None, field: str) -> int:
    return int((replica_set.get("status") or {}).get(field) or 0) if replica_set is not None else 0


def total_spec_replicas(replica_sets: Sequence[ReplicaSet | None]) -> int:
    return sum(spec_replicas(rs) for rs in replica_sets)


def total_status(replica_sets: Sequence[ReplicaSet | None], field: str) -> int:
    return sum(status_count(rs, field) for rs in replica_sets)


def by_creation(replica_sets: Sequence[ReplicaSet]) -> list[ReplicaSet]:
    """Oldest first, ties by name (kube's `ReplicaSetsByCreationTimestamp`)."""
    return sorted(
        replica_sets, key=lambda rs: (rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"])
    )


def active(replica_sets: Sequence[ReplicaSet | None]) -> list[ReplicaSet]:
    """The ReplicaSets that should have pods."""
    return [rs for rs in replica_sets if rs is not None and spec_replicas(rs) > 0]


# -- rolling update --------------------------------------------------------------------------------


def new_replica_set_replicas(
    deployment: Mapping[str, Any], all_sets: Sequence[ReplicaSet | None], new: ReplicaSet | None
) -> int:
    """How big the new ReplicaSet may be now (kube's `NewRSNewReplicas`)."""
    desired = desired_replicas(deployment)
    if not is_rolling_update(deployment):
        return desired
    current = spec_replicas(new)
    max_total = desired + max_surge(deployment)
    existing = total_spec_replicas(all_sets)
    if existing >= max_total:
        return current
    return current + min(max_total - existing, desired - current)


def old_replica_sets_scale_down(
    deployment: Mapping[str, Any], old_sets: Sequence[ReplicaSet], new: ReplicaSet | None
) -> Plan:
    """How far old ReplicaSets shrink now without breaking availability (kube's `reconcileOldReplicaSets`)."""
    old_total = total_spec_replicas(old_sets)
    if old_total == 0:
        return {}
    desired = desired_replicas(deployment)
    all_sets: list[ReplicaSet | None] = [*old_sets, new]
    min_available = desired - max_unavailable(deployment)
    new_unavailable = spec_replicas(new) - status_count(new, "availableReplicas")
    budget = total_spec_replicas(all_sets) - min_available - new_unavailable
    if budget <= 0:
        return {}
    sizes = {rs["metadata"]["name"]: spec_replicas(rs) for rs in old_sets}
    plan: Plan = {}
    ordered = by_creation(active(old_sets))
    removed = 0
    for rs in ordered:  # unhealthy replicas first, or they would block the rollout
        if removed >= budget:
            break
        name = rs["metadata"]["name"]
        unhealthy = sizes[name] - status_count(rs, "availableReplicas")
        if sizes[name] == 0 or unhealthy <= 0:
            continue
        count = min(budget - removed, unhealthy)
        sizes[name] -= count
        plan[name] = sizes[name]
        removed += count
    available = total_status(all_sets, "availableReplicas")
    if available <= min_available:
        return plan
    allowed, removed = available - min_available, 0
    for rs in ordered:
        if removed >= allowed:
            break
        name = rs["metadata"]["name"]
        if sizes[name] == 0:
            continue
        count = min(sizes[name], allowed - removed)
        sizes[name] -= count
        plan[name] = sizes[name]
        removed += count
    return plan


# -- scaling (spec.replicas changed) ---------------------------------------------------------------


def is_scaling_event(deployment: Mapping[str, Any], replica_sets: Sequence[ReplicaSet | None]) -> bool:
    """An active ReplicaSet was sized for another replica count than the Deployment's."""
    desired = desired_replicas(deployment)
    for replica_set in active(replica_sets):
        annotated = annotation_int(replica_set, DESIRED_REPLICAS)
        if annotated is not None and annotated != desired:
            return True
    return False


def find_active_or_latest(new: ReplicaSet | None, old_sets: Sequence[ReplicaSet]) -> ReplicaSet | None:
    """The one ReplicaSet with pods, or the newest when none has any; None when several do."""
    if new is None and not old_sets:
        return None
    newest_first = list(reversed(by_creation(old_sets)))
    running = active([*newest_first, new])
    if not running:
        return new if new is not None else newest_first[0]
    return running[0] if len(running) == 1 else None


def is_saturated(deployment: Mapping[str, Any], replica_set: ReplicaSet | None) -> bool:
    """The ReplicaSet alone runs the whole Deployment, all of it available."""
    if replica_set is None:
        return False
    desired = desired_replicas(deployment)
    annotated = annotation_int(replica_set, DESIRED_REPLICAS)
    return (
        annotated == desired
        and spec_replicas(replica_set) == desired
        and status_count(replica_set, "availableReplicas") == desired
    )


def _fraction(replica_set: ReplicaSet, deployment: Mapping[str, Any]) -> int:
    desired = desired_replicas(deployment)
    if desired == 0:
        return -spec_replicas(replica_set)
    allowed = desired + max_surge(deployment)
    annotated = annotation_int(replica_set, MAX_REPLICAS)
    if annotated is None or annotated == 0:
        annotated = int((deployment.get("status") or {}).get("replicas") or 0)
    if annotated == 0:
        return 0
    size = spec_replicas(replica_set) * allowed / annotated
    return int(size + 0.5) - spec_replicas(replica_set)  # sizes are non-negative: round half up


def _proportion(replica_set: ReplicaSet, deployment: Mapping[str, Any], to_add: int, added: int) -> int:
    if spec_replicas(replica_set) == 0 or to_add in (0, added):
        return 0
    fraction, allowed = _fraction(replica_set, deployment), to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


@dataclass(frozen=True, slots=True)
class Scaling:
    """New sizes after `spec.replicas` changed (kube's `scale`)."""

    sizes: Plan = field(default_factory=dict)
    proportional: bool = False
    """Every active ReplicaSet is listed, even at its current size, so that its `desired-replicas`
    and `max-replicas` annotations are brought up to date too."""
    operation: str = ""
    """"up" or "down" for a proportional resize ("" when the total stays the same)."""


def scaling_plan(
    deployment: Mapping[str, Any], new: ReplicaSet | None, old_sets: Sequence[ReplicaSet]
) -> Scaling:
    """How to resize after `spec.replicas` changed: the single active ReplicaSet takes it all, a
    saturated new one retires the old ones, else (RollingUpdate) all share it in proportion."""
    desired = desired_replicas(deployment)
    single = find_active_or_latest(new, old_sets)
    if single is not None:
        return Scaling({} if spec_replicas(single) == desired else {single["metadata"]["name"]: desired})
    if is_saturated(deployment, new):
        return Scaling({rs["metadata"]["name"]: 0 for rs in active(old_sets)})
    if not is_rolling_update(deployment):
        return Scaling()
    running = active([*old_sets, new])
    allowed_size = desired + max_surge(deployment) if desired > 0 else 0
    to_add = allowed_size - total_spec_replicas(running)
    if to_add > 0:  # bigger first; newer first among equals
        running.sort(key=lambda rs: rs["metadata"].get("creationTimestamp", ""), reverse=True)
        running.sort(key=spec_replicas, reverse=True)
    elif to_add < 0:  # bigger first; older first among equals
        running.sort(key=lambda rs: rs["metadata"].get("creationTimestamp", ""))
        running.sort(key=spec_replicas, reverse=True)
    sizes: Plan = {}
    added = 0
    for rs in running:
        proportion = _proportion(rs, deployment, to_add, added) if to_add else 0
        sizes[rs["metadata"]["name"]] = spec_replicas(rs) + proportion
        added += proportion
    if running and to_add:
        largest = running[0]["metadata"]["name"]
        sizes[largest] = max(0, sizes[largest] + to_add - added)
    operation = "up" if to_add > 0 else "down" if to_add < 0 else ""
    return Scaling(sizes, proportional=True, operation=operation)
