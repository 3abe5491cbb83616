"""GroupPlacements: where the bindings of each workload affinity group are, seen or just decided."""

from __future__ import annotations

from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.groupplacements import GroupPlacements

HA = WorkloadGroups(anti_affinity_group="app.ha=pipeline")
SHOP = WorkloadGroups(affinity_group="app.stack=shop")


def rb(
    name: str, version: int, clusters: list[str], groups: WorkloadGroups, namespace: str = "default"
) -> dict[str, Any]:
    spec: dict[str, Any] = {"clusters": [{"name": cluster, "replicas": 1} for cluster in clusters]}
    wire = {"affinityGroup": groups.affinity_group, "antiAffinityGroup": groups.anti_affinity_group}
    spec["workloadAffinityGroups"] = {key: value for key, value in wire.items() if value}
    metadata = {"name": name, "namespace": namespace, "resourceVersion": str(version)}
    return {"kind": "ResourceBinding", "metadata": metadata, "spec": spec}


def placed(placements: GroupPlacements, groups: WorkloadGroups) -> dict[str, set[str]]:
    return {member.name: set(member.clusters) for member in placements.members("default", groups)}


def test_members_are_the_bindings_of_the_groups_asked_for_in_the_namespace() -> None:
    """Indexed by (namespace, kind of group, group) as informer events arrive."""
    placements = GroupPlacements()
    placements.observe(rb("a", 5, ["m1"], HA), None)
    placements.observe(rb("b", 6, ["m2"], SHOP), None)
    placements.observe(rb("c", 7, ["m3"], HA, namespace="other"), None)
    placements.observe(
        {"kind": "ResourceBinding", "metadata": {"name": "plain", "namespace": "default"}}, None
    )
    assert placed(placements, HA) == {"a": {"m1"}}
    assert placed(placements, SHOP) == {"b": {"m2"}}


def test_a_decision_counts_before_its_write_and_until_the_informer_shows_it() -> None:
    """Assumed at once, confirmed with the written version, dropped when the informer catches up."""
    placements = GroupPlacements()
    placements.observe(rb("a", 5, [], HA), None)
    key = ObjectKey("default", "a")
    placements.assume(key, GroupMember("default", "a", HA, frozenset({"m2"})))
    assert placed(placements, HA) == {"a": {"m2"}}
    placements.confirm(key, "9")
    placements.forget_unwritten(key)  # the round ends: a written result stays assumed
    placements.observe(rb("a", 8, [], HA), rb("a", 5, [], HA))  # an older copy: still the decision
    assert placed(placements, HA) == {"a": {"m2"}}
    placements.observe(rb("a", 9, ["m2"], HA), rb("a", 8, [], HA))
    placements.observe(rb("a", 10, ["m3"], HA), rb("a", 9, ["m2"], HA))  # someone moved it since
    assert placed(placements, HA) == {"a": {"m3"}}


def test_a_decision_never_written_is_dropped_when_the_round_ends() -> None:
    """A failed write (or a result already there) leaves the informer's copy in charge."""
    placements = GroupPlacements()
    placements.observe(rb("a", 5, ["m1"], HA), None)
    key = ObjectKey("default", "a")
    placements.assume(key, GroupMember("default", "a", HA, frozenset({"m2"})))
    placements.forget_unwritten(key)
    assert placed(placements, HA) == {"a": {"m1"}}


def test_a_decision_the_informer_already_shows_is_not_kept() -> None:
    """The watch event can beat the write's answer: confirming then keeps nothing stale."""
    placements = GroupPlacements()
    key = ObjectKey("default", "a")
    placements.assume(key, GroupMember("default", "a", HA, frozenset({"m2"})))
    placements.observe(rb("a", 9, ["m2"], HA), None)
    placements.confirm(key, "9")
    placements.observe(rb("a", 10, [], HA), rb("a", 9, ["m2"], HA))
    assert placed(placements, HA) == {"a": set()}


def test_a_peer_that_moves_or_goes_names_the_other_members_of_its_groups() -> None:
    """So the controller can queue the ones still waiting; a status-only change names nobody."""
    placements = GroupPlacements()
    placements.observe(rb("a", 5, ["m1"], HA), None)
    placements.observe(rb("b", 6, [], HA), None)
    placements.observe(rb("c", 7, [], SHOP), None)
    assert placements.observe(rb("a", 8, ["m1"], HA), rb("a", 5, ["m1"], HA)) == set()
    assert placements.observe(rb("a", 9, ["m2"], HA), rb("a", 8, ["m1"], HA)) == {ObjectKey("default", "b")}
    assert placements.observe(None, rb("a", 9, ["m2"], HA)) == {ObjectKey("default", "b")}
    assert placed(placements, HA) == {"b": set()}
