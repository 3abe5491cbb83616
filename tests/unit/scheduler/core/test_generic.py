"""The whole pipeline: the walkthrough, FitError histograms, clusterAffinities, conditions."""

from __future__ import annotations

import pytest

from flotilla.scheduler.core.errors import FitError, SchedulerError, UnschedulableError, scheduled_condition
from flotilla.scheduler.core.generic import ScheduleResult, schedule
from flotilla.scheduler.core.inputs import TargetCluster
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.plugins import in_tree_registry
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, pods_only, static_weights

REGISTRY = in_tree_registry()
NOT_READY = {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}


def test_getting_started_walkthrough_places_one_replica_per_cluster() -> None:
    """nginx, 2 replicas, static weights 1:1 on sz and fz: one each, nothing on other clusters."""
    info = binding(replicas=2, placement=static_weights({"sz": 1, "fz": 1}))
    result = schedule(info, [cluster("sz"), cluster("fz"), cluster("other")], REGISTRY)
    assert result == ScheduleResult((TargetCluster("fz", 1), TargetCluster("sz", 1)))
    assert result.spec_clusters() == [{"name": "fz", "replicas": 1}, {"name": "sz", "replicas": 1}]


def test_no_fitting_cluster_reports_a_reason_histogram() -> None:
    """Counts per reason, sorted as strings, in Karmada's sentence."""
    placement = {"clusterAffinity": {"clusterNames": ["a", "b"]}}
    clusters = [cluster("a", taints=[NOT_READY]), cluster("b", kinds=[]), cluster("c"), cluster("d")]
    with pytest.raises(FitError) as caught:
        schedule(binding(replicas=1, placement=placement), clusters, REGISTRY)
    assert str(caught.value) == (
        "0/4 clusters are available: "
        "1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}, "
        "1 no such API resource, 2 cluster(s) did not match the placement cluster affinity constraint."
    )
    assert caught.value.reason == "NoClusterFit" and not caught.value.retryable


def test_no_clusters_at_all() -> None:
    """An empty fleet says so."""
    with pytest.raises(FitError, match=r"^0/0 clusters are available: no cluster exists\.$"):
        schedule(binding(replicas=1), [], REGISTRY)


def test_clusters_being_deleted_are_skipped_but_counted() -> None:
    """A deleting cluster is never chosen and has no reason in the histogram."""
    result = schedule(binding(replicas=1), [cluster("a", deleting=True), cluster("b")], REGISTRY)
    assert [target.name for target in result.clusters] == ["b"]
    with pytest.raises(FitError, match=r"^0/1 clusters are available: no cluster exists\.$"):
        schedule(binding(replicas=1), [cluster("a", deleting=True)], REGISTRY)


def test_not_enough_capacity_is_unschedulable_with_karmadas_message() -> None:
    """Dynamic weights over too little room fail with the wrapped capacity message."""
    info = binding(replicas=10, placement=dynamic_weights())
    clusters = [cluster("a", allocatable=pods_only(3)), cluster("b", allocatable=pods_only(4))]
    with pytest.raises(UnschedulableError) as caught:
        schedule(info, clusters, REGISTRY)
    assert str(caught.value) == (
        "failed to assign replicas: failed to scale up: "
        "Clusters available replicas 7 are not enough to schedule."
    )
    assert scheduled_condition(caught.value).reason == "Unschedulable"


