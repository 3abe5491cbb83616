"""A ResourceRegistry's conditions say what its cache waits for, and that OpenSearch is ignored."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.search.status import backend_store_condition, synced_condition
from flotilla.apiserver.search.targets import Target

CLUSTERS = [{"metadata": {"name": "m1"}}, {"metadata": {"name": "m2"}}]


def listed(target: Target) -> tuple[bool, str]:
    return True, ""


def registry(clusters: list[str] | None = None, **spec: Any) -> dict[str, Any]:
    target = {"clusterNames": clusters} if clusters is not None else {}
    selectors = [{"apiVersion": "v1", "kind": "Pod"}]
    return {
        "metadata": {"name": "r", "generation": 3},
        "spec": {"targetCluster": target, "resourceSelectors": selectors, **spec},
    }


def test_synced_once_every_target_is_listed_naming_clusters_not_ready() -> None:
    condition = synced_condition(registry(), CLUSTERS, listed, {"m2"})
    assert (condition["status"], condition["reason"], condition["observedGeneration"]) == (
        "True",
        "CacheSynced",
        3,
    )
    assert condition["message"] == "Pod (v1) of m1, m2 cached; not Ready, their objects as last seen: m2"


def test_syncing_names_what_it_waits_for_and_why() -> None:
    def coverage(target: Target) -> tuple[bool, str]:
        return (target.cluster == "m1", "" if target.cluster == "m1" else "cluster m2 cannot be reached")

    condition = synced_condition(registry(), CLUSTERS, coverage, set())
    assert (condition["status"], condition["reason"]) == ("False", "Syncing")
    assert (
        condition["message"]
        == "waiting for the first list of Pod (v1) of cluster m2: cluster m2 cannot be reached"
    )


def test_no_cluster_selected() -> None:
    condition = synced_condition(registry(["gone"]), CLUSTERS, listed, set())
    assert (condition["status"], condition["reason"]) == ("False", "NoClusterSelected")


def test_an_opensearch_backend_is_said_to_be_ignored() -> None:
    assert backend_store_condition(registry()) is None
    condition = backend_store_condition(
        registry(backendStore={"openSearch": {"addresses": ["http://os:9200"]}})
    )
    assert condition is not None
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "BackendStore",
        "False",
        "OpenSearchNotSupported",
    )
