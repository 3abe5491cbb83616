"""The descheduler's decision: which bindings, which clusters, and how many replicas go back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from flotilla.controllers.descheduler.decision import (
    ClusterReplicas,
    Descheduled,
    deschedule,
    descheduled_clusters,
    event_message,
    in_scope,
    replica_statuses,
    with_unschedulable,
)

AGGREGATED = {
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
}
DYNAMIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}
STATIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["m1"]}, "weight": 1}]},
    }
}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def binding(
    applied: Mapping[str, Any] | None = AGGREGATED,
    *,
    kind: tuple[str, str] = ("apps/v1", "Deployment"),
    clusters: Mapping[str, int] | None = None,
    ready: Mapping[str, int | None] | None = None,
) -> dict[str, Any]:
    annotations = {} if applied is None else {"policy.karmada.io/applied-placement": json.dumps(applied)}
    aggregated = []
    for name, count in (ready or {}).items():
        status = {} if count is None else {"readyReplicas": count}
        aggregated.append({"clusterName": name, "status": status, "applied": True})
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "web-deployment", "namespace": "shop", "annotations": annotations},
        "spec": {
            "resource": {"apiVersion": kind[0], "kind": kind[1], "namespace": "shop", "name": "web"},
            "clusters": [{"name": name, "replicas": count} for name, count in (clusters or {}).items()],
        },
        "status": {"aggregatedStatus": aggregated},
    }


@pytest.mark.parametrize(
    ("applied", "expected"), [(AGGREGATED, True), (DYNAMIC, True), (STATIC, False), (DUPLICATED, False)]
)
def test_only_dynamically_divided_placements_are_in_scope(applied: Mapping[str, Any], expected: bool) -> None:
    """Divided with Aggregated or DynamicWeight, by the placement last scheduled."""
    assert in_scope(binding(applied)) is expected


def test_only_deployments_with_a_scheduled_placement_are_in_scope() -> None:
    """Another kind, or a binding never scheduled (no applied placement), is left alone."""
    assert not in_scope(binding(kind=("apps/v1", "StatefulSet")))
    assert not in_scope(binding(None))
    assert not in_scope({**binding(), "kind": "ClusterResourceBinding"})


def test_ready_comes_from_the_aggregated_status() -> None:
    """readyReplicas per cluster; a status without it (zero is omitted) is an unknown count."""
    statuses = replica_statuses(binding(clusters={"m1": 4, "m2": 2, "m3": 1}, ready={"m1": 2, "m2": None}))
    assert statuses == [
        ClusterReplicas("m1", 4, 2),
        ClusterReplicas("m2", 2, None),
        ClusterReplicas("m3", 1, None),
    ]
    assert [status.undesired for status in statuses] == [True, True, True]
    assert not ClusterReplicas("m1", 4, 4).undesired


def test_unschedulable_replicas_are_taken_back() -> None:
    """share - unschedulable, with the count filled in only for undesired clusters."""
    statuses = with_unschedulable(
        [ClusterReplicas("m1", 6, None), ClusterReplicas("m2", 2, 2)], {"m1": 2, "m2": 5}
    )
    assert deschedule(statuses) == [Descheduled("m1", 6, 4)]


def test_never_below_the_ready_replicas() -> None:
    """A cluster keeps at least the replicas that are ready there."""
    assert deschedule([ClusterReplicas("m1", 6, 5, unschedulable=3)]) == [Descheduled("m1", 6, 5)]


def test_a_cluster_may_lose_its_whole_share() -> None:
    """With nothing ready, every unschedulable replica goes."""
    assert deschedule([ClusterReplicas("m1", 4, None, unschedulable=4)]) == [Descheduled("m1", 4, 0)]


def test_nothing_changes_without_unschedulable_replicas_or_with_more_than_the_share() -> None:
    """Karmada acts only when 0 < unschedulable <= share."""
    assert deschedule([ClusterReplicas("m1", 4, 1), ClusterReplicas("m2", 2, 0, unschedulable=3)]) == []


def test_the_new_clusters_keep_the_others_and_drop_the_count_of_an_emptied_one() -> None:
    """Only the changed shares move; a share of 0 stays listed without replicas."""
    found = descheduled_clusters(
        binding(clusters={"m1": 4, "m2": 2, "m3": 3}), [Descheduled("m1", 4, 0), Descheduled("m3", 3, 1)]
    )
    assert found == [{"name": "m1"}, {"name": "m2", "replicas": 2}, {"name": "m3", "replicas": 1}]


def test_the_event_lists_each_cluster_and_the_total() -> None:
    """Karmada's message, word for word."""
    message = event_message([Descheduled("member1", 4, 2), Descheduled("member3", 1, 0)])
    assert message == (
        "Binding has been descheduled, 2 replica(s) in cluster(member1), 1 replica(s) in cluster(member3), "
        "3 total descheduled replica(s)"
    )
