"""ClusterEviction: clusters the binding is being evicted from are off limits meanwhile."""

from __future__ import annotations

from flotilla.scheduler.plugins.clustereviction import FAILED_REASON, REASON, ClusterEviction
from tests.unit.scheduler.manifests import binding, cluster


def test_cluster_under_graceful_eviction_is_rejected() -> None:
    """A `gracefulEvictionTasks[].fromCluster` is rejected with Karmada's reason."""
    result = ClusterEviction().filter(binding(replicas=1, evicted_from=["a"]), cluster("a"))
    assert result.reasons == ("cluster(s) is in the process of eviction",)


def test_other_clusters_fit() -> None:
    """Only the cluster being evicted from is affected."""
    assert ClusterEviction().filter(binding(replicas=1, evicted_from=["a"]), cluster("b")).is_success


def test_a_cluster_the_application_failed_on_is_kept_out_of_new_placements() -> None:
    """The application failover's record keeps the cluster out after the eviction task is gone."""
    info = binding(replicas=1, failed_on={"a": "2026-01-01T00:00:00.000000Z"})
    assert ClusterEviction().filter(info, cluster("a")).reasons == (FAILED_REASON,)
    assert ClusterEviction().filter(info, cluster("b")).is_success


def test_a_failed_cluster_already_in_the_result_stays() -> None:
    """Only new placements are kept off: a workload that runs there (it had nowhere else) is not moved."""
    info = binding(replicas=1, clusters={"a": 1}, failed_on={"a": "2026-01-01T00:00:00.000000Z"})
    assert ClusterEviction().filter(info, cluster("a")).is_success


def test_an_eviction_task_outranks_the_failure_record() -> None:
    """While the task exists the cluster is being evicted, whatever else is recorded."""
    info = binding(replicas=1, evicted_from=["a"], failed_on={"a": "2026-01-01T00:00:00.000000Z"})
    assert ClusterEviction().filter(info, cluster("a")).reasons == (REASON,)
