"""After an eviction task is gone, the pipeline does not place the binding straight back where it was
evicted from: a NoExecute toleration that ran out, and a cluster the application failed on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.scheduler.core.errors import FitError, UnschedulableError
from flotilla.scheduler.core.generic import schedule
from flotilla.scheduler.plugins import in_tree_registry
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, pods_only

REGISTRY = in_tree_registry()
ADDED = datetime(2026, 1, 1, tzinfo=UTC)
OUTAGE = {"key": "outage", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:00Z"}
FAILED_AT = "2026-01-01T00:00:00.000000Z"


def duplicated(*names: str, **more: Any) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": list(names)},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        **more,
    }


def placed(result: Any) -> list[str]:
    return [target.name for target in result.clusters]


# --- NoExecute tolerations --------------------------------------------------------------------------


def test_a_duplicated_binding_is_not_placed_back_once_its_toleration_ran_out() -> None:
    """Toleration 2s: the taint manager evicted m3 at +2s; rescheduled at +3s, m3 is not chosen again,
    while at +1s (toleration running) it still was."""
    toleration = {"key": "outage", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 2}
    placement = duplicated("m1", "m3", clusterTolerations=[toleration])
    clusters = [cluster("m1"), cluster("m3", taints=[OUTAGE])]
    running = schedule(
        binding(replicas=1, placement=placement, now=ADDED + timedelta(seconds=1)), clusters, REGISTRY
    )
    assert placed(running) == ["m1", "m3"]
    after = binding(replicas=1, placement=placement, clusters={"m1": 1}, now=ADDED + timedelta(seconds=3))
    assert placed(schedule(after, clusters, REGISTRY)) == ["m1"]


def test_an_expired_toleration_is_named_when_nothing_fits() -> None:
    toleration = {"key": "outage", "operator": "Exists", "tolerationSeconds": 0}
    info = binding(replicas=1, placement=duplicated("m3", clusterTolerations=[toleration]), now=ADDED)
    with pytest.raises(
        FitError, match=r"1 cluster\(s\) had taint \{outage:NoExecute\} whose toleration ran out"
    ):
        schedule(info, [cluster("m3", taints=[OUTAGE])], REGISTRY)


# --- clusters the application failed on ------------------------------------------------------------


def test_a_failed_cluster_is_left_out_while_another_fits() -> None:
    """Duplicated over one affinity, failed on m1: only m2, and the result is an ordinary one."""
    info = binding(replicas=1, placement=duplicated("m1", "m2"), failed_on={"m1": FAILED_AT})
    result = schedule(info, [cluster("m1"), cluster("m2")], REGISTRY)
    assert placed(result) == ["m2"]
    assert not result.on_failed_clusters


def test_with_nowhere_else_to_go_the_failed_cluster_is_better_than_none() -> None:
    """Nothing but m1 passes the filters: the second pass allows it, and the result says so."""
    info = binding(replicas=1, placement=duplicated("m1", "m2"), failed_on={"m1": FAILED_AT})
    result = schedule(info, [cluster("m1"), cluster("m2", kinds=[])], REGISTRY)
    assert placed(result) == ["m1"]
    assert result.on_failed_clusters


def test_the_fallback_does_not_override_an_eviction_task() -> None:
    """While m1's task exists it stays out, and the error names the eviction, not the old failure."""
    info = binding(replicas=1, placement=duplicated("m1"), evicted_from=["m1"], failed_on={"m1": FAILED_AT})
    with pytest.raises(FitError) as caught:
        schedule(info, [cluster("m1")], REGISTRY)
    assert str(caught.value) == "0/1 clusters are available: 1 cluster(s) is in the process of eviction."


def test_too_little_room_elsewhere_does_not_bring_the_failed_cluster_back() -> None:
    """Only "no cluster fits" falls back: m2 fits but is too small, so the binding is Unschedulable."""
    info = binding(replicas=5, placement=dynamic_weights(), failed_on={"m1": FAILED_AT})
    clusters = [cluster("m1", allocatable=pods_only(10)), cluster("m2", allocatable=pods_only(2))]
    with pytest.raises(UnschedulableError):
        schedule(info, clusters, REGISTRY)


def test_a_backup_affinity_term_comes_before_the_failed_cluster() -> None:
    """Failed on the primary term's only cluster: the backup term takes the workload, no fallback."""
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["m1"]},
            {"affinityName": "backup", "clusterNames": ["m2"]},
        ]
    }
    info = binding(replicas=1, placement=placement, failed_on={"m1": FAILED_AT})
    result = schedule(info, [cluster("m1"), cluster("m2")], REGISTRY)
    assert (result.affinity_name, placed(result), result.on_failed_clusters) == ("backup", ["m2"], False)


def test_a_reschedule_asked_after_the_failure_may_choose_the_cluster_again() -> None:
    """A WorkloadRebalancer's trigger after the failure forgives it, before the controller forgets it."""
    info = binding(
        replicas=1,
        placement=duplicated("m1", "m2"),
        failed_on={"m1": FAILED_AT},
        reschedule_triggered_at="2026-01-01T00:05:00Z",
        last_scheduled_time="2026-01-01T00:01:00Z",
    )
    assert placed(schedule(info, [cluster("m1"), cluster("m2")], REGISTRY)) == ["m1", "m2"]
