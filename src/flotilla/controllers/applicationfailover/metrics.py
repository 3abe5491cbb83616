"""Application failover on the controller manager's `/metrics`.

How many clusters were failed over from, by purge mode (`flotilla_application_failovers_total`),
and for how long each copy had been unhealthy when it was (`flotilla_application_unhealthy_seconds`,
the figure to hold against the policies' `tolerationSeconds`: a restart does not reset it, as the
tolerations are kept on the bindings), and how many failovers wait for state they cannot read yet
(`flotilla_application_failovers_waiting`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from prometheus_client import Histogram
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

UNHEALTHY_BUCKETS = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)
"""Seconds: from a toleration of 0 to an hour."""


@dataclass(slots=True)
class FailoverMetrics:
    failovers: Counter[str] = field(default_factory=Counter)
    """Purge mode → clusters failed over from."""
    unhealthy: Histogram = field(
        default_factory=lambda: Histogram(
            "flotilla_application_unhealthy_seconds",
            "How long a copy had been unhealthy when its cluster was failed over from.",
            buckets=UNHEALTHY_BUCKETS,
            registry=None,  # the controller manager's registry collects it through `families`
        )
    )
    waiting: dict[object, int] = field(default_factory=dict)
    """Binding → failovers of it waiting for state."""

    def families(self) -> list[Metric]:
        failovers = CounterMetricFamily(
            "flotilla_application_failovers_total",
            "Clusters an application was failed over from (its copy unhealthy too long), by purge mode.",
            labels=["purge_mode"],
        )
        for mode, count in sorted(self.failovers.items()):
            failovers.add_metric([mode], count)
        waiting = GaugeMetricFamily(
            "flotilla_application_failovers_waiting",
            "Failovers due but waiting for the failed copy's state to be readable.",
            value=sum(self.waiting.values()),
        )
        return [failovers, *self.unhealthy.collect(), waiting]
