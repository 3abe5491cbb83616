"""Selection under spread constraints: by cluster (with capacity swaps) and by region."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.scheduler.core.errors import SchedulerError
from flotilla.scheduler.core.inputs import ClusterInfo
from flotilla.scheduler.core.selection import select_clusters
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights, static_weights


def spread(*constraints: dict[str, Any], **placement: Any) -> dict[str, Any]:
    return {"spreadConstraints": list(constraints), **placement}


def by_cluster(minimum: int, maximum: int) -> dict[str, Any]:
    return {"spreadByField": "cluster", "minGroups": minimum, "maxGroups": maximum}


def by_region(minimum: int, maximum: int) -> dict[str, Any]:
    return {"spreadByField": "region", "minGroups": minimum, "maxGroups": maximum}


def names(clusters: list[ClusterInfo]) -> list[str]:
    return [info.name for info in clusters]


CLUSTERS = [
    cluster(name, region=region) for name, region in [("a", "eu"), ("b", "eu"), ("c", "us"), ("d", "ap")]
]


def test_without_constraints_every_candidate_is_selected_best_first() -> None:
    """Ranking: score, then capacity, then name."""
    chosen = select_clusters(binding(replicas=1), CLUSTERS, {"c": 100}, {"a": 1, "b": 5, "c": 0, "d": 5})
    assert names(chosen) == ["c", "b", "d", "a"]


def test_static_weights_ignore_spread_constraints() -> None:
    """Static weights place on every candidate regardless of maxGroups."""
    placement = {**static_weights({"a": 1, "b": 1, "c": 1}), "spreadConstraints": [by_cluster(1, 1)]}
    assert len(select_clusters(binding(replicas=3, placement=placement), CLUSTERS, {}, {})) == 4


def test_duplicated_takes_the_best_max_groups_clusters() -> None:
    """maxGroups 2 keeps the two best-ranked clusters."""
    info = binding(replicas=2, placement=spread(by_cluster(1, 2)))
    assert names(select_clusters(info, CLUSTERS, {"d": 100, "a": 100}, {})) == ["a", "d"]


def test_fewer_clusters_than_min_groups_fails() -> None:
    """minGroups above the candidates is an error in Karmada's words."""
    info = binding(replicas=2, placement=spread(by_cluster(5, 6)))
    with pytest.raises(SchedulerError, match=r"less than spreadConstraint\.MinGroups"):
        select_clusters(info, CLUSTERS, {}, {})


def test_divided_swaps_a_low_ranked_pick_for_a_roomier_cluster() -> None:
    """Karmada's example: best two by score cannot hold 80 replicas, so the third replaces the second."""
    clusters = [cluster("member1"), cluster("member2"), cluster("member3")]
    info = binding(replicas=80, placement=spread(by_cluster(1, 2), **dynamic_weights()))
    chosen = select_clusters(
        info,
        clusters,
        {"member1": 60, "member2": 50, "member3": 40},
        {"member1": 40, "member2": 30, "member3": 60},
    )
    assert names(chosen) == ["member1", "member3"]


def test_divided_without_enough_room_in_any_pick_fails() -> None:
    """No swap can reach the replicas: `no enough resource when selecting 2 clusters`."""
    info = binding(replicas=100, placement=spread(by_cluster(1, 2), **dynamic_weights()))
    with pytest.raises(SchedulerError, match="no enough resource when selecting 2 clusters"):
        select_clusters(info, CLUSTERS, {}, {"a": 10, "b": 10, "c": 10, "d": 10})


def test_current_replicas_count_as_room() -> None:
    """Replicas a cluster already runs for the binding are part of its capacity."""
    info = binding(replicas=10, clusters={"a": 10}, placement=spread(by_cluster(1, 1), **dynamic_weights()))
    assert names(select_clusters(info, CLUSTERS, {}, {"a": 0, "b": 5, "c": 5, "d": 5})) == ["a"]


def test_spread_by_region_places_one_cluster_per_region_first() -> None:
    """Two regions wanted, two clusters at most: one from each region, never two from eu."""
    info = binding(replicas=2, placement=spread(by_region(2, 2), by_cluster(2, 2)))
    chosen = select_clusters(info, CLUSTERS, {"a": 100, "b": 100}, {})
    assert len(chosen) == 2
    assert len({c.region for c in chosen}) == 2
    assert "a" in names(chosen)


def test_spread_by_region_fills_up_to_cluster_max_groups() -> None:
    """With one region and up to three clusters, the region's clusters fill in by rank."""
    info = binding(replicas=2, placement=spread(by_region(1, 1), by_cluster(1, 3)))
    clusters = [
        cluster("a", region="eu"),
        cluster("b", region="eu"),
        cluster("c", region="eu"),
        cluster("d", region="us"),
    ]
    chosen = select_clusters(info, clusters, {"a": 100, "b": 100, "c": 100}, {})
    assert names(chosen) == ["a", "b", "c"]


def test_spread_by_region_prefers_regions_where_the_workload_fits() -> None:
    """Duplicated: the region whose clusters can each hold all replicas wins over a higher-scored one."""
    clusters = [cluster("small", region="eu"), cluster("big", region="us")]
    info = binding(replicas=10, placement=spread(by_region(1, 1), by_cluster(1, 1)))
    chosen = select_clusters(info, clusters, {"small": 100}, {"small": 2, "big": 50})
    assert names(chosen) == ["big"]


def test_too_few_regions_fails() -> None:
    """More regions demanded than exist is an error."""
    info = binding(replicas=2, placement=spread(by_region(4, 4), by_cluster(4, 4)))
    with pytest.raises(SchedulerError, match="feasible region is less than"):
        select_clusters(info, CLUSTERS, {}, {})


def test_regions_without_enough_clusters_for_cluster_min_groups_fail() -> None:
    """Two regions can offer at most their clusters; asking for five clusters cannot be met."""
    info = binding(replicas=2, placement=spread(by_region(1, 2), by_cluster(5, 5)))
    with pytest.raises(SchedulerError, match=r"less than the cluster spreadConstraint\.MinGroups"):
        select_clusters(info, CLUSTERS, {}, {})


def test_only_zone_constraints_are_not_implemented() -> None:
    """Like Karmada, only cluster and region spreading select clusters."""
    info = binding(replicas=2, placement=spread({"spreadByLabel": "rack", "minGroups": 1, "maxGroups": 1}))
    with pytest.raises(SchedulerError, match="just support cluster and region"):
        select_clusters(info, CLUSTERS, {}, {})
