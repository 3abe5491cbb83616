"""Bindings and Works as Karmada's controllers write them load into typed models and back."""

from __future__ import annotations

from flotilla.api.karmada.model import find_condition
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding, Work
from tests.unit.api.karmada.manifests import RESOURCE_BINDING, WORK, fresh


def test_resource_binding_round_trips_unchanged() -> None:
    """Spec, scheduling result, eviction tasks and aggregated status are all declared or kept."""
    assert ResourceBinding.from_object(fresh(RESOURCE_BINDING)).to_object() == RESOURCE_BINDING


def test_resource_binding_fields_are_typed() -> None:
    """Template reference, per-replica requirements, target clusters and per-cluster status."""
    binding = ResourceBinding.from_object(RESOURCE_BINDING)
    assert binding.permanent_id == "0c4a2bde-3f0e-4b1e-8e8f-6c2b1f8b9d11"
    assert (binding.spec.resource.kind, binding.spec.resource.name) == ("Deployment", "nginx")
    requirements = binding.spec.replica_requirements
    assert requirements is not None and requirements.resource_request == {"cpu": "100m", "memory": "128Mi"}
    assert requirements.node_claim is not None and requirements.node_claim.hard_node_affinity is not None
    term = requirements.node_claim.hard_node_affinity.node_selector_terms[0]
    assert term.match_expressions[0].values == ["amd64"]
    assert [(c.name, c.replicas) for c in binding.spec.clusters] == [("sz", 1), ("fz", 1)]
    assert binding.spec.graceful_eviction_tasks[0].from_cluster == "gz"
    scheduled = find_condition(binding.status.conditions, "Scheduled")
    assert scheduled is not None and scheduled.reason == "Success"
    assert binding.status.aggregated_status[0].status == {
        "replicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "observedGeneration": 1,
    }
    assert binding.status.aggregated_status[1].applied is False


def test_cluster_resource_binding_shares_the_binding_spec() -> None:
    """A cluster-scoped template's binding reads the same fields."""
    obj = fresh(RESOURCE_BINDING)
    obj["kind"] = "ClusterResourceBinding"
    del obj["metadata"]["namespace"]
    binding = ClusterResourceBinding.from_object(obj)
    assert binding.spec.replicas == 2
    assert binding.to_object() == obj


def test_work_round_trips_manifests_untouched() -> None:
    """Raw manifests keep every field, empty objects included (`emptyDir: {}`)."""
    work = Work.from_object(fresh(WORK))
    assert work.to_object() == WORK
    manifest = work.spec.workload.manifests[0]
    assert manifest["spec"]["template"]["spec"]["volumes"] == [{"name": "cache", "emptyDir": {}}]
    identifier = work.status.manifest_statuses[0].identifier
    assert (identifier.ordinal, identifier.resource, identifier.name) == (0, "deployments", "nginx")
    assert work.permanent_id == "9d8e7f6a-1b2c-4d3e-8f9a-0b1c2d3e4f5a"
