"""The placement preview: the scheduler's own result, and a reason for every cluster left out."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.scheduler.core.errors import FitError
from flotilla.scheduler.core.generic import schedule
from flotilla.scheduler.core.inputs import ClusterInfo, TargetCluster
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.plugins import in_tree_registry
from flotilla.scheduler.preview import DIVISION_STAGE, Outcome, PlacementPreview, preview_placement
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, pods_only, static_weights

UNSCHEDULABLE = {"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"}
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def three_clusters(**member3: Any) -> list[ClusterInfo]:
    return [cluster("member1", region="a"), cluster("member2", region="a"), cluster("member3", **member3)]


def decision(preview: PlacementPreview, name: str) -> Any:
    return next(item for item in preview.decisions if item.cluster == name)


def placed(preview: PlacementPreview) -> dict[str, int]:
    return {target.name: target.replicas for target in preview.targets}


def test_a_tainted_cluster_is_excluded_by_taint_toleration_naming_the_taint() -> None:
    """A NoSchedule taint the placement does not tolerate is the reason, with the taint spelled out."""
    preview = preview_placement(
        binding(replicas=4, placement=DIVIDED), three_clusters(taints=[UNSCHEDULABLE])
    )
    member3 = decision(preview, "member3")
    assert member3.outcome == Outcome.FILTERED
    assert member3.plugin == "TaintToleration"
    assert member3.reason == "cluster(s) had untolerated taint {cluster.karmada.io/unschedulable:NoSchedule}"
    assert placed(preview) == {"member1": 2, "member2": 2}


def test_a_tolerated_taint_excludes_nothing() -> None:
    """With a matching clusterToleration the tainted cluster takes its share."""
    placement = {**DIVIDED, "clusterTolerations": [{"key": UNSCHEDULABLE["key"], "operator": "Exists"}]}
    preview = preview_placement(
        binding(replicas=3, placement=placement), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert placed(preview) == {"member1": 1, "member2": 1, "member3": 1}
    assert all(item.outcome == Outcome.PLACED for item in preview.decisions)


@pytest.mark.parametrize(
    ("affinity", "detail"),
    [
        ({"clusterNames": ["member1", "member2"]}, "cluster is not in clusterNames [member1, member2]"),
        ({"exclude": ["member3"]}, "cluster is in exclude"),
        (
            {"labelSelector": {"matchLabels": {"tier": "gold"}}},
            "cluster labels do not match labelSelector tier=gold",
        ),
        (
            {"fieldSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["a"]}]}},
            "fieldSelector region In [a] does not match region <none>",
        ),
    ],
)
def test_an_affinity_exclusion_says_which_part_of_the_affinity_failed(
    affinity: dict[str, Any], detail: str
) -> None:
    """Karmada's generic affinity message is followed by the part that left the cluster out."""
    clusters = [
        cluster("member1", region="a", labels={"tier": "gold"}),
        cluster("member2", region="a", labels={"tier": "gold"}),
        cluster("member3"),
    ]
    preview = preview_placement(binding(replicas=2, placement={"clusterAffinity": affinity}), clusters)
    member3 = decision(preview, "member3")
    assert member3.plugin == "ClusterAffinity"
    assert member3.reason == f"cluster(s) did not match the placement cluster affinity constraint: {detail}"


def test_static_weights_split_the_replicas_and_an_unweighted_cluster_gets_none() -> None:
    """Weights 2:1 split six replicas 4/2; a cluster no weight rule matches is left out by the division."""
    placement = static_weights({"member1": 2, "member2": 1})
    del placement["clusterAffinity"]  # every cluster fits; only the weights choose
    preview = preview_placement(binding(replicas=6, placement=placement), three_clusters())
    assert placed(preview) == {"member1": 4, "member2": 2}
    assert decision(preview, "member1").reason == "static weight 2"
    member3 = decision(preview, "member3")
    assert member3.outcome == Outcome.NO_REPLICAS
    assert member3.plugin == DIVISION_STAGE
    assert member3.reason == "no staticWeightList rule matches the cluster (weight 0)"


