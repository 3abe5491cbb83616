"""WorkloadAntiAffinity: no two workloads of one anti-affinity group share a cluster."""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.plugins.workloadantiaffinity import REASON, WorkloadAntiAffinity
from tests.unit.scheduler.manifests import binding, cluster

GROUP = "app.ha=pipeline"


def peer(name: str, *clusters: str) -> GroupMember:
    return GroupMember("default", name, WorkloadGroups(anti_affinity_group=GROUP), frozenset(clusters))


def grouped(*peers: GroupMember, clusters: dict[str, int] | None = None) -> BindingInfo:
    groups = {"antiAffinityGroup": GROUP}
    return binding(replicas=1, clusters=clusters, groups=groups).with_group_peers(peers)


def test_a_cluster_a_peer_runs_on_is_rejected() -> None:
    """Karmada's reason, for each cluster of any peer's result."""
    info = grouped(peer("a-deployment", "member1"), peer("b-deployment", "member2", "member3"))
    for name in ("member1", "member2", "member3"):
        assert WorkloadAntiAffinity().filter(info, cluster(name)).reasons == (REASON,)
    assert WorkloadAntiAffinity().filter(info, cluster("member4")).is_success
    assert REASON == "cluster already has workload with the same anti-affinity group"


def test_a_cluster_already_in_the_result_stays() -> None:
    """The filter never pulls a placed workload: two that collided before stay where they are."""
    info = grouped(peer("a-deployment", "member1"), clusters={"member1": 1})
    assert WorkloadAntiAffinity().filter(info, cluster("member1")).is_success


def test_a_binding_without_an_anti_affinity_group_is_not_filtered() -> None:
    """Only `antiAffinityGroup` counts here."""
    info = binding(replicas=1, groups={"affinityGroup": GROUP})
    assert WorkloadAntiAffinity().filter(info, cluster("member1")).is_success
