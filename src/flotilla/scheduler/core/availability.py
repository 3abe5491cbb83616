"""How many more replicas of a binding a cluster can take: the general estimator, and all together.

The general estimator is Karmada's estimator that needs nothing but the Cluster's resource summary:

- The pod budget is `allocatable - allocated - allocating` of `pods`; a cluster that reports no
  summary, or no room for pods, takes nothing.
- For each resource the replica requests (`cpu` compared in millicores, the rest in whole
  units, both rounded up), the free amount `allocatable - allocated - allocating` divided by the
  request bounds the count; a requested resource the cluster does not report allows nothing.
- When the cluster declares resource models and reports node counts per grade, the count comes
  from those instead: every node of a grade at least as large as the request, counted by how many
  replicas that grade's lower bound holds (at least one).

The answer is the smallest bound, with the resource that set it (`pods` for the pod budget).

`available_estimates` is Karmada's `calAvailableReplicas`: each cluster's answer is the smallest
of the general estimator's and those of the other estimators given (the accurate one), leaving out
answers that are `UNAUTHENTIC`; it is capped at the int32 maximum and, when nothing bounded it,
the binding's own replica count stands in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from flotilla.api.quantities import milli_units, whole_units
from flotilla.scheduler.core.estimation import MAX_INT32, Estimate, ReplicaEstimator
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, ReplicaRequirements, ResourceSummary

CPU = "cpu"
PODS = "pods"
GENERAL = "general"
NO_SUMMARY = "no resource summary"
RESOURCE_MODELS = "resource models"


class GeneralEstimator:
    """Karmada's general estimator: sizes every cluster from `status.resourceSummary` alone."""

    name = GENERAL

    def estimate(self, cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> Estimate:
        return general_estimate(cluster, requirements)


def general_estimate(cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> Estimate:
    """The general estimator's answer for one cluster (uncapped), and what bounded it."""
    summary = cluster.resource_summary
    if summary is None:
        return Estimate(0, estimator=GENERAL, reason=NO_SUMMARY)
    budget = Estimate(summary.pod_budget, PODS, GENERAL)
    if budget.replicas <= 0 or requirements is None:
        return budget
    if cluster.resource_models and summary.allocatable_modelings:
        by_models = _replicas_by_models(cluster, summary, requirements.resource_request)
        if by_models is not None:
            return _smaller(budget, Estimate(by_models, RESOURCE_MODELS, GENERAL))
    return _smaller(budget, _replicas_by_summary(summary, requirements))


def available_replicas(cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> int:
    """The general estimator's replicas for one cluster (uncapped)."""
    return general_estimate(cluster, requirements).replicas


def available_estimates(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], estimators: Sequence[ReplicaEstimator] = ()
) -> dict[str, Estimate]:
    """Each cluster's room for `binding` by every estimator together (Karmada's `calAvailableReplicas`)."""
    if binding.replicas == 0:
        # Not a workload: nothing to size. Karmada reports the binding's replica count, 0.
        return {cluster.name: Estimate(0) for cluster in clusters}
    requirements = binding.replica_requirements
    result: dict[str, Estimate] = {}
    for cluster in clusters:
        best = Estimate(MAX_INT32)
        for estimator in (GeneralEstimator(), *estimators):
            answer = estimator.estimate(cluster, requirements)
            if answer.authentic and answer.replicas < best.replicas:
                best = answer
        result[cluster.name] = Estimate(binding.replicas) if best.replicas >= MAX_INT32 else best
    return result


def available_replicas_by_cluster(
    binding: BindingInfo, clusters: Sequence[ClusterInfo], estimators: Sequence[ReplicaEstimator] = ()
) -> dict[str, int]:
    """Each cluster's available replicas for `binding`, as the scheduler divides by them."""
    estimates = available_estimates(binding, clusters, estimators)
    return {name: estimate.replicas for name, estimate in estimates.items()}


def _smaller(first: Estimate, second: Estimate) -> Estimate:
    return second if second.replicas < first.replicas else first


def _requested_units(name: str, amount: Fraction) -> int:
    return milli_units(amount) if name == CPU else whole_units(amount)


def _replicas_by_summary(summary: ResourceSummary, requirements: ReplicaRequirements) -> Estimate:
    bound = Estimate(MAX_INT32, "", GENERAL)
    for name, (whole, milli) in requirements.request_units.items():
        if whole <= 0:
            continue
        free = summary.free_units.get(name)
        if free is None or free[0] <= 0:
            return Estimate(0, name, GENERAL)
        count = free[1] // milli if name == CPU else free[0] // whole
        if count < bound.replicas:
            bound = Estimate(count, name, GENERAL)
    return bound


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