def test_spread_by_region_takes_one_cluster_per_region_and_explains_the_rest() -> None:
    """Two regions are chosen, one cluster from each; every other cluster is told why it was left out."""
    clusters = [
        cluster("member1", region="a"),
        cluster("member2", region="a"),
        cluster("member3", region="b"),
        cluster("member4", region="c"),
    ]
    placement = {
        "spreadConstraints": [{"spreadByField": "region", "minGroups": 2, "maxGroups": 2}],
        **dynamic_weights(),
    }
    preview = preview_placement(binding(replicas=4, placement=placement), clusters)
    chosen = set(placed(preview))
    assert len(chosen) == 2
    chosen_regions = {item.region for item in clusters if item.name in chosen}
    assert len(chosen_regions) == 2
    for item in clusters:
        if item.name in chosen:
            continue
        left_out = decision(preview, item.name)
        assert left_out.outcome == Outcome.NOT_SELECTED
        assert left_out.plugin == "SpreadConstraint"
        if item.region in chosen_regions:
            assert left_out.reason.startswith(
                f"region spread: one cluster per region, and region {item.region} has"
            )
        else:
            assert left_out.reason.startswith(
                f"region spread: region {item.region} not among the chosen regions"
            )


def test_a_cluster_without_a_region_fails_the_spread_filter() -> None:
    """Spreading by region rejects a cluster that has no region, in the filter stage."""
    placement = {"spreadConstraints": [{"spreadByField": "region", "minGroups": 1, "maxGroups": 2}]}
    preview = preview_placement(binding(replicas=2, placement={**placement, **DIVIDED}), three_clusters())
    member3 = decision(preview, "member3")
    assert (member3.outcome, member3.plugin) == (Outcome.FILTERED, "SpreadConstraint")
    assert member3.reason == "cluster(s) didn't have region property"


def test_duplicated_runs_every_replica_everywhere_while_divided_splits_them() -> None:
    """Duplicated puts all 3 replicas on each cluster; Divided puts 3 in total."""
    clusters = three_clusters(region="b")
    duplicated = preview_placement(binding(replicas=3, placement=DUPLICATED), clusters)
    divided = preview_placement(binding(replicas=3, placement=DIVIDED), clusters)
    assert placed(duplicated) == {"member1": 3, "member2": 3, "member3": 3}
    assert placed(divided) == {"member1": 1, "member2": 1, "member3": 1}


def test_no_fitting_cluster_is_the_no_cluster_fit_condition_with_an_empty_result() -> None:
    """When every cluster is filtered, the condition is the scheduler's NoClusterFit histogram."""
    clusters = [cluster("member1", taints=[UNSCHEDULABLE]), cluster("member2", taints=[UNSCHEDULABLE])]
    preview = preview_placement(binding(replicas=2, placement=DIVIDED, clusters={"gone": 2}), clusters)
    assert preview.condition is not None
    assert (preview.condition.status, preview.condition.reason) == ("False", FitError.reason)
    assert preview.condition.message == (
        "0/2 clusters are available: 2 cluster(s) had untolerated taint "
        "{cluster.karmada.io/unschedulable:NoSchedule}."
    )
    assert preview.targets == ()
    assert preview.changed
    assert {item.outcome for item in preview.decisions} == {Outcome.FILTERED}


def test_an_unmeetable_spread_keeps_the_previous_result_and_reports_the_scheduler_error() -> None:
    """A SchedulerError leaves the current result in place, as the scheduler does."""
    placement = {
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 4, "maxGroups": 4}],
        **dynamic_weights(),
    }
    existing = binding(replicas=2, placement=placement, clusters={"member1": 2})
    preview = preview_placement(existing, three_clusters())
    assert preview.condition is not None
    assert preview.condition.reason == "SchedulerError"
    assert "less than spreadConstraint.MinGroups" in preview.condition.message
    assert placed(preview) == {"member1": 2}
    assert decision(preview, "member2").outcome == Outcome.UNPLACED


def test_an_unchanged_divided_binding_is_not_rescheduled() -> None:
    """Same placement and replicas already scheduled: no condition, the current result stands."""
    existing = binding(
        replicas=2,
        placement=DIVIDED,
        applied_placement=DIVIDED,
        clusters={"member1": 1, "member3": 1},
    )
    preview = preview_placement(existing, three_clusters(region="b"))
    assert preview.condition is None
    assert not preview.rescheduled
    assert not preview.changed
    assert decision(preview, "member1").current == decision(preview, "member1").planned == 1
    assert decision(preview, "member2").outcome == Outcome.UNPLACED
    assert "no reschedule" in decision(preview, "member2").reason


