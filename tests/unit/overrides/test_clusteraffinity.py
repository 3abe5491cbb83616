"""ClusterAffinity matching: exclude, label selector, field selector and names."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.overrides import cluster_matches


def _cluster(name: str, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"syncMode": "Push", **spec},
    }


EU = _cluster(
    "member-eu", {"env": "prod", "geo": "eu"}, provider="aws", region="eu-west-1", zones=["eu-west-1a"]
)
US = _cluster(
    "member-us", {"env": "prod"}, provider="gcp", region="us-east1", zones=["us-east1-b", "us-east1-c"]
)
LAB = _cluster("lab", {"env": "dev"})


def _matching(affinity: dict[str, Any] | None) -> list[str]:
    return [cluster["metadata"]["name"] for cluster in (EU, US, LAB) if cluster_matches(cluster, affinity)]


def test_no_affinity_or_an_empty_one_matches_every_cluster() -> None:
    """No terms at all means every cluster."""
    assert _matching(None) == ["member-eu", "member-us", "lab"]
    assert _matching({}) == ["member-eu", "member-us", "lab"]


def test_exclude_wins_over_every_other_term() -> None:
    """An excluded cluster never matches, even when named."""
    assert _matching({"clusterNames": ["member-eu", "lab"], "exclude": ["lab"]}) == ["member-eu"]


def test_all_set_terms_must_match() -> None:
    """Labels AND names AND fields."""
    affinity = {
        "labelSelector": {"matchLabels": {"env": "prod"}},
        "clusterNames": ["member-eu", "member-us", "lab"],
        "fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "In", "values": ["gcp"]}]},
    }
    assert _matching(affinity) == ["member-us"]


@pytest.mark.parametrize(
    ("expression", "clusters"),
    [
        ({"key": "region", "operator": "NotIn", "values": ["eu-west-1"]}, ["member-us", "lab"]),
        ({"key": "provider", "operator": "Exists"}, ["member-eu", "member-us"]),
        ({"key": "provider", "operator": "DoesNotExist"}, ["lab"]),
        (
            {"key": "zone", "operator": "In", "values": ["us-east1-b", "us-east1-c", "eu-west-1a"]},
            ["member-eu", "member-us"],
        ),
        ({"key": "zone", "operator": "In", "values": ["us-east1-b"]}, []),
        ({"key": "zone", "operator": "NotIn", "values": ["us-east1-b"]}, ["member-eu", "lab"]),
        ({"key": "zone", "operator": "Exists"}, ["member-eu", "member-us"]),
        ({"key": "zone", "operator": "DoesNotExist"}, ["lab"]),
        ({"key": "region", "operator": "In", "values": []}, []),
    ],
)
def test_field_selector_tests_provider_region_and_zones(
    expression: dict[str, Any], clusters: list[str]
) -> None:
    """Provider and region behave like labels; zone needs all of a cluster's zones among the values."""
    assert _matching({"fieldSelector": {"matchExpressions": [expression]}}) == clusters


def test_the_deprecated_zone_field_counts_as_one_zone() -> None:
    """A cluster that still sets `spec.zone` is matched by it."""
    legacy = _cluster("legacy", zone="ap-south-1a")
    affinity = {
        "fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["ap-south-1a"]}]}
    }
    assert cluster_matches(legacy, affinity)


def test_an_invalid_label_selector_matches_nothing() -> None:
    """A selector kube would refuse selects no cluster."""
    affinity = {"labelSelector": {"matchExpressions": [{"key": "env", "operator": "Near", "values": ["x"]}]}}
    assert _matching(affinity) == []
