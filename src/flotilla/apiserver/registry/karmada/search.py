"""The search.karmada.io/v1alpha1 CRD: ResourceRegistry.

Karmada serves this kind from its karmada-search API server rather than as a CRD, so there is no
Karmada CRD to copy; the schema follows its Go types (`pkg/apis/search/v1alpha1`) field for field:
cluster-scoped, a status subresource, `spec.targetCluster` (a ClusterAffinity, as a placement's)
and `spec.resourceSelectors` (`apiVersion`, `kind`, optional `namespace`) required,
`spec.backendStore.openSearch` accepted (the hub ignores it and says so in a condition), and
conditions in the status. Validation is Karmada's (`validation.karmada.resourceregistries`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.search import RESOURCE_REGISTRIES, RESOURCE_REGISTRY
from flotilla.apiserver.registry.karmada.policy import cluster_affinity
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    conditions,
    custom_resource_definition,
    kind_schema,
    obj,
    string,
    strings,
)


def resource_registry_spec() -> Schema:
    selector = obj(
        {
            "apiVersion": string("The API version of the target resources."),
            "kind": string("The kind of the target resources."),
            "namespace": string("The namespace of the target resources; empty selects every namespace."),
        },
        required=["apiVersion", "kind"],
    )
    open_search = obj(
        {
            "addresses": strings("The OpenSearch nodes' endpoints (http or https URLs)."),
            "secretRef": obj(
                {"namespace": string("The Secret's namespace."), "name": string("The Secret's name.")},
                "The Secret holding the OpenSearch credentials (userName, password).",
            ),
        },
        "An OpenSearch store (accepted and ignored: the hub serves its own cache).",
        required=["addresses"],
    )
    return obj(
        {
            "targetCluster": cluster_affinity("The clusters whose resources are cached."),
            "resourceSelectors": array(selector, "The kinds (and optionally namespaces) cached."),
            "backendStore": obj({"openSearch": open_search}, "Where cached objects are stored."),
        },
        "Which resources of which clusters the search cache holds.",
        required=["targetCluster", "resourceSelectors"],
    )


def resource_registry_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=RESOURCE_REGISTRY.group,
        version=RESOURCE_REGISTRY.version,
        kind=RESOURCE_REGISTRY.kind,
        plural=RESOURCE_REGISTRIES.resource,
        namespaced=False,
        status=True,
        schema=kind_schema(
            "The scope of the search cache: which resources of which member clusters it caches.",
            resource_registry_spec(),
            obj({"conditions": conditions("Synced and BackendStore.")}),
        ),
    )
