"""Cluster affinity matching (Karmada's ClusterMatches) and overflow tiers."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.scheduler.core.affinity import affinity_tier, cluster_matches
from flotilla.scheduler.core.placement import cluster_affinity_from_object
from tests.unit.scheduler.manifests import binding, cluster, dynamic_weights

EU = cluster("eu-1", labels={"env": "prod"}, provider="aws", region="eu", zones=["eu-1a", "eu-1b"])


def matches(affinity: dict[str, Any]) -> bool:
    return cluster_matches(EU, cluster_affinity_from_object(affinity))


def test_empty_affinity_matches_every_cluster() -> None:
    """Nothing set selects all."""
    assert matches({})


def test_exclude_wins_over_everything() -> None:
    """An excluded cluster never matches, even when named."""
    assert not matches({"clusterNames": ["eu-1"], "exclude": ["eu-1"]})


def test_all_set_parts_must_match() -> None:
    """Label selector AND names AND fields."""
    assert matches({"labelSelector": {"matchLabels": {"env": "prod"}}, "clusterNames": ["eu-1"]})
    assert not matches({"labelSelector": {"matchLabels": {"env": "prod"}}, "clusterNames": ["us-1"]})
    assert not matches({"labelSelector": {"matchLabels": {"env": "dev"}}})


def test_invalid_label_selector_matches_nothing() -> None:
    """A selector kube would refuse selects no cluster."""
    assert not matches({"labelSelector": {"matchExpressions": [{"key": "env", "operator": "Bogus"}]}})


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ({"key": "region", "operator": "In", "values": ["eu", "us"]}, True),
        ({"key": "region", "operator": "NotIn", "values": ["eu"]}, False),
        ({"key": "provider", "operator": "In", "values": ["gcp"]}, False),
        ({"key": "provider", "operator": "NotIn", "values": ["gcp"]}, True),
        ({"key": "region", "operator": "In", "values": []}, False),
        ({"key": "region", "operator": "Exists"}, True),
        ({"key": "region", "operator": "Wat", "values": ["eu"]}, False),
        ({"key": "zone", "operator": "In", "values": ["eu-1a", "eu-1b", "eu-1c"]}, True),
        ({"key": "zone", "operator": "In", "values": ["eu-1a"]}, False),
        ({"key": "zone", "operator": "NotIn", "values": ["eu-1b"]}, False),
        ({"key": "zone", "operator": "NotIn", "values": ["us-1a"]}, True),
        ({"key": "zone", "operator": "DoesNotExist"}, False),
    ],
)
def test_field_selector_on_provider_region_and_zones(expression: dict[str, Any], expected: bool) -> None:
    """Provider and region use selector semantics; zone `In` needs all the cluster's zones listed."""
    assert matches({"fieldSelector": {"matchExpressions": [expression]}}) is expected


def test_tier_is_the_first_matching_overflow_tier() -> None:
    """Tier 0 is the term; overflow tiers count from 1; a cluster in several tiers takes the first."""
    term = {
        "affinityName": "idc",
        "clusterNames": ["a"],
        "overflowAffinities": [
            {"affinityName": "cloud", "clusterNames": ["b", "c"]},
            {"affinityName": "more", "clusterNames": ["c", "d"]},
        ],
    }
    info = binding(replicas=4, placement={"clusterAffinities": [term], **dynamic_weights()})
    assert [affinity_tier(info, cluster(name)) for name in "abcde"] == [0, 1, 1, 2, None]
