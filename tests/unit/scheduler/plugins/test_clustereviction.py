"""ClusterEviction: clusters the binding is being evicted from are off limits meanwhile."""

from __future__ import annotations

from flotilla.scheduler.plugins.clustereviction import ClusterEviction
from tests.unit.scheduler.manifests import binding, cluster


def test_cluster_under_graceful_eviction_is_rejected() -> None:
    """A `gracefulEvictionTasks[].fromCluster` is rejected with Karmada's reason."""
    result = ClusterEviction().filter(binding(replicas=1, evicted_from=["a"]), cluster("a"))
    assert result.reasons == ("cluster(s) is in the process of eviction",)


def test_other_clusters_fit() -> None:
    """Only the cluster being evicted from is affected."""
    assert ClusterEviction().filter(binding(replicas=1, evicted_from=["a"]), cluster("b")).is_success
