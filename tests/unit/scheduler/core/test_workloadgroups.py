"""Workload affinity groups: a binding's groups and its peers, by Karmada's rules."""

from __future__ import annotations

from typing import Any

from flotilla.scheduler.core.workloadgroups import GroupMember, PeerPlacement, WorkloadGroups
from tests.unit.scheduler.manifests import binding, binding_object

SHOP = {"affinityGroup": "app.stack=shop"}
HA = {"antiAffinityGroup": "app.ha=pipeline"}


def member(name: str, clusters: dict[str, int], groups: dict[str, str], **options: Any) -> GroupMember:
    found = GroupMember.of_binding(binding_object(name=name, clusters=clusters, groups=groups, **options))
    assert found is not None
    return found


def test_the_groups_are_read_from_the_binding_spec() -> None:
    """`spec.workloadAffinityGroups` as the detector writes it."""
    info = binding(groups={**SHOP, **HA})
    assert info.workload_groups == WorkloadGroups("app.stack=shop", "app.ha=pipeline")
    assert info.workload_groups.grouped
    assert not binding().workload_groups.grouped


def test_a_cluster_resource_binding_has_no_groups() -> None:
    """Karmada neither sets nor reads the field on a ClusterResourceBinding."""
    body = binding_object(groups=SHOP)
    body["kind"] = "ClusterResourceBinding"
    assert not WorkloadGroups.of_binding(body).grouped
    assert GroupMember.of_binding(body) is None


def test_peers_are_the_placed_bindings_of_the_same_group_and_namespace() -> None:
    """Same group string and namespace, another name, a result: a peer; anything else is not."""
    info = binding(groups={**SHOP, **HA})
    members = [
        member("cache-deployment", {"member3": 1}, SHOP),
        member("db-deployment", {"member1": 1}, {"affinityGroup": "app.stack=other"}),
        member("queue-deployment", {}, SHOP),  # not placed yet: blocks nothing
        member("nginx-deployment", {"member2": 1}, SHOP),  # the binding itself
        member("copy-deployment", {"member2": 2, "member4": 1}, HA),
    ]
    elsewhere = GroupMember("other", "web-deployment", WorkloadGroups("app.stack=shop"), frozenset({"m9"}))
    groups = info.with_group_peers([*members, elsewhere]).workload_groups
    assert groups.affinity_peers == (PeerPlacement("cache-deployment", frozenset({"member3"})),)
    assert groups.anti_affinity_peers == (
        PeerPlacement("copy-deployment", frozenset({"member2", "member4"})),
    )
    assert groups.apart_from("member1") == groups.affinity_peers
    assert groups.apart_from("member3") == ()
    assert groups.alongside("member4") == groups.anti_affinity_peers
    assert groups.alongside("member3") == ()


def test_an_affinity_group_does_not_match_an_anti_affinity_group_of_the_same_string() -> None:
    """The two kinds of group are separate, even under the same `key=value`."""
    info = binding(groups={"affinityGroup": "app=x"})
    other = member("other-deployment", {"member1": 1}, {"antiAffinityGroup": "app=x"})
    assert info.with_group_peers([other]).workload_groups.affinity_peers == ()


def test_an_ungrouped_binding_is_left_as_it_is() -> None:
    """No groups, no peers to look for."""
    info = binding()
    assert info.with_group_peers([member("cache-deployment", {"member3": 1}, SHOP)]) is info
