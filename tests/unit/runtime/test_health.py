"""The components' /metrics through prometheus_client: the controller manager's families, merged
families, and each component's own registry."""

from __future__ import annotations

from prometheus_client import generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families

from flotilla.runtime.controller import ControllerLoop, TerminalError
from flotilla.runtime.health import FamiliesCollector, component_registry
from flotilla.runtime.hubcontroller import HubController
from flotilla.runtime.manager import controller_metrics
from tests.support.waiting import eventually_async

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(*families_of: FamiliesCollector) -> tuple[str, Samples]:
    """The exposition text of a component registry holding `families_of`, and its samples parsed
    back by prometheus_client's own parser."""
    text = generate_latest(component_registry(*families_of)).decode()
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


class Flaky(HubController):
    NAME = "flaky"

    def __init__(self, name: str = "flaky") -> None:
        self.NAME = name  # type: ignore[misc]  # two instances under two names, for merging
        self.outcomes = {"done": None, "later": 5.0}
        self.loop: ControllerLoop[str] = ControllerLoop(name, self.reconcile, base_delay=60)

    async def reconcile(self, key: str) -> float | None:
        if key == "bad":
            raise TerminalError("bad input")
        if key == "boom":
            raise RuntimeError("boom")
        return self.outcomes[key]


async def test_reconciles_are_counted_by_result_and_exposed_per_controller() -> None:
    """success, requeue and error (terminal or retried) are counted; adds and depth come from the queue."""
    controller = Flaky()
    for key in ("done", "later", "bad", "boom"):
        controller.enqueue(key)
    controller.start()
    await eventually_async(lambda: sum(controller.loop.stats.results.values()) == 4, what="four reconciles")
    await controller.stop()
    _, samples = scrape(FamiliesCollector(lambda: controller_metrics([controller], is_leader=False)))
    assert value(samples, "flotilla_reconcile_total", controller="flaky", result="success") == 1
    assert value(samples, "flotilla_reconcile_total", controller="flaky", result="requeue") == 1
    assert value(samples, "flotilla_reconcile_total", controller="flaky", result="error") == 2
    assert value(samples, "flotilla_reconcile_duration_seconds_count", controller="flaky") == 4
    assert value(samples, "flotilla_reconcile_duration_seconds_bucket", controller="flaky", le="+Inf") == 4
    assert value(samples, "flotilla_workqueue_adds_total", controller="flaky") == 4
    assert value(samples, "flotilla_workqueue_depth", controller="flaky") == 0
    assert value(samples, "flotilla_leader_is_leader") == 0
    _, leading = scrape(FamiliesCollector(lambda: controller_metrics([], is_leader=True)))
    assert value(leading, "flotilla_leader_is_leader") == 1


def test_families_of_one_name_from_several_controllers_are_exposed_once() -> None:
    """Each controller keeps its own duration histogram; /metrics shows one family holding both."""
    first, second = Flaky("first"), Flaky("second")
    first.loop.stats.record("success", 0.01)
    second.loop.stats.record("success", 2.0)
    text, samples = scrape(FamiliesCollector(lambda: controller_metrics([first, second], is_leader=True)))
    assert text.count("# TYPE flotilla_reconcile_duration_seconds histogram") == 1
    assert value(samples, "flotilla_reconcile_duration_seconds_bucket", controller="first", le="0.01") == 1
    assert value(samples, "flotilla_reconcile_duration_seconds_bucket", controller="second", le="1.0") == 0
    assert value(samples, "flotilla_reconcile_duration_seconds_sum", controller="second") == 2.0


def test_a_component_registry_has_the_process_and_python_collectors_and_no_created_series() -> None:
    """process_* and python_* as every Kubernetes component has them; no *_created series."""
    text, samples = scrape(FamiliesCollector(lambda: [GaugeMetricFamily("demo_up", "Up.", value=1)]))
    names = {name for name, _ in samples}
    assert "process_cpu_seconds_total" in names
    assert "process_resident_memory_bytes" in names
    assert "python_info" in names
    assert value(samples, "demo_up") == 1
    assert "_created" not in text


def test_each_component_registry_reports_only_its_own_series() -> None:
    """Two components in one process (tests, the simulator) do not see each other's metrics."""
    one = component_registry(FamiliesCollector(lambda: [GaugeMetricFamily("one_up", "One.", value=1)]))
    two = component_registry(FamiliesCollector(lambda: [GaugeMetricFamily("two_up", "Two.", value=1)]))
    assert b"two_up" not in generate_latest(one)
    assert b"one_up" not in generate_latest(two)
