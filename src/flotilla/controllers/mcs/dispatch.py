"""Karmada's MultiClusterService (CrossCluster), decided purely: the Service's binding and who gets
which provider's EndpointSlices.

- Providers and consumers: `spec.providerClusters` / `spec.consumerClusters` (or the deprecated
  `serviceProvisionClusters` / `serviceConsumptionClusters`, then `range.clusterNames` for both);
  an empty list means every cluster.
- The Service is propagated by a ResourceBinding of its own (`service_binding`): named as the
  detector would (`<svc>-service`), placed on providers and consumers together (every cluster when either is
  all), `conflictResolution: Overwrite`, owned by the Service and labelled
  `binding.karmada.io/managed-by=MultiClusterService`, as Karmada's controller builds it.
- Each consumer gets the EndpointSlices of every Ready provider but itself (`dispatch_plan`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flotilla.api.karmada import constants, names

Object = Mapping[str, Any]
CROSS_CLUSTER = "CrossCluster"


def _names(items: Iterable[Any]) -> list[str]:
    found = []
    for item in items:
        name = item.get("name") if isinstance(item, Mapping) else item
        if isinstance(name, str) and name and name not in found:
            found.append(name)
    return found


def providers(service: Object) -> list[str]:
    """The provider clusters a MultiClusterService names (empty: every cluster)."""
    spec = service.get("spec") or {}
    return _names(
        spec.get("providerClusters")
        or spec.get("serviceProvisionClusters")
        or (spec.get("range") or {}).get("clusterNames")
        or ()
    )


def consumers(service: Object) -> list[str]:
    """The consumer clusters a MultiClusterService names (empty: every cluster)."""
    spec = service.get("spec") or {}
    return _names(
        spec.get("consumerClusters")
        or spec.get("serviceConsumptionClusters")
        or (spec.get("range") or {}).get("clusterNames")
        or ()
    )


def cross_cluster(service: Object) -> bool:
    return CROSS_CLUSTER in ((service.get("spec") or {}).get("types") or ())


def placement_clusters(service: Object) -> list[str]:
    """providers and consumers together, sorted; empty (every cluster) when either names none."""
    provider_names, consumer_names = providers(service), consumers(service)
    if not provider_names or not consumer_names:
        return []
    return sorted({*provider_names, *consumer_names})


def service_binding(multi_cluster_service: Object, service: Object) -> dict[str, Any]:
    """The ResourceBinding that propagates the Service to providers and consumers together."""
    meta = service.get("metadata") or {}
    clusters = placement_clusters(multi_cluster_service)
    placement: dict[str, Any] = {"clusterAffinity": {"clusterNames": clusters}} if clusters else {}
    return {
        "apiVersion": constants.RESOURCE_BINDING.api_version,
        "kind": constants.RESOURCE_BINDING.kind,
        "metadata": {
            "name": names.binding_name("Service", str(meta.get("name") or "")),
            "namespace": meta.get("namespace"),
            "labels": {constants.BINDING_MANAGED_BY_LABEL: constants.MULTI_CLUSTER_SERVICE_BINDING_MANAGER},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "name": meta.get("name"),
                    "uid": meta.get("uid"),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "resource": {
                "apiVersion": "v1",
                "kind": "Service",
                "namespace": meta.get("namespace"),
                "name": meta.get("name"),
                "uid": meta.get("uid"),
                "resourceVersion": meta.get("resourceVersion"),
            },
            "placement": placement,
            "conflictResolution": constants.ConflictResolution.OVERWRITE,
        },
    }


def binding_up_to_date(existing: Object | None, wanted: Object) -> bool:
    """Whether the binding already places the Service as `wanted` does (its resourceVersion aside:
    a Service's status moves it without changing what is propagated)."""
    if existing is None:
        return False
    spec, wanted_spec = existing.get("spec") or {}, wanted.get("spec") or {}
    resource, wanted_resource = spec.get("resource") or {}, wanted_spec.get("resource") or {}
    labels = (existing.get("metadata") or {}).get("labels") or {}
    return (
        spec.get("placement") == wanted_spec.get("placement")
        and spec.get("conflictResolution") == wanted_spec.get("conflictResolution")
        and resource.get("uid") == wanted_resource.get("uid")
        and labels.get(constants.BINDING_MANAGED_BY_LABEL) == constants.MULTI_CLUSTER_SERVICE_BINDING_MANAGER
    )


def dispatch_plan(service: Object, ready: Sequence[str]) -> dict[str, list[str]]:
    """For each Ready consumer, the Ready providers whose slices it gets (itself left out)."""
    provider_names = providers(service) or list(ready)
    consumer_names = consumers(service) or list(ready)
    live_providers = [p for p in provider_names if p in ready]
    return {
        consumer: [p for p in live_providers if p != consumer]
        for consumer in consumer_names
        if consumer in ready
    }
