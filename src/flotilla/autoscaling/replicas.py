"""The replica calculator: how many replicas a resource metric asks for (Kubernetes' HPA algorithm).

Given the current replica count, the target's pods (from every Ready member, keyed
`cluster/name` so equal pod names in two members stay apart), their metrics and a target, it
answers as kube's `replica_calculator.go` does, which Karmada lifts unchanged:

- pods being deleted or Failed are ignored; Pending pods are unready; for CPU, a pod is also
  unready while it has no Ready condition or start time, while it is within the CPU
  initialization period and not Ready (or its sample predates one metric window after it turned
  Ready), or, past that period, when it turned unready within the initial readiness delay of its
  start (it has never been Ready);
- ready pods without a sample are missing;
- the usage ratio (utilization ÷ target, or average ÷ target for a raw value) within the tolerance
  keeps the current count; otherwise, with no unready or missing pods in the way, the answer is
  `ceil(ratio x ready pods)`;
- otherwise missing pods are taken at 100% (or the target, if higher) when scaling down and 0%
  when scaling up, unready pods at 0% when scaling up, and the ratio is computed again; if that
  flips the direction or falls within the tolerance, the count stays.

Values are milli-units (millicores), as kube's `MilliValue()`. Pure: no I/O, no clock (`now` is
given).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

CPU = "cpu"
_LONG_AGO = datetime(1, 1, 1, tzinfo=UTC)


class MetricsError(Exception):
    """No replica count could be computed from the metrics; the message says why."""


@dataclass(frozen=True, slots=True)
class PodSample:
    """What the calculator needs of one pod."""

    key: str
    """`cluster/name`: unique across members."""
    phase: str = "Running"
    deleting: bool = False
    ready: bool | None = True
    """The Ready condition's status; None when the pod has no Ready condition."""
    ready_transition: datetime | None = None
    start_time: datetime | None = None
    requests: Mapping[str, int | None] | None = None
    """Container name → request of the metric's resource in milli-units (None: not requested)."""


@dataclass(frozen=True, slots=True)
class PodMetric:
    value: int
    """Milli-units used by the pod (or by the one container a ContainerResource metric names)."""
    timestamp: datetime
    window: timedelta


@dataclass(frozen=True, slots=True)
class Proposal:
    replicas: int
    utilization: int | None
    """Percent of requests (Utilization targets), else None."""
    average_value: int
    """The average usage per pod, in milli-units."""


