"""Which graceful eviction tasks are done (confirmed, timed out, healthy elsewhere) and when to look again."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flotilla.api.times import format_time
from flotilla.controllers.failover.assessment import Drop, assess, healthy_elsewhere
from flotilla.runtime.clock import ManualClock

CREATED = ManualClock().now()
TIMEOUT = 600.0


def at(seconds: float) -> Any:
    return CREATED + timedelta(seconds=seconds)


def task(cluster: str = "m3", **fields: Any) -> dict[str, Any]:
    return {
        "fromCluster": cluster,
        "purgeMode": "Gracefully",
        "reason": "TaintUntolerated",
        "producer": "TaintManager",
        "creationTimestamp": format_time(CREATED),
        **fields,
    }


def healthy(cluster: str, available: int | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"clusterName": cluster, "applied": True, "health": "Healthy"}
    if available is not None:
        item["status"] = {"replicas": available, "readyReplicas": available, "availableReplicas": available}
    return item


def binding(
    tasks: list[dict[str, Any]],
    clusters: list[tuple[str, int]] | None = None,
    items: list[dict[str, Any]] | None = None,
    *,
    observed: bool = True,
) -> dict[str, Any]:
    return {
        "metadata": {"generation": 4},
        "spec": {
            "clusters": [{"name": name, "replicas": replicas} for name, replicas in clusters or []],
            "gracefulEvictionTasks": tasks,
        },
        "status": {"schedulerObservedGeneration": 4 if observed else 3, "aggregatedStatus": items or []},
    }


def whys(assessment: Any) -> list[tuple[str, Drop]]:
    return [(d.task["fromCluster"], d.why) for d in assessment.dropped]


def test_a_task_is_kept_until_its_grace_period_then_dropped() -> None:
    """Not healthy elsewhere: kept, looked at again at the deadline, dropped at it."""
    before = assess(binding([task()], [("m1", 3)]), at(100), TIMEOUT)
    assert not before.changed
    assert [t["fromCluster"] for t in before.kept] == ["m3"]
    assert before.next_check == 500
    after = assess(binding([task()], [("m1", 3)]), at(600), TIMEOUT)
    assert after.changed
    assert after.kept == []
    assert whys(after) == [("m3", Drop.TIMEOUT)]


def test_grace_period_seconds_of_the_task_beat_the_managers_timeout() -> None:
    assessment = assess(binding([task(gracePeriodSeconds=30)], [("m1", 3)]), at(31), TIMEOUT)
    assert whys(assessment) == [("m3", Drop.TIMEOUT)]


def test_healthy_everywhere_scheduled_drops_the_task() -> None:
    """Every scheduled cluster Healthy, carrying its share, after the scheduler saw the spec: done."""
    assessment = assess(
        binding([task()], [("m1", 3), ("m2", 3)], [healthy("m1", 3), healthy("m2", 3)]), at(5), TIMEOUT
    )
    assert whys(assessment) == [("m3", Drop.HEALTHY)]
    assert assessment.next_check is None


def test_not_yet_scheduled_is_not_healthy_elsewhere() -> None:
    """The scheduler has not seen the latest spec: the statuses may describe the old placement."""
    items = [healthy("m1", 3), healthy("m2", 3)]
    assessment = assess(binding([task()], [("m1", 3), ("m2", 3)], items, observed=False), at(5), TIMEOUT)
    assert not assessment.changed


def test_one_unhealthy_or_missing_cluster_keeps_the_task() -> None:
    unhealthy = {"clusterName": "m2", "applied": True, "health": "Unhealthy"}
    assert not healthy_elsewhere([{"name": "m1"}, {"name": "m2"}], [healthy("m1"), unhealthy])
    assert not healthy_elsewhere([{"name": "m1"}, {"name": "m2"}], [healthy("m1")])
    assert healthy_elsewhere([{"name": "m1"}, {"name": "m2"}], [healthy("m1"), healthy("m2")])


def test_no_cluster_scheduled_is_never_healthy_elsewhere() -> None:
    """Beyond Karmada: with nowhere else to run, the old copy stays until the grace period ends."""
    assert not healthy_elsewhere([], [])
    assert not assess(binding([task()], []), at(5), TIMEOUT).changed


def test_a_status_still_counting_the_old_share_is_not_healthy_elsewhere() -> None:
    """Right after a reschedule from 2 to 3 replicas a member still reports 2, Healthy: not yet."""
    stale = [healthy("m1", 2), healthy("m2", 3)]
    assert not healthy_elsewhere([{"name": "m1", "replicas": 3}, {"name": "m2", "replicas": 3}], stale)
    ready_only = {"clusterName": "m1", "health": "Healthy", "status": {"readyReplicas": 3}}
    assert healthy_elsewhere([{"name": "m1", "replicas": 3}], [ready_only])
    non_workload = {"clusterName": "m1", "health": "Healthy", "status": {"phase": "Active"}}
    assert healthy_elsewhere([{"name": "m1", "replicas": 3}], [non_workload])


def test_suppress_deletion_true_keeps_the_task_past_every_deadline() -> None:
    items = [healthy("m1", 3)]
    assessment = assess(binding([task(suppressDeletion=True)], [("m1", 3)], items), at(10**6), TIMEOUT)
    assert not assessment.changed
    assert assessment.next_check is None


def test_suppress_deletion_false_drops_the_task_at_once() -> None:
    """A person confirmed: dropped now, before its grace period and while nothing is healthy."""
    assessment = assess(
        binding([task(purgeMode="Never", suppressDeletion=False)], [("m1", 3)]), at(1), TIMEOUT
    )
    assert whys(assessment) == [("m3", Drop.CONFIRMED)]


def test_never_without_suppress_deletion_waits_for_a_person() -> None:
    """`Never` keeps the old copy until someone sets suppressDeletion: false, healthy or not."""
    items = [healthy("m1", 3)]
    assessment = assess(binding([task(purgeMode="Never")], [("m1", 3)], items), at(10**6), TIMEOUT)
    assert not assessment.changed
    assert assessment.next_check is None


def test_a_task_without_creation_timestamp_is_stamped_and_kept() -> None:
    """As Karmada: stamped now and judged from the next look; the deadline counts from the stamp."""
    bare = task()
    del bare["creationTimestamp"]
    items = [healthy("m1", 3)]
    assessment = assess(binding([bare], [("m1", 3)], items), at(50), TIMEOUT)
    assert assessment.changed
    assert assessment.dropped == []
    assert assessment.kept[0]["creationTimestamp"] == format_time(at(50))
    assert assessment.next_check == TIMEOUT


def test_each_task_is_judged_alone_and_the_earliest_deadline_is_next() -> None:
    tasks = [
        task("a", suppressDeletion=False),
        task("b", gracePeriodSeconds=60),
        task("c", gracePeriodSeconds=20),
        task("d", suppressDeletion=True),
    ]
    assessment = assess(binding(tasks, [("m1", 3)]), at(10), TIMEOUT)
    assert whys(assessment) == [("a", Drop.CONFIRMED)]
    assert [t["fromCluster"] for t in assessment.kept] == ["b", "c", "d"]
    assert assessment.next_check == 10
