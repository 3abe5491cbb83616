"""What the taint manager writes: which clusters to evict, the task it records, and its purge mode."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flotilla.api.karmada.clustertimes import encode_times, read_times
from flotilla.api.karmada.constants import EVICTED_FROM_ANNOTATION
from flotilla.api.times import format_time
from flotilla.api.tolerations import Taint
from flotilla.controllers.failover.eviction import (
    MESSAGE_LIMIT,
    Eviction,
    evicted_from,
    evicted_spec,
    eviction_message,
    plan_evictions,
    purge_mode_for,
)
from flotilla.controllers.failover.noexecute import Judgement, Verdict
from flotilla.runtime.clock import ManualClock

ADDED = ManualClock().now()
NOW = ADDED + timedelta(seconds=10)


def cluster(name: str, *taint_keys: str, deleting: bool = False) -> dict[str, Any]:
    taints = [{"key": key, "effect": "NoExecute", "timeAdded": format_time(ADDED)} for key in taint_keys]
    metadata: dict[str, Any] = {"name": name}
    if deleting:
        metadata["deletionTimestamp"] = format_time(ADDED)
    return {"metadata": metadata, "spec": {"taints": taints}}


def spec(*targets: tuple[str, int], tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "clusters": [{"name": name, "replicas": replicas} for name, replicas in targets],
        "placement": {"clusterTolerations": tolerations or []},
    }


def untolerated(cluster_name: str, replicas: int = 0) -> Eviction:
    return Eviction(
        cluster_name, Judgement(Verdict.EVICT, Taint("down", effect="NoExecute"), ADDED), replicas
    )


def test_plan_evicts_untolerated_clusters_and_waits_for_running_tolerations() -> None:
    """m1 untolerated, m2 tolerated for 30s, m3 tolerated forever, m4 untainted."""
    clusters = {
        "m1": cluster("m1", "down"),
        "m2": cluster("m2", "slow"),
        "m3": cluster("m3", "kept"),
        "m4": cluster("m4"),
    }
    tolerations = [
        {"key": "slow", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        {"key": "kept", "operator": "Exists", "effect": "NoExecute"},
    ]
    plan = plan_evictions(
        spec(("m1", 2), ("m2", 2), ("m3", 1), ("m4", 1), tolerations=tolerations), clusters.get, NOW
    )
    assert [(e.cluster, e.replicas) for e in plan.evictions] == [("m1", 2)]
    assert [name for name, _ in plan.waiting] == ["m2"]
    assert plan.next_check(NOW) == 20


def test_plan_leaves_deleting_and_unknown_clusters_alone() -> None:
    """A deleting cluster's terminating taint is the scheduler's and the cluster controller's business."""
    clusters = {"gone": cluster("gone", "cluster.karmada.io/terminating", deleting=True)}
    plan = plan_evictions(spec(("gone", 1), ("missing", 1)), clusters.get, NOW)
    assert plan.evictions == []
    assert plan.waiting == []
    assert plan.next_check(NOW) is None


def test_purge_mode_comes_from_the_binding_then_the_manager() -> None:
    """failover.cluster.purgeMode wins; a failover.cluster without one is Gracefully; else the flag."""
    directly = {"failover": {"cluster": {"purgeMode": "Directly"}}}
    assert purge_mode_for(directly, "Gracefully") == "Directly"
    assert purge_mode_for({"failover": {"cluster": {}}}, "Directly") == "Gracefully"
    assert purge_mode_for({"failover": {"application": {}}}, "Directly") == "Directly"
    assert purge_mode_for({}, "Gracefully") == "Gracefully"
    assert purge_mode_for({}, "anything else") == "Gracefully"


def test_evicted_spec_moves_the_cluster_into_a_task() -> None:
    """Karmada's GracefulEvictCluster: out of spec.clusters, one task with producer, reason and replicas."""
    before = spec(("m1", 3), ("m2", 3))
    after = evicted_spec(before, [untolerated("m2", 3)], "Gracefully", NOW)
    assert after["clusters"] == [{"name": "m1", "replicas": 3}]
    [task] = after["gracefulEvictionTasks"]
    assert task == {
        "fromCluster": "m2",
        "purgeMode": "Gracefully",
        "reason": "TaintUntolerated",
        "message": eviction_message(untolerated("m2", 3)),
        "producer": "TaintManager",
        "creationTimestamp": format_time(NOW),
        "replicas": 3,
    }
    assert before["clusters"] == [{"name": "m1", "replicas": 3}, {"name": "m2", "replicas": 3}]


def test_evicted_spec_records_no_replicas_for_a_non_workload_and_no_second_task() -> None:
    """Replicas only when above 0; a cluster already in a task is only taken out of spec.clusters."""
    existing = {"fromCluster": "m2", "reason": "ApplicationFailure", "producer": "someone"}
    before = {**spec(("m1", 0), ("m2", 0)), "gracefulEvictionTasks": [existing]}
    after = evicted_spec(before, [untolerated("m1"), untolerated("m2")], "Directly", NOW)
    assert after["clusters"] == []
    assert [t["fromCluster"] for t in after["gracefulEvictionTasks"]] == ["m2", "m1"]
    assert after["gracefulEvictionTasks"][0] == existing
    assert "replicas" not in after["gracefulEvictionTasks"][1]


def test_messages_name_the_taint_and_when_its_toleration_ended() -> None:
    assert eviction_message(untolerated("m1")) == (
        f"cluster m1 has taint down:NoExecute (added {format_time(ADDED)}), not tolerated by the placement"
    )
    ended = ADDED + timedelta(seconds=5)
    expired = Eviction("m1", Judgement(Verdict.EVICT, Taint("down", effect="NoExecute"), ADDED, ended))
    assert eviction_message(expired).endswith(f"its toleration ended at {format_time(ended)}")
    long_name = Eviction("m" * 2000, expired.judgement)
    assert len(eviction_message(long_name)) == MESSAGE_LIMIT


def test_evicted_from_records_each_eviction_beside_earlier_ones() -> None:
    """The record keeps other clusters' times, and a cluster evicted again takes the new time."""
    earlier = {"m1": ADDED, "m3": ADDED}
    binding = {"metadata": {"annotations": {EVICTED_FROM_ANNOTATION: encode_times(earlier)}}}
    change = evicted_from(binding, [untolerated("m1"), untolerated("m2")], NOW)
    assert read_times(change, EVICTED_FROM_ANNOTATION) == {"m1": NOW, "m2": NOW, "m3": ADDED}


def test_evicted_from_starts_a_record_and_changes_nothing_already_recorded() -> None:
    assert read_times(evicted_from({}, [untolerated("m2")], NOW), EVICTED_FROM_ANNOTATION) == {"m2": NOW}
    recorded = {"metadata": {"annotations": {EVICTED_FROM_ANNOTATION: encode_times({"m2": NOW})}}}
    assert evicted_from(recorded, [untolerated("m2")], NOW) == {}