@dataclass(frozen=True, slots=True)
class ReplicaCalculator:
    tolerance: float = 0.1
    cpu_initialization_period: timedelta = timedelta(minutes=5)
    initial_readiness_delay: timedelta = timedelta(seconds=30)

    def utilization_replicas(
        self,
        current: int,
        target_utilization: int,
        resource: str,
        pods: Sequence[PodSample],
        metrics: Mapping[str, PodMetric],
        now: datetime,
        container: str = "",
    ) -> Proposal:
        """Replicas for a `Utilization` target (percent of the pods' requests)."""
        samples, ready_count, unready, missing = self._grouped(pods, metrics, resource, now)
        requests = pod_requests(pods, resource, container)
        ratio, utilization, average = _utilization_ratio(samples, requests, target_utilization)
        scale_up_with_unready = bool(unready) and ratio > 1.0
        if not scale_up_with_unready and not missing:
            if abs(1.0 - ratio) <= self.tolerance:
                return Proposal(current, utilization, average)
            return Proposal(math.ceil(ratio * ready_count), utilization, average)
        if missing:
            if ratio < 1.0:
                fallback = max(100, target_utilization)
                for key in missing:
                    samples[key] = requests[key] * fallback // 100
            elif ratio > 1.0:
                for key in missing:
                    samples[key] = 0
        if scale_up_with_unready:
            for key in unready:
                samples[key] = 0
        new_ratio, _, _ = _utilization_ratio(samples, requests, target_utilization)
        replicas = self._rebalanced(current, ratio, new_ratio, len(samples))
        return Proposal(replicas, utilization, average)

    def average_value_replicas(
        self,
        current: int,
        target_average: int,
        resource: str,
        pods: Sequence[PodSample],
        metrics: Mapping[str, PodMetric],
        now: datetime,
    ) -> Proposal:
        """Replicas for an `AverageValue` target (milli-units per pod)."""
        samples, ready_count, unready, missing = self._grouped(pods, metrics, resource, now)
        ratio, average = _average_ratio(samples, target_average)
        scale_up_with_unready = bool(unready) and ratio > 1.0
        if not scale_up_with_unready and not missing:
            if abs(1.0 - ratio) <= self.tolerance:
                return Proposal(current, None, average)
            return Proposal(math.ceil(ratio * ready_count), None, average)
        if missing:
            if ratio < 1.0:
                for key in missing:
                    samples[key] = target_average
            elif ratio > 1.0:
                for key in missing:
                    samples[key] = 0
        if scale_up_with_unready:
            for key in unready:
                samples[key] = 0
        new_ratio, _ = _average_ratio(samples, target_average)
        return Proposal(self._rebalanced(current, ratio, new_ratio, len(samples)), None, average)

    def _rebalanced(self, current: int, ratio: float, new_ratio: float, count: int) -> int:
        """The count once missing and unready pods are filled in: kept when they change the direction."""
        if abs(1.0 - new_ratio) <= self.tolerance or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
            return current
        replicas = math.ceil(new_ratio * count)
        if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
            return current
        return replicas

    def _grouped(
        self, pods: Sequence[PodSample], metrics: Mapping[str, PodMetric], resource: str, now: datetime
    ) -> tuple[dict[str, int], int, set[str], set[str]]:
        """The usable samples, the ready pod count, the unready and the missing pods."""
        if not pods:
            raise MetricsError("no pods returned by selector while calculating replica count")
        ready_count = 0
        unready: set[str] = set()
        missing: set[str] = set()
        ignored: set[str] = set()
        for pod in pods:
            if pod.deleting or pod.phase == "Failed":
                ignored.add(pod.key)
                continue
            if pod.phase == "Pending":
                unready.add(pod.key)
                continue
            metric = metrics.get(pod.key)
            if metric is None:
                missing.add(pod.key)
                continue
            if resource == CPU and self._cpu_unready(pod, metric, now):
                unready.add(pod.key)
                continue
            ready_count += 1
        samples = {
            key: metric.value for key, metric in metrics.items() if key not in ignored and key not in unready
        }
        if not samples:
            raise MetricsError("did not receive metrics for targeted pods (pods might be unready)")
        return samples, ready_count, unready, missing

    def _cpu_unready(self, pod: PodSample, metric: PodMetric, now: datetime) -> bool:
        if pod.ready is None or pod.start_time is None:
            return True
        # A Ready condition without a transition time counts as one from long ago, as Go's zero time.
        transition = pod.ready_transition or _LONG_AGO
        if pod.start_time + self.cpu_initialization_period > now:
            return (not pod.ready) or metric.timestamp < transition + metric.window
        return (not pod.ready) and pod.start_time + self.initial_readiness_delay > transition


def pod_requests(pods: Sequence[PodSample], resource: str, container: str = "") -> dict[str, int]:
    """Each pod's request of `resource` (summed over its containers, or of `container`)."""
    requests: dict[str, int] = {}
    for pod in pods:
        total = 0
        for name, request in (pod.requests or {}).items():
            if container and name != container:
                continue
            if request is None:
                pod_name = pod.key.partition("/")[2] or pod.key
                raise MetricsError(f"missing request for {resource} in container {name} of Pod {pod_name}")
            total += request
        requests[pod.key] = total
    return requests


def _utilization_ratio(
    samples: Mapping[str, int], requests: Mapping[str, int], target: int
) -> tuple[float, int, int]:
    """(usage ratio, utilization %, average milli-units) over the samples of pods with requests."""
    metrics_total = requests_total = entries = 0
    for key, value in samples.items():
        request = requests.get(key)
        if request is None:
            continue
        metrics_total += value
        requests_total += request
        entries += 1
    if requests_total == 0:
        raise MetricsError("no metrics returned matched known pods")
    utilization = metrics_total * 100 // requests_total
    return utilization / target, utilization, metrics_total // entries


def _average_ratio(samples: Mapping[str, int], target: int) -> tuple[float, int]:
    """(usage ratio, average milli-units); the average is truncated first, as kube does."""
    average = sum(samples.values()) // len(samples)
    return average / target, average
