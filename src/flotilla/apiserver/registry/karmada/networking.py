"""The networking.karmada.io/v1alpha1 CRD: MultiClusterService.

Karmada's schema field for field (`networking.karmada.io_multiclusterservices.yaml`): namespaced,
short name `mcs`, a status subresource; `spec.types` required (`CrossCluster` or `LoadBalancer`),
the exposed `ports`, `providerClusters` and `consumerClusters` (empty: every cluster), and the
deprecated `range`, `serviceProvisionClusters` and `serviceConsumptionClusters` kept so Karmada's
older manifests still apply. As in Karmada, the schema leaves the exposure types open; the webhook's
rules check them. The status is a Service's (load balancer ingress) with conditions.
Karmada's webhook rules are built in (`validation.karmada.multiclusterservices`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    conditions,
    custom_resource_definition,
    integer,
    kind_schema,
    obj,
    string,
    strings,
)


def _cluster_list(description: str) -> Schema:
    return array(obj({"name": string("The cluster's name.")}, required=["name"]), description)


def multi_cluster_service_spec() -> Schema:
    port = obj(
        {"name": string("The port's name (a DNS label, unique)."), "port": integer("The port number.")},
        required=["port"],
    )
    return obj(
        {
            "types": array(string("CrossCluster or LoadBalancer."), "How the service is exposed."),
            "ports": array(port, "The ports exposed; empty: all of the Service's."),
            "range": obj(
                {"clusterNames": strings("Deprecated: the clusters the service is exposed in.")},
                "Deprecated: use providerClusters and consumerClusters.",
            ),
            "serviceProvisionClusters": strings("Deprecated: use providerClusters."),
            "serviceConsumptionClusters": strings("Deprecated: use consumerClusters."),
            "providerClusters": _cluster_list("Clusters whose endpoints serve the service; empty: all."),
            "consumerClusters": _cluster_list("Clusters where the service can be reached; empty: all."),
        },
        "How the Service of the same name is exposed across clusters.",
        required=["types"],
    )


def multi_cluster_service_status() -> Schema:
    ingress = obj(
        {
            "ip": string(),
            "hostname": string(),
            "ipMode": string(),
            "ports": array(
                obj(
                    {"port": integer(), "protocol": string(), "error": string()},
                    required=["port", "protocol"],
                )
            ),
        }
    )
    return obj(
        {
            "loadBalancer": obj({"ingress": array(ingress)}),
            "conditions": conditions("ServiceApplied and EndpointSliceDispatched."),
        }
    )


def networking_crds() -> list[dict[str, Any]]:
    """MultiClusterService."""
    return [
        custom_resource_definition(
            group=constants.NETWORKING_GROUP,
            version=constants.MULTI_CLUSTER_SERVICE.version,
            kind=constants.MULTI_CLUSTER_SERVICE.kind,
            plural=constants.MULTI_CLUSTER_SERVICES.resource,
            namespaced=True,
            status=True,
            short_names=["mcs"],
            categories=[constants.CATEGORY],
            schema=kind_schema(
                "MultiClusterService exposes the Service of the same name across clusters.",
                multi_cluster_service_spec(),
                multi_cluster_service_status(),
            ),
        )
    ]
