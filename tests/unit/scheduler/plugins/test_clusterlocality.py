"""ClusterLocality: clusters already running the workload are preferred."""

from __future__ import annotations

from flotilla.scheduler.plugins.clusterlocality import ClusterLocality
from tests.unit.scheduler.manifests import binding, cluster


def test_cluster_in_the_current_result_scores_100() -> None:
    """Stickiness: the current placement wins ties."""
    assert ClusterLocality().score(binding(replicas=2, clusters={"a": 2}), cluster("a")) == 100


def test_other_clusters_score_0() -> None:
    """A cluster outside the result gets nothing."""
    assert ClusterLocality().score(binding(replicas=2, clusters={"a": 2}), cluster("b")) == 0


def test_result_without_replicas_prefers_nothing() -> None:
    """A result that places no replicas (a non-workload) gives no preference."""
    assert ClusterLocality().score(binding(clusters={"a": 0}), cluster("a")) == 0