def test_spread_failure_is_a_scheduler_error() -> None:
    """Selection errors are wrapped and reported with reason SchedulerError."""
    info = binding(
        replicas=1,
        placement={"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3}]},
    )
    with pytest.raises(SchedulerError) as caught:
        schedule(info, [cluster("a")], REGISTRY)
    assert str(caught.value).startswith("failed to select clusters: the number of feasible clusters")
    assert caught.value.reason == "SchedulerError"


AFFINITIES = {
    "clusterAffinities": [
        {"affinityName": "primary", "clusterNames": ["a"]},
        {"affinityName": "backup", "clusterNames": ["b"]},
    ]
}


def test_cluster_affinities_start_with_the_first_term() -> None:
    """The first term that schedules wins and is reported for the status."""
    result = schedule(binding(replicas=1, placement=AFFINITIES), [cluster("a"), cluster("b")], REGISTRY)
    assert result.affinity_name == "primary" and [t.name for t in result.clusters] == ["a"]


def test_cluster_affinities_move_on_when_a_term_fails() -> None:
    """With the primary cluster tainted, the backup term takes the workload."""
    clusters = [cluster("a", taints=[NOT_READY]), cluster("b")]
    result = schedule(binding(replicas=1, placement=AFFINITIES), clusters, REGISTRY)
    assert result.affinity_name == "backup" and [t.name for t in result.clusters] == ["b"]


def test_cluster_affinities_never_move_back_by_themselves() -> None:
    """Observing the backup term, a healthy primary is not tried again."""
    info = binding(replicas=1, placement=AFFINITIES, observed_affinity="backup")
    result = schedule(info, [cluster("a"), cluster("b")], REGISTRY)
    assert result.affinity_name == "backup"


def test_explicit_reschedule_starts_again_at_the_first_term() -> None:
    """A WorkloadRebalancer-style reschedule brings the workload back to a healthy primary."""
    info = binding(
        replicas=1,
        placement=AFFINITIES,
        observed_affinity="backup",
        reschedule_triggered_at="2026-02-01T00:00:00Z",
        last_scheduled_time="2026-01-01T00:00:00Z",
    )
    assert schedule(info, [cluster("a"), cluster("b")], REGISTRY).affinity_name == "primary"


def test_all_terms_failing_raise_the_first_error() -> None:
    """The first term's failure is what the condition shows."""
    clusters = [cluster("a", taints=[NOT_READY]), cluster("b", kinds=[])]
    with pytest.raises(FitError, match="untolerated taint"):
        schedule(binding(replicas=1, placement=AFFINITIES), clusters, REGISTRY)


def test_zero_replica_clusters_are_dropped_unless_empty_propagation_is_on() -> None:
    """Aggregated leaves spare clusters empty; they appear only with empty-workload propagation."""
    info = binding(replicas=2, placement=dynamic_weights(aggregated=True))
    clusters = [cluster("a", allocatable=pods_only(10)), cluster("b", allocatable=pods_only(5))]
    assert schedule(info, clusters, REGISTRY).clusters == (TargetCluster("a", 2),)
    with_empty = schedule(info, clusters, REGISTRY, enable_empty_workload_propagation=True)
    assert with_empty.clusters == (TargetCluster("a", 2), TargetCluster("b", 0))
    assert with_empty.spec_clusters() == [{"name": "a", "replicas": 2}, {"name": "b"}]


def test_non_workloads_go_to_every_fitting_cluster() -> None:
    """A ConfigMap binding (no replicas) lands everywhere its affinity allows."""
    info = binding(kind=("v1", "ConfigMap"), placement=static_weights({"a": 1}))
    clusters = [cluster("a", kinds=[("v1", "ConfigMap")]), cluster("b", kinds=[("v1", "ConfigMap")])]
    assert schedule(info, clusters, REGISTRY).clusters == (TargetCluster("a"),)


def test_locality_keeps_a_duplicated_workload_where_it_is() -> None:
    """With maxGroups 1, the cluster already running it stays chosen over a roomier one."""
    placement = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]}
    info = binding(replicas=1, placement=placement, clusters={"b": 1})
    clusters = [cluster("a"), cluster("b", allocated={"pods": "100"})]
    assert [t.name for t in schedule(info, clusters, REGISTRY).clusters] == ["b"]
    without_locality = in_tree_registry().enabled(["*", "-ClusterLocality"])
    assert [t.name for t in schedule(info, clusters, without_locality).clusters] == ["a"]


def test_success_condition() -> None:
    """Scheduled=True with Karmada's success message."""
    condition = scheduled_condition(None)
    assert (condition.status, condition.reason, condition.message) == (
        "True",
        "Success",
        "Binding has been scheduled successfully.",
    )


# --- workload affinity ---------------------------------------------------------------------------


def _peer(name: str, clusters: set[str], **groups: str) -> GroupMember:
    return GroupMember("default", name, WorkloadGroups(**groups), frozenset(clusters))


def test_an_affinity_group_pulls_a_divided_workload_onto_its_peers_cluster() -> None:
    """Divided evenly over three clusters, but its group runs on member3: all three replicas go there."""
    placement = {
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    }
    info = binding(replicas=3, placement=placement, groups={"affinityGroup": "app.stack=shop"})
    peers = [_peer("cache-deployment", {"member3"}, affinity_group="app.stack=shop")]
    clusters = [cluster("member1"), cluster("member2"), cluster("member3")]
    assert schedule(info, clusters, REGISTRY).clusters == (
        TargetCluster("member1", 1),
        TargetCluster("member2", 1),
        TargetCluster("member3", 1),
    )
    assert schedule(info.with_group_peers(peers), clusters, REGISTRY).clusters == (
        TargetCluster("member3", 3),
    )


def test_an_anti_affinity_group_with_every_cluster_taken_does_not_fit() -> None:
    """Each cluster runs a peer: NoClusterFit with Karmada's reason counted per cluster."""
    info = binding(replicas=1, groups={"antiAffinityGroup": "app.ha=pipeline"})
    peers = [
        _peer("a-deployment", {"member1", "member2"}, anti_affinity_group="app.ha=pipeline"),
        _peer("b-deployment", {"member3"}, anti_affinity_group="app.ha=pipeline"),
    ]
    clusters = [cluster("member1"), cluster("member2"), cluster("member3")]
    with pytest.raises(FitError) as caught:
        schedule(info.with_group_peers(peers), clusters, REGISTRY)
    assert str(caught.value) == (
        "0/3 clusters are available: 3 cluster already has workload with the same anti-affinity group."
    )


def test_the_gate_off_schedules_as_if_there_were_no_groups() -> None:
    """`WorkloadAffinity=false`: the registry has no workload affinity plugins, and peers are ignored."""
    info = binding(replicas=1, groups={"antiAffinityGroup": "app.ha=pipeline"})
    peers = [_peer("a-deployment", {"member1"}, anti_affinity_group="app.ha=pipeline")]
    result = schedule(
        info.with_group_peers(peers), [cluster("member1")], in_tree_registry(workload_affinity=False)
    )
    assert result.clusters == (TargetCluster("member1", 1),)
