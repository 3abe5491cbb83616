"""ResourceRegistries select clusters by affinity and kinds by selector; namespaces add up."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.search.targets import Target, plan

PODS = GroupVersionKind("", "v1", "Pod")
DEPLOYMENTS = GroupVersionKind("apps", "v1", "Deployment")


def cluster(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}}


def registry(target: dict[str, Any], *selectors: dict[str, str], deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "r"}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"metadata": metadata, "spec": {"targetCluster": target, "resourceSelectors": list(selectors)}}


CLUSTERS = [cluster("m1", env="prod"), cluster("m2", env="dev"), cluster("m3", env="prod")]


def test_clusters_by_name_and_label_and_exclusion() -> None:
    by_label = registry(
        {"labelSelector": {"matchLabels": {"env": "prod"}}, "exclude": ["m3"]},
        {"apiVersion": "v1", "kind": "Pod"},
    )
    assert plan([by_label], CLUSTERS) == {Target("m1", PODS)}
    by_name = registry({"clusterNames": ["m2", "gone"]}, {"apiVersion": "apps/v1", "kind": "Deployment"})
    assert plan([by_name], CLUSTERS) == {Target("m2", DEPLOYMENTS)}


def test_an_empty_affinity_selects_every_cluster() -> None:
    assert {t.cluster for t in plan([registry({}, {"apiVersion": "v1", "kind": "Pod"})], CLUSTERS)} == {
        "m1",
        "m2",
        "m3",
    }


def test_namespaces_add_up_and_all_namespaces_wins() -> None:
    one = registry({"clusterNames": ["m1"]}, {"apiVersion": "v1", "kind": "Pod", "namespace": "a"})
    two = registry({"clusterNames": ["m1"]}, {"apiVersion": "v1", "kind": "Pod", "namespace": "b"})
    assert plan([one, two], CLUSTERS) == {Target("m1", PODS, "a"), Target("m1", PODS, "b")}
    every = registry({"clusterNames": ["m1"]}, {"apiVersion": "v1", "kind": "Pod"})
    assert plan([one, two, every], CLUSTERS) == {Target("m1", PODS)}


def test_a_registry_being_deleted_selects_nothing() -> None:
    assert plan([registry({}, {"apiVersion": "v1", "kind": "Pod"}, deleting=True)], CLUSTERS) == set()
