"""Failback's decision: which clusters a workload left are due to take it back, and what is remembered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.api.karmada.clustertimes import ClusterTimes
from flotilla.api.times import format_time
from flotilla.controllers.failback.decision import (
    Decision,
    DueCluster,
    clear,
    decide,
    failback_after,
    healthy_since,
    keeps_out,
    reschedule_moment,
)

NOW = datetime(2026, 3, 1, 12, 0, 0, 500_000, tzinfo=UTC)
TRIGGER = NOW.replace(microsecond=0)
EVICTED = "failover.flotilla.io/evicted-from"
FAILED = "failover.flotilla.io/application-failed-on"
AFTER = 600.0


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def cluster(ready: str = "True", since: datetime | None = None, *taints: dict[str, Any]) -> dict[str, Any]:
    condition = {"type": "Ready", "status": ready, "lastTransitionTime": format_time(since or ago(3600))}
    return {
        "metadata": {"name": "m2"},
        "spec": {"taints": list(taints)},
        "status": {"conditions": [condition]},
    }


def run(
    evicted: ClusterTimes | None = None,
    failed: ClusterTimes | None = None,
    *,
    healthy: dict[str, datetime | None],
    scheduled: tuple[str, ...] = ("m1", "m3"),
    evicting: tuple[str, ...] = (),
    kept_out: tuple[str, ...] = (),
) -> Decision:
    return decide(
        records={EVICTED: evicted or {}, FAILED: failed or {}},
        scheduled=scheduled,
        evicting=evicting,
        healthy=healthy,
        kept_out=kept_out,
        failback_after=AFTER,
        now=NOW,
        trigger=TRIGGER,
    )


def test_a_cluster_healthy_for_failback_after_is_due_and_its_entry_goes() -> None:
    decision = run({"m2": ago(3600)}, healthy={"m2": ago(601)})
    assert decision.due == (DueCluster("m2", ago(601), ago(3600)),)
    assert decision.records == {EVICTED: {}, FAILED: {}}
    assert decision.next_due is None


def test_a_cluster_healthy_for_less_is_looked_at_again_when_it_will_be_due() -> None:
    decision = run({"m2": ago(3600)}, healthy={"m2": ago(100)})
    assert decision.due == ()
    assert decision.records == {EVICTED: {"m2": ago(3600)}, FAILED: {}}
    assert decision.next_due == pytest.approx(500)


def test_the_wait_counts_from_when_the_workload_left_if_that_is_later() -> None:
    """An application fails over from a cluster that stays Ready: it is not tried again at once."""
    decision = run(failed={"m2": ago(60)}, healthy={"m2": ago(3600)})
    assert decision.due == ()
    assert decision.next_due == pytest.approx(540)


def test_a_cluster_that_is_not_healthy_is_not_due_and_sets_no_timer() -> None:
    decision = run({"m2": ago(3600)}, healthy={"m2": None})
    assert decision == run({"m2": ago(3600)}, healthy={})
    assert decision.due == ()
    assert decision.next_due is None
    assert decision.records[EVICTED] == {"m2": ago(3600)}


def test_a_cluster_an_eviction_task_names_waits_for_the_task_to_go() -> None:
    decision = run({"m2": ago(3600)}, healthy={"m2": ago(3600)}, evicting=("m2",))
    assert decision.due == ()
    assert decision.next_due is None


def test_a_cluster_an_untolerated_no_schedule_taint_keeps_out_is_not_due() -> None:
    decision = run({"m2": ago(3600)}, healthy={"m2": ago(3600)}, kept_out=("m2",))
    assert decision.due == ()


def test_a_cluster_scheduled_again_loses_its_evicted_from_entry_without_a_reschedule() -> None:
    """Its failed-on entry is application failover's to forget, once the copy there is Healthy."""
    decision = run({"m2": ago(3600)}, {"m2": ago(3600)}, healthy={"m2": ago(3600)}, scheduled=("m1", "m2"))
    assert decision.due == ()
    assert decision.records == {EVICTED: {}, FAILED: {"m2": ago(3600)}}


def test_a_cluster_in_both_records_is_due_when_the_later_entry_is_and_leaves_both() -> None:
    both = {"m2": ago(3600)}
    late = run(both, {"m2": ago(300)}, healthy={"m2": ago(3600)})
    assert late.due == ()
    assert late.next_due == pytest.approx(300)
    due = run(both, {"m2": ago(900)}, healthy={"m2": ago(3600)})
    assert [entry.cluster for entry in due.due] == ["m2"]
    assert due.records == {EVICTED: {}, FAILED: {}}


def test_a_reschedule_restamps_the_failed_on_entries_not_due_so_they_stay_out() -> None:
    """A fresh schedule forgets failures older than it; those not due yet are kept as of the trigger."""
    decision = run(
        {"m2": ago(3600), "m3": ago(60)},
        {"m2": ago(3600), "m4": ago(120)},
        healthy={"m2": ago(3600), "m3": ago(3600), "m4": ago(3600)},
        scheduled=("m1",),
    )
    assert [entry.cluster for entry in decision.due] == ["m2"]
    assert decision.records == {EVICTED: {"m3": ago(60)}, FAILED: {"m4": TRIGGER}}


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, None), ("10m", 600.0), ("3s", 3.0), ("0", 0.0)],
    ids=["absent", "10m", "3s", "0"],
)
def test_the_policy_annotation_gives_the_wait(value: str | None, seconds: float | None) -> None:
    annotations = {} if value is None else {"failover.flotilla.io/failback-after": value}
    assert failback_after({"metadata": {"annotations": annotations}}) == seconds
    assert failback_after(None) is None


@pytest.mark.parametrize("value", ["10", "-1m", "soon"])
def test_an_invalid_annotation_is_an_error_not_a_wait(value: str) -> None:
    with pytest.raises(ValueError, match=r"failback-after|invalid duration"):
        failback_after({"metadata": {"annotations": {"failover.flotilla.io/failback-after": value}}})


def test_healthy_since_is_the_later_of_the_ready_transition_and_first_seen_clear() -> None:
    assert healthy_since(cluster(since=ago(60)), ago(3600)) == ago(60).replace(microsecond=0)
    assert healthy_since(cluster(since=ago(3600)), ago(30)) == ago(30)


def test_a_no_execute_taint_or_not_ready_is_not_healthy() -> None:
    no_execute = {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}
    assert not clear(cluster("True", None, no_execute))
    assert healthy_since(cluster("True", None, no_execute), ago(3600)) is None
    assert not clear(cluster("False"))
    assert not clear(cluster("Unknown"))
    assert not clear(None)
    assert not clear({**cluster(), "metadata": {"name": "m2", "deletionTimestamp": format_time(ago(1))}})
    assert clear(cluster("True", None, {"key": "cordoned", "effect": "NoSchedule"}))


def test_a_no_schedule_taint_keeps_out_only_a_placement_that_does_not_tolerate_it() -> None:
    cordoned = cluster("True", None, {"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"})
    assert keeps_out(cordoned, {})
    toleration = {"key": "cluster.karmada.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
    assert not keeps_out(cordoned, {"clusterTolerations": [toleration]})
    assert not keeps_out(cluster(), {})


def test_the_trigger_is_a_whole_second_later_than_the_last_schedule() -> None:
    assert reschedule_moment(NOW, None) == TRIGGER
    assert reschedule_moment(NOW, ago(5)) == TRIGGER
    assert reschedule_moment(NOW, TRIGGER) is None, "the scheduler would not see it as later"
