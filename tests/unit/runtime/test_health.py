"""Prometheus text rendering of counters, gauges and histograms, and the controller manager's families."""

from __future__ import annotations

from flotilla.runtime.controller import ControllerLoop, TerminalError
from flotilla.runtime.health import Histogram, MetricFamily, render
from flotilla.runtime.hubcontroller import HubController
from flotilla.runtime.manager import controller_metrics
from tests.support.waiting import eventually_async


def test_counters_and_gauges_render_with_help_type_and_escaped_labels() -> None:
    """Each family has its HELP and TYPE lines, then one sample a line; label values are escaped."""
    lines = render(
        [
            MetricFamily("demo_total", "Things.", "counter", samples=[({"name": 'a"b'}, 3)]),
            MetricFamily("demo_up", "Up.", "gauge", samples=[({}, 1)]),
        ]
    )
    assert lines == [
        "# HELP demo_total Things.",
        "# TYPE demo_total counter",
        'demo_total{name="a\\"b"} 3',
        "# HELP demo_up Up.",
        "# TYPE demo_up gauge",
        "demo_up 1",
    ]


def test_histograms_render_cumulative_buckets_sum_and_count() -> None:
    """Buckets count every observation at or below their bound; +Inf counts all."""
    histogram = Histogram(bounds=(0.1, 1.0))
    for value in (0.05, 0.1, 0.5, 3.0):
        histogram.observe(value)
    lines = render([MetricFamily("demo_seconds", "Time.", "histogram", histograms=[({"c": "x"}, histogram)])])
    assert lines[2:] == [
        'demo_seconds_bucket{c="x",le="0.1"} 2',
        'demo_seconds_bucket{c="x",le="1.0"} 3',
        'demo_seconds_bucket{c="x",le="+Inf"} 4',
        'demo_seconds_sum{c="x"} 3.65',
        'demo_seconds_count{c="x"} 4',
    ]


class Flaky(HubController):
    NAME = "flaky"

    def __init__(self) -> None:
        self.outcomes = {"done": None, "later": 5.0}
        self.loop: ControllerLoop[str] = ControllerLoop(self.NAME, self.reconcile, base_delay=60)

    async def reconcile(self, key: str) -> float | None:
        if key == "bad":
            raise TerminalError("bad input")
        if key == "boom":
            raise RuntimeError("boom")
        return self.outcomes[key]


async def test_reconciles_are_counted_by_result_and_rendered_per_controller() -> None:
    """success, requeue and error (terminal or retried) are counted; adds and depth come from the queue."""
    controller = Flaky()
    for key in ("done", "later", "bad", "boom"):
        controller.enqueue(key)
    controller.start()
    await eventually_async(lambda: sum(controller.loop.stats.results.values()) == 4, what="four reconciles")
    await controller.stop()
    lines = render(controller_metrics([controller], is_leader=False))
    assert 'flotilla_reconcile_total{controller="flaky",result="success"} 1' in lines
    assert 'flotilla_reconcile_total{controller="flaky",result="requeue"} 1' in lines
    assert 'flotilla_reconcile_total{controller="flaky",result="error"} 2' in lines
    assert 'flotilla_reconcile_duration_seconds_count{controller="flaky"} 4' in lines
    assert 'flotilla_workqueue_adds_total{controller="flaky"} 4' in lines
    assert 'flotilla_workqueue_depth{controller="flaky"} 0' in lines
    assert "flotilla_leader_is_leader 0" in lines
    assert "flotilla_leader_is_leader 1" in render(controller_metrics([], is_leader=True))
