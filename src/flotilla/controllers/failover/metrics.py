"""The failover controllers' counters on the controller manager's `/metrics`.

How many evictions the taint manager made and why (`flotilla_failover_evictions_total`, by task reason,
by what triggered it — an untolerated taint or a toleration that ran out — and by purge mode), how
long after a taint was added its eviction came (`flotilla_failover_taint_to_eviction_seconds`, the
figure to hold against the configured `tolerationSeconds`), how many eviction tasks wait on bindings
(`flotilla_failover_eviction_tasks_pending`) and how many were dropped, by why
(`flotilla_failover_eviction_tasks_dropped_total`: healthy elsewhere, timeout, confirmed).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from prometheus_client import Histogram
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

TAINT_TO_EVICTION_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
"""Seconds: from "at once" to the half hour a long toleration may last."""

TRIGGER_UNTOLERATED = "untolerated"
TRIGGER_TOLERATION_EXPIRED = "toleration-expired"


@dataclass(slots=True)
class EvictionMetrics:
    """The taint manager's: evictions and their delay after the taint."""

    evictions: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    """(reason, trigger, purge mode) → evictions."""
    taint_to_eviction: Histogram = field(
        default_factory=lambda: Histogram(
            "flotilla_failover_taint_to_eviction_seconds",
            "Seconds from a NoExecute taint's timeAdded to the eviction it caused.",
            buckets=TAINT_TO_EVICTION_BUCKETS,
            registry=None,  # the controller manager's registry collects it through `families`
        )
    )

    def families(self) -> list[Metric]:
        evictions = CounterMetricFamily(
            "flotilla_failover_evictions_total",
            "Clusters evicted from bindings by the taint manager, by reason, trigger and purge mode.",
            labels=["reason", "trigger", "purge_mode"],
        )
        for (reason, trigger, purge_mode), count in sorted(self.evictions.items()):
            evictions.add_metric([reason, trigger, purge_mode], count)
        return [evictions, *self.taint_to_eviction.collect()]


@dataclass(slots=True)
class TaskMetrics:
    """The graceful eviction controller's: tasks dropped, by why."""

    dropped: Counter[str] = field(default_factory=Counter)

    def families(self, pending: int) -> list[Metric]:
        dropped = CounterMetricFamily(
            "flotilla_failover_eviction_tasks_dropped_total",
            "Graceful eviction tasks dropped, by why (HealthyElsewhere, Timeout, Confirmed).",
            labels=["why"],
        )
        for why, count in sorted(self.dropped.items()):
            dropped.add_metric([why], count)
        pending_tasks = GaugeMetricFamily(
            "flotilla_failover_eviction_tasks_pending",
            "Graceful eviction tasks on bindings (old copies kept or being removed).",
            value=pending,
        )
        return [pending_tasks, dropped]
