"""The cluster.karmada.io/v1alpha1 Cluster CRD.

Karmada serves Cluster from its aggregated API server, with its own table printer; here it is a
CRD. The hub prints it with Karmada's printer (`registry/tables/clusters.py`: NAME VERSION MODE
READY AGE, and with `-o wide` ZONES REGION PROVIDER API-ENDPOINT PROXY-URL, zones joined by
commas, `<none>` for an empty optional field), which a CRD's columns cannot express; the CRD's
own printer columns name the same columns, for a copy of the CRD served elsewhere. Like Karmada's,
it has no short name and no category.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    boolean,
    column,
    conditions,
    custom_resource_definition,
    integer,
    kind_schema,
    obj,
    quantity,
    resource_list,
    string,
    string_map,
    strings,
    taint,
)

CLUSTER_ID_MAX = 128000


def _secret_reference(description: str) -> Schema:
    return obj({"namespace": string(), "name": string()}, description, required=["namespace", "name"])


def cluster_spec() -> Schema:
    model_range = obj(
        {
            "name": string("cpu, memory, storage or ephemeral-storage."),
            "min": quantity("The lower bound (inclusive)."),
            "max": quantity("The upper bound (exclusive)."),
        },
        required=["name", "min", "max"],
    )
    resource_model = obj(
        {
            "grade": integer("The grade; higher grades hold bigger nodes.", bits=64),
            "ranges": array(model_range),
        },
        required=["grade", "ranges"],
    )
    return obj(
        {
            "id": string("A unique identifier of the member cluster.", max_length=CLUSTER_ID_MAX),
            "syncMode": string(
                "Push: the hub applies resources; Pull: an agent in the member does.",
                enum=list(ClusterSyncMode),
            ),
            "apiEndpoint": string("The member's API server URL."),
            "secretRef": _secret_reference("A Secret with the member's token and caBundle."),
            "impersonatorSecretRef": _secret_reference("A Secret with the impersonator's token."),
            "insecureSkipTLSVerification": boolean("Do not verify the member's serving certificate."),
            "proxyURL": string("A proxy (http, https or socks5) to reach the member through."),
            "proxyHeader": string_map("Headers the proxy requires."),
            "provider": string("The member's cloud provider."),
            "region": string("The member's region."),
            "zone": string("Deprecated: use zones."),
            "zones": strings("The member's zones."),
            "taints": array(taint(), "Taints repel workloads that do not tolerate them."),
            "resourceModels": array(resource_model, "Grades of nodes, for estimating capacity."),
        },
        "How to reach the member cluster and place work on it.",
        required=["syncMode"],
    )


def cluster_status() -> Schema:
    enablement = obj(
        {
            "groupVersion": string(),
            "resources": array(obj({"name": string(), "kind": string()}, required=["name", "kind"])),
        },
        required=["groupVersion"],
    )
    return obj(
        {
            "kubernetesVersion": string(),
            "apiEnablements": array(enablement, "The APIs the member serves."),
            "conditions": conditions("Ready and CompleteAPIEnablements."),
            "nodeSummary": obj({"totalNum": integer(), "readyNum": integer()}),
            "resourceSummary": obj(
                {
                    "allocatable": resource_list("Allocatable resources of all nodes."),
                    "allocating": resource_list("Requests of pods waiting to be scheduled."),
                    "allocated": resource_list("Requests of pods scheduled to nodes."),
                    "allocatableModelings": array(
                        obj(
                            {"grade": integer(bits=64), "count": integer(bits=64)},
                            required=["grade", "count"],
                        )
                    ),
                }
            ),
            "remedyActions": strings(),
        }
    )


def cluster_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=constants.CLUSTER_GROUP,
        version="v1alpha1",
        kind="Cluster",
        plural=constants.CLUSTERS.resource,
        namespaced=False,
        status=True,
        columns=(
            column("Version", ".status.kubernetesVersion"),
            column("Mode", ".spec.syncMode"),
            column("Ready", '.status.conditions[?(@.type=="Ready")].status'),
            column("Age", ".metadata.creationTimestamp", "date"),
            column("Zones", ".spec.zones", priority=1),
            column("Region", ".spec.region", priority=1),
            column("Provider", ".spec.provider", priority=1),
            column("API-Endpoint", ".spec.apiEndpoint", priority=1),
            column("Proxy-URL", ".spec.proxyURL", priority=1),
        ),
        schema=kind_schema("A member cluster.", cluster_spec(), cluster_status()),
    )
