"""ClusterAffinity: clusters must be selected by the placement's (current) affinity."""

from __future__ import annotations

from flotilla.scheduler.plugins.clusteraffinity import REASON, ClusterAffinity
from tests.unit.scheduler.manifests import binding, cluster


def test_no_affinity_admits_every_cluster() -> None:
    """A placement without affinity places anywhere."""
    assert ClusterAffinity().filter(binding(replicas=1), cluster("a")).is_success


def test_cluster_outside_cluster_names_is_rejected() -> None:
    """`clusterNames` limits the clusters; others get Karmada's affinity reason."""
    placement = {"clusterAffinity": {"clusterNames": ["b"]}}
    assert ClusterAffinity().filter(binding(placement=placement), cluster("a")).reasons == (REASON,)


def test_observed_affinity_term_decides() -> None:
    """With clusterAffinities, the term named in the status is the one applied."""
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["a"]},
            {"affinityName": "backup", "clusterNames": ["b"]},
        ]
    }
    on_backup = binding(placement=placement, observed_affinity="backup")
    assert not ClusterAffinity().filter(on_backup, cluster("a")).is_success
    assert ClusterAffinity().filter(on_backup, cluster("b")).is_success


def test_overflow_tiers_admit_clusters_for_dynamically_divided_workloads_only() -> None:
    """Overflow affinities extend a term for dynamic division; duplicated workloads stay on tier 0."""
    term = {
        "affinityName": "idc",
        "clusterNames": ["a"],
        "overflowAffinities": [{"affinityName": "cloud", "clusterNames": ["b"]}],
    }
    dynamic = {"clusterAffinities": [term], "replicaScheduling": {"replicaDivisionPreference": "Aggregated"}}
    duplicated = {"clusterAffinities": [term]}
    assert ClusterAffinity().filter(binding(replicas=3, placement=dynamic), cluster("b")).is_success
    assert not ClusterAffinity().filter(binding(replicas=3, placement=duplicated), cluster("b")).is_success


def test_score_is_always_zero() -> None:
    """As a score plugin ClusterAffinity prefers nothing."""
    assert ClusterAffinity().score(binding(replicas=1, clusters={"a": 1}), cluster("a")) == 0
