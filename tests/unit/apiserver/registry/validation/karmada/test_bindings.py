"""(Cluster)ResourceBindings are validated for basic sanity, as Karmada's controllers write them."""

from __future__ import annotations

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import RESOURCE_BINDING, fresh


def test_a_binding_as_the_detector_writes_it_is_valid() -> None:
    """Reference, requirements, targets, eviction tasks and aggregated status."""
    assert validation.validate_resource_binding(fresh(RESOURCE_BINDING)) == []


def test_binding_sanity_rules() -> None:
    """A named template, non-negative replicas, unique named targets, exclusive eviction knobs."""
    binding = fresh(RESOURCE_BINDING)
    del binding["spec"]["resource"]["kind"]
    binding["spec"]["replicas"] = -1
    binding["spec"]["clusters"] = [{"name": "sz", "replicas": -2}, {"name": "sz"}, {"replicas": 1}]
    binding["spec"]["gracefulEvictionTasks"][0]["suppressDeletion"] = True
    assert [str(e) for e in validation.validate_resource_binding(binding)] == [
        "spec.resource.kind: Required value",
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        "spec.clusters[0].replicas: Invalid value: -2: must be greater than or equal to 0",
        'spec.clusters[1].name: Duplicate value: "sz"',
        "spec.clusters[2].name: Required value",
        "spec.gracefulEvictionTasks[0].suppressDeletion: Forbidden: gracePeriodSeconds and "
        "suppressDeletion are "
        "exclusive",
    ]
