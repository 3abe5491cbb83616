"""Tolerations of unhealthy copies: when they start, run out, reset, and survive a restart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flotilla.api.karmada.work import AggregatedStatusItem
from flotilla.controllers.applicationfailover.decision import (
    DueEviction,
    cluster_health,
    decide,
    still_failed,
)

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
UNHEALTHY, HEALTHY, UNKNOWN = "Unhealthy", "Healthy", "Unknown"


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def test_a_copy_first_seen_unhealthy_starts_its_toleration() -> None:
    decision = decide(
        scheduled=["member1", "member2"],
        evicting=(),
        health={"member1": UNHEALTHY, "member2": HEALTHY},
        recorded={},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.running == {"member1": NOW}
    assert decision.started == ("member1",)
    assert decision.due == ()
    assert decision.requeue_after == 60


def test_a_running_toleration_asks_to_look_again_when_it_runs_out() -> None:
    decision = decide(
        scheduled=["member1", "member2"],
        evicting=(),
        health={"member1": UNHEALTHY, "member2": UNHEALTHY},
        recorded={"member1": ago(45), "member2": ago(10)},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.started == ()
    assert decision.running == {"member1": ago(45), "member2": ago(10)}
    assert decision.requeue_after == 15


def test_a_toleration_run_out_makes_the_cluster_due() -> None:
    """Unhealthy for the whole toleration: due, with the moment it was first seen unhealthy."""
    decision = decide(
        scheduled=["member1", "member2"],
        evicting=(),
        health={"member1": UNHEALTHY, "member2": HEALTHY},
        recorded={"member1": ago(60)},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.due == (DueEviction("member1", ago(60)),)
    assert decision.running == {}
    assert decision.requeue_after is None


def test_a_toleration_recorded_before_a_restart_is_honoured() -> None:
    """The record read back from the binding, not the restart, dates the toleration."""
    before_restart = ago(300)
    decision = decide(
        scheduled=["member1"],
        evicting=(),
        health={"member1": UNHEALTHY},
        recorded={"member1": before_restart},
        toleration_seconds=120,
        now=NOW,
    )
    assert decision.due == (DueEviction("member1", before_restart),)
    assert decision.started == ()


def test_zero_toleration_evicts_at_first_sight() -> None:
    decision = decide(
        scheduled=["member1"],
        evicting=(),
        health={"member1": UNHEALTHY},
        recorded={},
        toleration_seconds=0,
        now=NOW,
    )
    assert decision.due == (DueEviction("member1", NOW),)
    assert decision.started == ()


def test_healthy_or_unknown_ends_the_toleration() -> None:
    """The next Unhealthy starts it over."""
    for state in (HEALTHY, UNKNOWN):
        decision = decide(
            scheduled=["member1"],
            evicting=(),
            health={"member1": state},
            recorded={"member1": ago(50)},
            toleration_seconds=60,
            now=NOW,
        )
        assert decision.running == {}
        assert decision.due == ()


def test_clusters_being_evicted_or_not_scheduled_are_not_judged() -> None:
    """An eviction task already names member1; member3 is only in the status (a dependent's cluster)."""
    decision = decide(
        scheduled=["member1", "member2"],
        evicting={"member1"},
        health={"member1": UNHEALTHY, "member2": HEALTHY, "member3": UNHEALTHY},
        recorded={"member1": ago(500), "member3": ago(500)},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.due == ()
    assert decision.running == {}


def test_a_cluster_without_a_status_item_keeps_its_toleration_unjudged() -> None:
    """No news (its Work is being written): the toleration neither ends nor runs out."""
    decision = decide(
        scheduled=["member1"],
        evicting=(),
        health={},
        recorded={"member1": ago(500)},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.running == {"member1": ago(500)}
    assert decision.due == ()
    assert decision.requeue_after is None


def test_a_record_from_a_clock_ahead_counts_as_just_started() -> None:
    decision = decide(
        scheduled=["member1"],
        evicting=(),
        health={"member1": UNHEALTHY},
        recorded={"member1": NOW + timedelta(seconds=5)},
        toleration_seconds=60,
        now=NOW,
    )
    assert decision.due == ()
    assert decision.requeue_after == 60


def test_health_by_cluster_defaults_to_unknown() -> None:
    items = [
        AggregatedStatusItem(cluster_name="member1", health="Unhealthy"),
        AggregatedStatusItem(cluster_name="member2"),
    ]
    assert cluster_health(items) == {"member1": UNHEALTHY, "member2": UNKNOWN}


def test_a_failure_is_remembered_until_a_reschedule_or_a_healthy_copy_there() -> None:
    failed = {"member1": ago(100), "member2": ago(100), "member3": ago(100)}
    kept = still_failed(
        failed,
        scheduled={"member2", "member3"},
        health={"member2": HEALTHY, "member3": UNHEALTHY},
        reschedule_triggered_at=None,
    )
    assert kept == {"member1": ago(100), "member3": ago(100)}
    assert still_failed(failed, scheduled=set(), health={}, reschedule_triggered_at=ago(50)) == {}
    assert still_failed(failed, scheduled=set(), health={}, reschedule_triggered_at=ago(200)) == failed
