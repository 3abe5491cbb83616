"""The hub's metrics answers: lists merged and annotated, a name found in one member, Ready members only."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.resourcemetrics import NODE_METRICS, POD_METRICS, QUERY_FROM_CLUSTER_ANNOTATION
from flotilla.apiserver import errors
from flotilla.apiserver.metrics.members import ready_clusters
from flotilla.apiserver.metrics.merging import merged_list, single


def pod(name: str, **annotations: str) -> dict[str, Any]:
    return {"kind": "PodMetrics", "metadata": {"name": name, "namespace": "shop", "annotations": annotations}}


def cluster(name: str, ready: str, *, deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata, "status": {"conditions": [{"type": "Ready", "status": ready}]}}


def test_a_list_merges_every_members_items_each_annotated_with_its_member() -> None:
    merged = merged_list(
        POD_METRICS, [("m1", {"items": [pod("web-1", team="a")]}), ("m2", {"items": [pod("web-1")]})]
    )
    assert merged["kind"] == "PodMetricsList" and merged["apiVersion"] == "metrics.k8s.io/v1beta1"
    annotations = [item["metadata"]["annotations"] for item in merged["items"]]
    assert annotations == [
        {"team": "a", QUERY_FROM_CLUSTER_ANNOTATION: "m1"},
        {QUERY_FROM_CLUSTER_ANNOTATION: "m2"},
    ]


def test_a_name_found_in_one_member_is_answered_annotated() -> None:
    found = single(POD_METRICS, "shop", "web-1", [("m2", pod("web-1"))])
    assert found["metadata"]["annotations"] == {QUERY_FROM_CLUSTER_ANNOTATION: "m2"}


def test_a_name_found_nowhere_is_404_and_in_two_members_409() -> None:
    with pytest.raises(errors.NotFound, match=r'nodemetrics\.metrics\.k8s\.io "n1" not found'):
        single(NODE_METRICS, "", "n1", [])
    with pytest.raises(errors.Conflict, match="more than one cluster"):
        single(POD_METRICS, "shop", "web-1", [("m1", pod("web-1")), ("m2", pod("web-1"))])


def test_only_ready_clusters_not_being_deleted_are_asked() -> None:
    clusters = [
        cluster("b", "True"),
        cluster("a", "True"),
        cluster("c", "False"),
        cluster("d", "True", deleting=True),
    ]
    assert ready_clusters([*clusters, {"metadata": {"name": "e"}}]) == ["a", "b"]
