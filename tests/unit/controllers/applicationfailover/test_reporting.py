"""What the Events say: the cluster, the deadline or how long, what happens to the old copy, the state."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.api.karmada.policy import ApplicationFailoverBehavior
from flotilla.api.karmada.work import ResourceBindingSpec
from flotilla.controllers.applicationfailover.eviction import Eviction
from flotilla.controllers.applicationfailover.reporting import (
    failover_message,
    purge_phrase,
    template_reference,
    unhealthy_message,
)

SINCE = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def behavior(**fields: object) -> ApplicationFailoverBehavior:
    return ApplicationFailoverBehavior.from_object(
        {"decisionConditions": {"tolerationSeconds": 90}, **fields}
    )


def test_a_started_toleration_says_when_the_failover_happens() -> None:
    assert unhealthy_message("member1", SINCE, 90) == (
        "the application on cluster member1 is unhealthy; it fails over to another cluster at "
        "2026-03-01T12:01:30Z unless it recovers (toleration 90s)"
    )


def test_each_purge_mode_says_what_happens_to_the_old_copy() -> None:
    assert "deleted at once" in purge_phrase(behavior(purgeMode="Directly"))
    assert "until suppressDeletion is set to false" in purge_phrase(behavior(purgeMode="Never"))
    graceful = purge_phrase(behavior(purgeMode="Gracefully", gracePeriodSeconds=120))
    assert "healthy elsewhere, or after 120s" in graceful


def test_a_failover_names_the_state_it_hands_on() -> None:
    task = {
        "message": "the application on cluster member1 has been unhealthy for 95s",
        "preservedLabelState": {"b.io/y": "2", "a.io/x": "1"},
    }
    message = failover_message(Eviction("member1", task), behavior(purgeMode="Directly"))
    assert message == (
        "the application on cluster member1 has been unhealthy for 95s: evicted, its copy there is deleted "
        "at once (purgeMode Directly); state preserved for the next cluster: a.io/x=1, b.io/y=2"
    )


def test_the_template_is_named_from_the_binding() -> None:
    spec = ResourceBindingSpec.from_object(
        {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "apps",
                "name": "web",
                "uid": "u1",
            }
        }
    )
    assert template_reference(spec) == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "apps", "uid": "u1"},
    }
