"""ResourceRegistries: target clusters as a placement's, selectors naming a kind, OpenSearch URLs."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_resource_registry(obj)]


def registry(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "r"}, "spec": spec}


def test_karmadas_example_is_valid() -> None:
    """Deployments of two clusters, kept in OpenSearch (accepted; the hub ignores the store)."""
    example = registry(
        targetCluster={"clusterNames": ["member1", "member2"]},
        resourceSelectors=[{"apiVersion": "apps/v1", "kind": "Deployment"}],
        backendStore={
            "openSearch": {
                "addresses": ["http://10.240.0.100:9200"],
                "secretRef": {"namespace": "default", "name": "opensearch-account"},
            }
        },
    )
    assert errors(example) == []


def test_selectors_name_a_group_version_a_kind_and_a_valid_namespace() -> None:
    found = errors(
        registry(
            targetCluster={},
            resourceSelectors=[{"apiVersion": "a/b/c", "namespace": "Not_Valid"}],
        )
    )
    assert found[0] == "spec.resourceSelectors[0].kind: Required value"
    assert found[1].startswith('spec.resourceSelectors[0].apiVersion: Invalid value: "a/b/c"')
    assert found[2].startswith('spec.resourceSelectors[0].namespace: Invalid value: "Not_Valid"')


def test_target_clusters_are_checked_as_a_placements_affinity() -> None:
    found = errors(
        registry(
            targetCluster={"fieldSelector": {"matchExpressions": [{"key": "color", "operator": "In"}]}},
            resourceSelectors=[{"apiVersion": "v1", "kind": "Pod"}],
        )
    )
    assert found and found[0].startswith("spec.targetCluster.fieldSelector.matchExpressions[0].key")


def test_opensearch_addresses_are_http_urls_with_a_host() -> None:
    found = errors(
        registry(
            targetCluster={},
            resourceSelectors=[{"apiVersion": "v1", "kind": "Pod"}],
            backendStore={"openSearch": {"addresses": ["nope", "ftp://x", "https://os:9200"]}},
        )
    )
    assert [problem.split(":")[0] for problem in found] == [
        "spec.backendStore.openSearch.addresses[0]",
        "spec.backendStore.openSearch.addresses[1]",
    ]
