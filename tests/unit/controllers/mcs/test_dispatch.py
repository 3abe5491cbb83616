"""Karmada's MultiClusterService decided: providers, consumers, the Service's binding, the dispatch plan."""

from __future__ import annotations

from typing import Any

from flotilla.controllers.mcs.dispatch import (
    binding_up_to_date,
    consumers,
    dispatch_plan,
    placement_clusters,
    providers,
    service_binding,
)


def mcs(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "web", "namespace": "demo"}, "spec": {"types": ["CrossCluster"], **spec}}


SERVICE = {"metadata": {"name": "web", "namespace": "demo", "uid": "s-1", "resourceVersion": "5"}}


def test_empty_provider_and_consumer_lists_mean_every_cluster() -> None:
    assert dispatch_plan(mcs(), ["a", "b", "c"]) == {"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}
    assert placement_clusters(mcs()) == []


def test_each_consumer_gets_every_ready_provider_but_itself() -> None:
    service = mcs(
        providerClusters=[{"name": "a"}, {"name": "gone"}], consumerClusters=[{"name": "a"}, {"name": "b"}]
    )
    assert dispatch_plan(service, ["a", "b", "c"]) == {"a": [], "b": ["a"]}


def test_the_deprecated_fields_still_name_the_clusters() -> None:
    assert providers(mcs(serviceProvisionClusters=["a"])) == ["a"]
    assert consumers(mcs(range={"clusterNames": ["b"]})) == ["b"]


def test_the_service_binding_places_the_service_on_providers_and_consumers() -> None:
    service = mcs(providerClusters=[{"name": "b"}], consumerClusters=[{"name": "a"}, {"name": "b"}])
    binding = service_binding(service, SERVICE)
    assert binding["metadata"]["name"] == "web-service"
    assert binding["metadata"]["labels"] == {"binding.karmada.io/managed-by": "MultiClusterService"}
    assert binding["metadata"]["ownerReferences"][0]["uid"] == "s-1"
    assert binding["spec"]["placement"] == {"clusterAffinity": {"clusterNames": ["a", "b"]}}
    assert binding["spec"]["conflictResolution"] == "Overwrite"
    assert binding["spec"]["resource"]["kind"] == "Service"
    assert binding_up_to_date(binding, binding)
    assert not binding_up_to_date(binding, service_binding(mcs(), SERVICE))
