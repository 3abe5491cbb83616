"""WorkloadRebalancer: the model round-trips Karmada's manifests and says what a reference is."""

from __future__ import annotations

from flotilla.api.karmada.rebalancer import WorkloadRebalancer, WorkloadReference
from tests.unit.api.karmada.manifests import WORKLOAD_REBALANCER, fresh


def test_a_rebalancer_with_its_status_round_trips_unchanged() -> None:
    """Spec and status, every field declared: the JSON out equals the JSON in."""
    assert WorkloadRebalancer.from_object(fresh(WORKLOAD_REBALANCER)).to_object() == WORKLOAD_REBALANCER


def test_references_are_the_same_by_value_and_namespaced_when_they_say_so() -> None:
    """An absent and an empty namespace are the same cluster-scoped reference."""
    rebalancer = WorkloadRebalancer.from_object(WORKLOAD_REBALANCER)
    deployment, role = rebalancer.spec.workloads
    assert deployment.namespaced and not role.namespaced
    blank = WorkloadReference(api_version=role.api_version, kind=role.kind, name=role.name, namespace="")
    assert blank.identity() == role.identity()
    assert rebalancer.spec.ttl_seconds_after_finished == 60
    assert rebalancer.status.observed_workloads[1].reason == "ReferencedBindingNotFound"