def test_an_existing_binding_shows_its_current_replicas_beside_the_new_ones() -> None:
    """A changed placement reschedules; each decision carries the replicas before and after."""
    existing = binding(
        replicas=2,
        placement={"clusterAffinity": {"clusterNames": ["member2"]}, **DIVIDED},
        applied_placement=DIVIDED,
        clusters={"member1": 1, "member2": 1},
    )
    preview = preview_placement(existing, three_clusters())
    assert (decision(preview, "member1").current, decision(preview, "member1").planned) == (1, None)
    assert (decision(preview, "member2").current, decision(preview, "member2").planned) == (1, 2)
    assert preview.changed


def test_a_new_binding_with_a_tie_offers_the_other_split() -> None:
    """Three replicas over two equal clusters: the odd one's place depends on the unknown UID."""
    preview = preview_placement(
        binding(replicas=3, placement=DIVIDED, template_uid=""), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert sorted(placed(preview).values()) == [1, 2]
    alternative = {target.name: target.replicas for target in preview.tie_alternative}
    assert alternative == {name: 3 - count for name, count in placed(preview).items()}


def test_a_known_uid_leaves_no_alternative() -> None:
    """An existing template's UID decides the tie, so there is no other split to offer."""
    preview = preview_placement(
        binding(replicas=3, placement=DIVIDED, template_uid="uid-0"), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert preview.tie_alternative == ()


def test_an_existing_templates_tie_names_the_clusters_its_uid_favoured() -> None:
    """3 over two equal clusters, the template's UID hashing odd: member2 got the tied replica, and
    ascending order would have given member1:2, member2:1."""
    odd = "0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10"
    preview = preview_placement(
        binding(replicas=3, placement=DIVIDED, template_uid=odd), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert placed(preview) == {"member1": 1, "member2": 2}
    assert preview.tie is not None and preview.tie.known and preview.tie.descending
    assert preview.tie.favoured == ("member2",)
    assert preview.tie.alternative == (TargetCluster("member1", 2), TargetCluster("member2", 1))
    assert preview.tie_alternative == ()


def test_a_new_templates_tie_is_previewed_ascending_with_the_other_split() -> None:
    """No UID yet: ascending (member1 gets the tied replica), and member2 if the UID hashes odd."""
    preview = preview_placement(
        binding(replicas=3, placement=DIVIDED, template_uid=""), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert preview.tie is not None and not preview.tie.known
    assert (preview.tie.favoured, preview.tie.alternative_favoured) == (("member1",), ("member2",))


def test_an_unchanged_split_is_explained_when_a_first_schedule_gives_it() -> None:
    """Nothing to reschedule: the current 1/2 is what the odd UID gives from scratch, so its tie is
    stated; a 2/1 (grown by scaling, say) is not what a first schedule gives, so nothing is claimed."""
    odd = "0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10"
    two = three_clusters(taints=[UNSCHEDULABLE])
    current = binding(
        replicas=3,
        placement=DIVIDED,
        applied_placement=DIVIDED,
        clusters={"member1": 1, "member2": 2},
        template_uid=odd,
    )
    kept = preview_placement(current, two)
    assert not kept.rescheduled
    assert kept.tie is not None and kept.tie.favoured == ("member2",)
    grown = binding(
        replicas=3,
        placement=DIVIDED,
        applied_placement=DIVIDED,
        clusters={"member1": 2, "member2": 1},
        template_uid=odd,
    )
    assert preview_placement(grown, two).tie is None


def test_a_split_without_a_tie_says_nothing_about_ties() -> None:
    """4 over two equal clusters divides evenly; Duplicated never ties."""
    two = three_clusters(taints=[UNSCHEDULABLE])
    assert preview_placement(binding(replicas=4, placement=DIVIDED), two).tie is None
    assert preview_placement(binding(replicas=3, placement=DUPLICATED), two).tie is None


def test_workload_affinity_exclusions_name_the_group_and_the_peers() -> None:
    """A peer of the anti-affinity group on member1 and one of the affinity group on member2 only."""
    info = binding(
        replicas=1,
        placement=DUPLICATED,
        groups={"affinityGroup": "app.stack=shop", "antiAffinityGroup": "app.ha=pipeline"},
    ).with_group_peers(
        [
            GroupMember(
                "default",
                "copy-deployment",
                WorkloadGroups(anti_affinity_group="app.ha=pipeline"),
                frozenset({"member1"}),
            ),
            GroupMember(
                "default",
                "cache-deployment",
                WorkloadGroups(affinity_group="app.stack=shop"),
                frozenset({"member1", "member2"}),
            ),
        ]
    )
    preview = preview_placement(info, three_clusters())
    assert placed(preview) == {"member2": 1}
    member1, member3 = decision(preview, "member1"), decision(preview, "member3")
    assert (member1.outcome, member1.plugin) == (Outcome.FILTERED, "WorkloadAntiAffinity")
    assert member1.reason == (
        "cluster already has workload with the same anti-affinity group: "
        "anti-affinity group app.ha=pipeline runs here: copy-deployment"
    )
    assert (member3.outcome, member3.plugin) == (Outcome.FILTERED, "WorkloadAffinity")
    assert member3.reason == (
        "ResourceBinding with the same affinity group does not target this cluster: "
        "affinity group app.stack=shop is placed elsewhere: cache-deployment on member1, member2"
    )


def test_a_cluster_without_room_gets_no_replicas_by_available_replicas() -> None:
    """Dynamic weights skip a cluster whose resource summary has no room for a pod."""
    clusters = [
        cluster("member1", allocatable=pods_only(10)),
        cluster("member2", allocatable=pods_only(0)),
    ]
    preview = preview_placement(binding(replicas=4, placement=dynamic_weights()), clusters)
    assert placed(preview) == {"member1": 4}
    member2 = decision(preview, "member2")
    assert (member2.outcome, member2.plugin) == (Outcome.NO_REPLICAS, DIVISION_STAGE)
    assert member2.reason == "no room for a replica, limited by pods in its resource summary"
    assert member2.available is not None and member2.available.replicas == 0


def test_a_cluster_being_deleted_is_skipped() -> None:
    """The scheduler ignores clusters with a deletion timestamp, and the preview says so."""
    preview = preview_placement(binding(replicas=2, placement=DIVIDED), three_clusters(deleting=True))
    assert decision(preview, "member3").outcome == Outcome.DELETING
    assert "member3" not in placed(preview)


@pytest.mark.parametrize(
    "placement",
    [
        DIVIDED,
        DUPLICATED,
        dynamic_weights(),
        dynamic_weights(aggregated=True),
        static_weights({"member1": 1, "member3": 3}),
        {
            "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2}],
            **dynamic_weights(),
        },
    ],
)
def test_the_preview_result_is_the_schedulers_result(placement: dict[str, Any]) -> None:
    """Whatever the strategy, the previewed targets are exactly what `schedule` returns."""
    clusters = [
        cluster("member1", allocatable=pods_only(3)),
        cluster("member2", allocatable=pods_only(5)),
        cluster("member3", allocatable=pods_only(8)),
    ]
    subject = binding(replicas=7, placement=placement)
    expected = schedule(subject, clusters, in_tree_registry()).clusters
    preview = preview_placement(subject, clusters)
    assert preview.targets == expected
    planned = {item.cluster: item.planned for item in preview.decisions if item.planned is not None}
    assert planned == {target.name: target.replicas for target in expected}
    assert all(isinstance(target, TargetCluster) for target in preview.targets)


def test_ordered_affinity_terms_fall_through_and_name_the_term_used() -> None:
    """When the first clusterAffinities term fits nothing, the next one places it and is named."""
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["member3"]},
            {"affinityName": "backup", "clusterNames": ["member1"]},
        ],
        **DIVIDED,
    }
    preview = preview_placement(
        binding(replicas=2, placement=placement), three_clusters(taints=[UNSCHEDULABLE])
    )
    assert preview.affinity_name == "backup"
    assert placed(preview) == {"member1": 2}
    assert decision(preview, "member2").reason.endswith(
        "affinity term backup: cluster is not in clusterNames [member1]"
    )


def test_a_fallback_onto_clusters_the_application_failed_on_is_explained_as_placed() -> None:
    """When only failed clusters fit, the scheduler allows them; the preview explains that round."""
    only_member1 = {"clusterAffinity": {"clusterNames": ["member1"]}, **DUPLICATED}
    preview = preview_placement(
        binding(replicas=2, placement=only_member1, failed_on={"member1": "2026-12-02T03:00:00.000000Z"}),
        three_clusters(),
    )
    assert preview.on_failed_clusters
    assert placed(preview) == {"member1": 2}
    assert decision(preview, "member1").outcome == Outcome.PLACED
    elsewhere = preview_placement(
        binding(replicas=2, placement=DUPLICATED, failed_on={"member1": "2026-12-02T03:00:00.000000Z"}),
        three_clusters(),
    )
    assert not elsewhere.on_failed_clusters
    assert decision(elsewhere, "member1").plugin == "ClusterEviction"
