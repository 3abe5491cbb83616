"""ResourceBindings between work.karmada.io v1alpha1 and v1alpha2, field for field as Karmada converts."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from flotilla.apiserver.registry.conversion.converters import ConversionError
from flotilla.apiserver.registry.karmada.bindingconversion import BindingConverter, from_hub, to_hub

METADATA = {"name": "web-deployment", "namespace": "shop", "labels": {"a": "b"}, "resourceVersion": "9"}
CONDITION = {
    "type": "Scheduled",
    "status": "True",
    "reason": "Success",
    "message": "Binding has been scheduled successfully.",
    "lastTransitionTime": "2026-01-01T00:00:00Z",
}


def hub_binding() -> dict[str, Any]:
    """A v1alpha2 ResourceBinding as the detector, scheduler and status controllers leave it."""
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": copy.deepcopy(METADATA),
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "shop",
                "name": "web",
                "uid": "uid-web",
                "resourceVersion": "7",
            },
            "propagateDeps": True,
            "replicas": 3,
            "replicaRequirements": {
                "resourceRequest": {"cpu": "1000m", "memory": "64Mi"},
                "namespace": "shop",
            },
            "clusters": [
                {"name": "m1", "replicas": 2, "components": [{"name": "main", "replicas": 2}]},
                {"name": "m2", "replicas": 0},
            ],
            "placement": {"clusterAffinity": {"clusterNames": ["m1", "m2"]}},
            "schedulerName": "default-scheduler",
        },
        "status": {
            "schedulerObservedGeneration": 2,
            "conditions": [CONDITION],
            "aggregatedStatus": [
                {"clusterName": "m1", "status": {"readyReplicas": 2}, "applied": True, "health": "Healthy"},
                {"clusterName": "m2", "applied": False, "appliedMessage": "conflict"},
            ],
        },
    }


def test_v1alpha2_to_v1alpha1_keeps_what_v1alpha1_has_and_drops_the_rest() -> None:
    """ConvertFrom: the reference without uid, replicas and requests inside it, clusters without
    components, conditions and applied state without health; placement and the rest are gone."""
    assert from_hub(hub_binding()) == {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "ResourceBinding",
        "metadata": METADATA,
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "shop",
                "name": "web",
                "resourceVersion": "7",
                "resourcePerReplicas": {"cpu": "1", "memory": "64Mi"},
                "replicas": 3,
            },
            "clusters": [{"name": "m1", "replicas": 2}, {"name": "m2"}],
        },
        "status": {
            "conditions": [CONDITION],
            "aggregatedStatus": [
                {"clusterName": "m1", "status": {"readyReplicas": 2}, "applied": True},
                {"clusterName": "m2", "appliedMessage": "conflict"},
            ],
        },
    }


def test_v1alpha1_to_v1alpha2_writes_a_fresh_binding_of_those_fields() -> None:
    """ConvertTo: the per-replica requests become replicaRequirements.resourceRequest."""
    v1alpha1 = {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "ResourceBinding",
        "metadata": METADATA,
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "web",
                "resourcePerReplicas": {"cpu": "0.5"},
                "replicas": 2,
            },
            "clusters": [{"name": "m1", "replicas": 2}],
        },
    }
    assert to_hub(v1alpha1) == {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": METADATA,
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "replicaRequirements": {"resourceRequest": {"cpu": "500m"}},
            "replicas": 2,
            "clusters": [{"name": "m1", "replicas": 2}],
        },
        "status": {},
    }


def test_an_empty_request_map_still_makes_replica_requirements() -> None:
    """Karmada checks the map for nil, not for emptiness: `{}` gives an empty replicaRequirements."""
    v1alpha1 = {"kind": "ResourceBinding", "spec": {"resource": {"kind": "Job", "resourcePerReplicas": {}}}}
    spec = to_hub(v1alpha1)["spec"]
    assert spec == {"resource": {"apiVersion": "", "kind": "Job", "name": ""}, "replicaRequirements": {}}


def test_a_round_trip_through_v1alpha1_loses_what_only_v1alpha2_has() -> None:
    """Writing a binding back at v1alpha1 stores it without uid, placement, components and health."""
    back = to_hub(from_hub(hub_binding()))
    assert "uid" not in back["spec"]["resource"]
    assert {"placement", "propagateDeps", "schedulerName"}.isdisjoint(back["spec"])
    assert back["spec"]["replicaRequirements"] == {"resourceRequest": {"cpu": "1", "memory": "64Mi"}}
    assert back["spec"]["clusters"] == [{"name": "m1", "replicas": 2}, {"name": "m2"}]
    assert back["status"]["aggregatedStatus"][0] == {
        "clusterName": "m1",
        "status": {"readyReplicas": 2},
        "applied": True,
    }
    assert "schedulerObservedGeneration" not in back["status"]


def test_the_converter_knows_only_the_two_versions() -> None:
    """A binding at its own version is returned as it is; another version is a ConversionError."""
    converter = BindingConverter()
    binding = hub_binding()
    assert converter.convert(binding, "work.karmada.io/v1alpha2") is binding
    assert (
        converter.convert(hub_binding(), "work.karmada.io/v1alpha1")["apiVersion"]
        == "work.karmada.io/v1alpha1"
    )
    with pytest.raises(
        ConversionError, match=re.escape("only work.karmada.io/v1alpha1 and work.karmada.io/v1alpha2")
    ):
        converter.convert(hub_binding(), "work.karmada.io/v1beta1")
