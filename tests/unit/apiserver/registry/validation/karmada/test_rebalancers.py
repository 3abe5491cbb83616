"""WorkloadRebalancers name at least one workload in full, with a sane namespace and TTL."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import WORKLOAD_REBALANCER, fresh


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_workload_rebalancer(obj)]


def rebalancer(*workloads: Any, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "r"}, "spec": {"workloads": list(workloads), **spec}}


def test_karmadas_example_is_valid() -> None:
    """A namespaced Deployment and a cluster-scoped ClusterRole, with a TTL."""
    assert errors(fresh(WORKLOAD_REBALANCER)) == []


def test_workloads_are_required_and_not_empty() -> None:
    """The schema's required and minItems 1, repeated."""
    assert errors({"spec": {}}) == ["spec.workloads: Required value"]
    assert errors(rebalancer()) == ["spec.workloads: Invalid value: 0: should have at least 1 items"]


def test_each_workload_is_named_in_full_in_a_valid_namespace() -> None:
    """apiVersion, kind and name required; a namespace is a DNS label."""
    found = errors(rebalancer({"kind": "Deployment", "namespace": "Not_A_Namespace"}))
    assert found[:3] == [
        "spec.workloads[0].apiVersion: Required value",
        "spec.workloads[0].name: Required value",
        'spec.workloads[0].namespace: Invalid value: "Not_A_Namespace": a lowercase RFC 1123 label must '
        "consist of lower case alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]


def test_ttl_is_not_negative() -> None:
    """kube's wording for a Job's ttlSecondsAfterFinished; an update is checked alike."""
    workload = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "namespace": "default"}
    bad = rebalancer(workload, ttlSecondsAfterFinished=-1)
    assert errors(bad) == [
        "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0"
    ]
    assert [e.field for e in validation.validate_workload_rebalancer_update(bad, bad)] == [
        "spec.ttlSecondsAfterFinished"
    ]
