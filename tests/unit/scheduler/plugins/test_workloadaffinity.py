"""WorkloadAffinity: a grouped workload goes only where every placed peer of its group is."""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.plugins.workloadaffinity import REASON, WorkloadAffinity
from tests.unit.scheduler.manifests import binding, cluster

GROUP = "app.stack=shop"


def peer(name: str, *clusters: str) -> GroupMember:
    return GroupMember("default", name, WorkloadGroups(affinity_group=GROUP), frozenset(clusters))


def grouped(*peers: GroupMember, clusters: dict[str, int] | None = None) -> BindingInfo:
    return binding(replicas=1, clusters=clusters, groups={"affinityGroup": GROUP}).with_group_peers(peers)


def test_the_first_of_a_group_goes_anywhere() -> None:
    """No peer is placed yet: nothing to follow, so nothing blocks (no deadlock for a new group)."""
    assert WorkloadAffinity().filter(grouped(peer("cache-deployment")), cluster("member1")).is_success


def test_only_the_clusters_of_the_placed_peers_fit() -> None:
    """A cluster outside a peer's result is rejected with Karmada's reason."""
    info = grouped(peer("cache-deployment", "member3"))
    assert WorkloadAffinity().filter(info, cluster("member3")).is_success
    assert WorkloadAffinity().filter(info, cluster("member1")).reasons == (REASON,)
    assert REASON == "ResourceBinding with the same affinity group does not target this cluster"


def test_every_placed_peer_must_have_the_cluster() -> None:
    """Two peers on member1+member2 and member2: only member2 is in both."""
    info = grouped(peer("a-deployment", "member1", "member2"), peer("b-deployment", "member2"))
    fits = [
        name for name in ("member1", "member2") if WorkloadAffinity().filter(info, cluster(name)).is_success
    ]
    assert fits == ["member2"]


def test_a_cluster_already_in_the_result_stays() -> None:
    """The filter never pulls a placed workload, whatever its peers did since."""
    info = grouped(peer("cache-deployment", "member3"), clusters={"member1": 1})
    assert WorkloadAffinity().filter(info, cluster("member1")).is_success


def test_a_binding_without_an_affinity_group_is_not_filtered() -> None:
    """Only `affinityGroup` counts here."""
    info = binding(replicas=1, groups={"antiAffinityGroup": GROUP})
    assert WorkloadAffinity().filter(info, cluster("member1")).is_success
