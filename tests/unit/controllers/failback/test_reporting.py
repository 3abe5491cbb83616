"""What failback's Events say, and that a bad failback-after is told once on its policy."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.controllers.failback.decision import DueCluster
from flotilla.controllers.failback.reporting import FailbackReporter, failback_message, template_of

NOW = datetime(2026, 3, 1, 12, 10, 0, tzinfo=UTC)
POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {
        "name": "web",
        "namespace": "apps",
        "uid": "p1",
        "annotations": {"failover.flotilla.io/failback-after": "10m"},
    },
}
BINDING = {
    "apiVersion": "work.karmada.io/v1alpha2",
    "kind": "ResourceBinding",
    "metadata": {"name": "web-deployment", "namespace": "apps", "uid": "b1"},
    "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "apps", "name": "web"}},
}


class EventSink:
    """The one call the reporter makes: creating Events."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    async def create(self, obj: dict[str, Any], **options: Any) -> None:
        self.events.append(obj)


def test_the_failback_event_names_the_cluster_how_long_and_the_policy() -> None:
    due = DueCluster("m2", NOW - timedelta(minutes=10), NOW - timedelta(minutes=30))
    assert failback_message(due, POLICY, NOW) == (
        "Failback: cluster m2 healthy for 10m (since 2026-03-01T12:00:00Z; left 2026-03-01T11:40:00Z), "
        "rescheduling from scratch as PropagationPolicy apps/web asks "
        "(failover.flotilla.io/failback-after: 10m)"
    )


def test_failback_is_told_on_the_binding_and_on_its_template() -> None:
    sink = EventSink()
    reporter = FailbackReporter(sink, controller="failback", field_manager="test")
    due = DueCluster("m2", NOW - timedelta(minutes=10), NOW - timedelta(minutes=30))
    asyncio.run(reporter.failback(BINDING, POLICY, due, NOW))
    involved = sorted((e["involvedObject"]["kind"], e["involvedObject"]["name"]) for e in sink.events)
    assert involved == [("Deployment", "web"), ("ResourceBinding", "web-deployment")]
    assert {(e["type"], e["reason"]) for e in sink.events} == {("Normal", "Failback")}
    assert template_of(BINDING)["metadata"] == {"name": "web", "namespace": "apps"}


def test_an_invalid_value_is_a_warning_on_the_policy_once_per_value() -> None:
    sink = EventSink()
    reporter = FailbackReporter(sink, controller="failback", field_manager="test")

    async def tell_three_times() -> None:
        await reporter.invalid(POLICY, "ten", 'time: invalid duration "ten"', NOW)
        await reporter.invalid(POLICY, "ten", 'time: invalid duration "ten"', NOW)
        await reporter.invalid(POLICY, "-1m", "must not be negative", NOW)

    asyncio.run(tell_three_times())
    assert [(e["type"], e["reason"], e["involvedObject"]["name"]) for e in sink.events] == [
        ("Warning", "InvalidFailbackAfter", "web"),
        ("Warning", "InvalidFailbackAfter", "web"),
    ]
    assert sink.events[0]["message"].startswith(
        "failover.flotilla.io/failback-after: 'ten' is not valid (time: invalid duration \"ten\"): "
        "it must be a Go duration that is not negative, such as 10m"
    )
