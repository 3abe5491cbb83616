"""From an autoscaler's metric specs to one replica proposal, its metric statuses and ScalingActive.

Each metric of `spec.metrics` proposes a count (`replicas.ReplicaCalculator`); the highest wins,
as in kube's `computeReplicasForMetrics`. A metric that cannot be computed is skipped, unless
every metric failed, or some failed and the others would scale down: then there is no proposal
and ScalingActive turns False with the first failure's reason. Resource and ContainerResource
metrics are computed from metrics.k8s.io (the members' for a FederatedHPA, the simulated
cluster's own for its HPA); Pods, Object and External metrics need a custom or external metrics API
that is not served here, and fail with a message saying so. Pure: the pods and samples of every
metric are read beforehand (the caller's `Samples`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flotilla.api.quantities import QuantityError, milli_units, parse_quantity
from flotilla.autoscaling.replicas import (
    MetricsError,
    PodMetric,
    PodSample,
    Proposal,
    ReplicaCalculator,
)

Object = Mapping[str, Any]
Samples = Callable[[str, str], tuple[list[PodSample], dict[str, PodMetric]]]
"""(resource, container) → the pods with their requests of that resource, and their samples."""

_FAILURE_REASONS = {
    "Resource": "FailedGetResourceMetric",
    "ContainerResource": "FailedGetContainerResourceMetric",
    "Pods": "FailedGetPodsMetric",
    "Object": "FailedGetObjectMetric",
    "External": "FailedGetExternalMetric",
}


@dataclass(slots=True)
class MetricsOutcome:
    replicas: int | None
    """The proposal; None when the metrics allow none."""
    statuses: list[dict[str, Any]] = field(default_factory=list)
    metric_name: str = ""
    active: tuple[bool, str, str] = (True, "", "")
    """ScalingActive: (status, reason, message)."""
    error: str = ""
    failures: list[tuple[str, str]] = field(default_factory=list)
    """(Event reason, message) of each metric that failed."""


def milli_quantity(value: int) -> str:
    """A milli-unit amount as kube prints `NewMilliQuantity(v, DecimalSI)`: `250m`, `2`."""
    return str(value // 1000) if value % 1000 == 0 else f"{value}m"


def compute(
    calculator: ReplicaCalculator,
    metrics: Sequence[Object],
    current: int,
    samples: Samples,
    now: datetime,
) -> MetricsOutcome:
    outcome = MetricsOutcome(replicas=None)
    best = 0
    invalid = 0
    first_failure: tuple[str, str] | None = None
    for spec in metrics:
        kind = str(spec.get("type") or "")
        try:
            proposal, name, status = _one(calculator, spec, kind, current, samples, now)
        except MetricsError as error:
            reason = _FAILURE_REASONS.get(kind, "InvalidMetricSourceType")
            message = f"the HPA was unable to compute the replica count: {error}"
            outcome.failures.append((reason, str(error)))
            if first_failure is None:
                first_failure = (reason, message)
            invalid += 1
            continue
        outcome.statuses.append(status)
        if best == 0 or proposal > best:
            best, outcome.metric_name = proposal, name
    if first_failure is not None and (invalid >= len(metrics) or best < current):
        outcome.active = (False, *first_failure)
        outcome.error = (
            f"invalid metrics ({invalid} invalid out of {len(metrics)}), first error is: "
            + (outcome.failures[0][1])
        )
        return outcome
    outcome.replicas = best
    outcome.active = (
        True,
        "ValidMetricFound",
        f"the HPA was able to successfully calculate a replica count from {outcome.metric_name}",
    )
    return outcome


def _one(
    calculator: ReplicaCalculator,
    spec: Object,
    kind: str,
    current: int,
    samples: Samples,
    now: datetime,
) -> tuple[int, str, dict[str, Any]]:
    if kind not in ("Resource", "ContainerResource"):
        raise MetricsError(f"{kind} metrics need a custom or external metrics API, which is not served")
    field_name = "resource" if kind == "Resource" else "containerResource"
    source = spec.get(field_name) or {}
    resource = str(source.get("name") or "")
    container = str(source.get("container") or "") if kind == "ContainerResource" else ""
    target = source.get("target") or {}
    pods, metrics = samples(resource, container)
    utilization = target.get("averageUtilization")
    current_status: dict[str, Any]
    if utilization is not None:
        proposal: Proposal = calculator.utilization_replicas(
            current, int(utilization), resource, pods, metrics, now, container
        )
        current_status = {
            "averageUtilization": proposal.utilization,
            "averageValue": milli_quantity(proposal.average_value),
        }
        what = "utilization (percentage of request)"
    else:
        average = _target_milli(target.get("averageValue"))
        if average is None:
            raise MetricsError("invalid metric source: neither a utilization target nor a value target set")
        proposal = calculator.average_value_replicas(current, average, resource, pods, metrics, now)
        current_status = {"averageValue": milli_quantity(proposal.average_value)}
        what = ""
    described = f"{resource} container resource" if container else f"{resource} resource"
    name = f"{described} {what}".strip()
    status_source: dict[str, Any] = {"name": resource, "current": current_status}
    if container:
        status_source["container"] = container
    return proposal.replicas, name, {"type": kind, field_name: status_source}


def _target_milli(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return milli_units(parse_quantity(value).amount)
    except QuantityError:
        return None
