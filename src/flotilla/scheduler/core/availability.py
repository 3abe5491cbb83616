"""How many more replicas of a binding a cluster can take, from its resource summary alone.

This is Karmada's general estimator, the one that needs no per-cluster estimator service:

- The pod budget is `allocatable - allocated - allocating` of `pods`; a cluster that reports no
  summary, or no room for pods, takes nothing.
- For each resource the replica requests (`cpu` compared in millicores, the rest in whole
  units, both rounded up), the free amount `allocatable - allocated - allocating` divided by the
  request bounds the count; a requested resource the cluster does not report allows nothing.
- When the cluster declares resource models and reports node counts per grade, the count comes
  from those instead: every node of a grade at least as large as the request, counted by how many
  replicas that grade's lower bound holds (at least one).

The answer is the smallest bound. Like the scheduler, `available_replicas_by_cluster` caps it at
the int32 maximum and, when nothing bounded it, stands in the binding's own replica count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from flotilla.api.quantities import milli_units, whole_units
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, ReplicaRequirements, ResourceSummary

MAX_INT32 = 2**31 - 1
CPU = "cpu"


def available_replicas(cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> int:
    """The general estimator's answer for one cluster (uncapped)."""
    summary = cluster.resource_summary
    if summary is None:
        return 0
    maximum = summary.pod_budget
    if maximum <= 0:
        return 0
    if requirements is None:
        return maximum
    if cluster.resource_models and summary.allocatable_modelings:
        by_models = _replicas_by_models(cluster, summary, requirements.resource_request)
        if by_models is not None:
            return min(maximum, by_models)
    return min(maximum, _replicas_by_summary(summary, requirements))


def available_replicas_by_cluster(binding: BindingInfo, clusters: Sequence[ClusterInfo]) -> dict[str, int]:
    """Each cluster's available replicas for `binding`, as the scheduler sees them (Karmada's
    `calAvailableReplicas` with the general estimator only)."""
    if binding.replicas == 0:
        # Not a workload: nothing to size. Karmada reports the binding's replica count, 0.
        return {cluster.name: 0 for cluster in clusters}
    result: dict[str, int] = {}
    for cluster in clusters:
        count = min(available_replicas(cluster, binding.replica_requirements), MAX_INT32)
        result[cluster.name] = binding.replicas if count == MAX_INT32 else count
    return result


def _requested_units(name: str, amount: Fraction) -> int:
    return milli_units(amount) if name == CPU else whole_units(amount)


def _replicas_by_summary(summary: ResourceSummary, requirements: ReplicaRequirements) -> int:
    maximum: int | None = None
    for name, (whole, milli) in requirements.request_units.items():
        if whole <= 0:
            continue
        free = summary.free_units.get(name)
        if free is None:
            return 0
        if free[0] <= 0:
            return 0
        count = free[1] // milli if name == CPU else free[0] // whole
        maximum = count if maximum is None else min(maximum, count)
    return MAX_INT32 if maximum is None else maximum


def _replicas_by_models(
    cluster: ClusterInfo, summary: ResourceSummary, request: Mapping[str, Fraction]
) -> int | None:
    """Replicas by resource model grades, or `None` when the models do not cover a requested resource."""
    if not any(whole_units(amount) > 0 for amount in request.values()):
        return None
    minimums: dict[str, list[Fraction]] = {}
    for model in cluster.resource_models:
        for model_range in model.ranges:
            minimums.setdefault(model_range.name, []).append(model_range.min)
    first_grade = 0
    for name, amount in request.items():
        if whole_units(amount) <= 0:
            continue
        grades = minimums.get(name)
        if grades is None:
            return None
        fitting = next((index for index, minimum in enumerate(grades) if minimum >= amount), None)
        if fitting is None:
            return 0
        first_grade = max(first_grade, fitting)
    total = 0
    for grade in range(first_grade, len(cluster.resource_models)):
        if grade >= len(summary.allocatable_modelings) or summary.allocatable_modelings[grade] == 0:
            continue
        total += summary.allocatable_modelings[grade] * _replicas_per_node(grade, request, minimums)
    return total


def _replicas_per_node(
    grade: int, request: Mapping[str, Fraction], minimums: Mapping[str, list[Fraction]]
) -> int:
    per_node: int | None = None
    for name, amount in request.items():
        if whole_units(amount) <= 0:
            continue
        grades = minimums[name]
        boundary = grades[grade] if grade < len(grades) else Fraction(0)
        count = _requested_units(name, boundary) // _requested_units(name, amount)
        per_node = count if per_node is None else min(per_node, count)
    # The first grade that fits is taken to hold at least one replica per node.
    return per_node or 1
