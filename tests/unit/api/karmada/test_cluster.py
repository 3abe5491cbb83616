"""Cluster objects load into typed models and back, status included."""

from __future__ import annotations

from flotilla.api.karmada.cluster import Cluster
from tests.unit.api.karmada.manifests import CLUSTER, fresh


def test_cluster_round_trips_unchanged() -> None:
    """Spec (credentials, proxy, topology, taints, resource models) and status survive."""
    assert Cluster.from_object(fresh(CLUSTER)).to_object() == CLUSTER


def test_cluster_fields_are_typed() -> None:
    """Sync mode, topology, taints, resource models and summaries read as typed values."""
    cluster = Cluster.from_object(CLUSTER)
    spec = cluster.spec
    assert (spec.sync_mode, spec.provider, spec.region, spec.zones) == (
        "Push",
        "huaweicloud",
        "cn-south-1",
        ["cn-south-1a", "cn-south-1b"],
    )
    assert spec.secret_ref is not None and spec.secret_ref.name == "sz"
    assert spec.taints[0].key == "cluster.karmada.io/not-ready"
    assert spec.resource_models[1].ranges[1].min == "16Gi"
    status = cluster.status
    assert status.node_summary is not None and status.node_summary.ready_num == 3
    assert status.resource_summary is not None and status.resource_summary.allocated["cpu"] == "2500m"
    assert status.api_enablements[0].resources[0].kind == "Deployment"


def test_ready_follows_the_ready_condition() -> None:
    """True only while the Ready condition is True."""
    cluster = Cluster.from_object(CLUSTER)
    assert cluster.ready
    cluster.status.conditions[0].status = "False"
    assert not cluster.ready
    cluster.status.conditions.clear()
    assert not cluster.ready
