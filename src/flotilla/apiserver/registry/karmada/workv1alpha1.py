"""work.karmada.io/v1alpha1 ResourceBinding and ClusterResourceBinding: the version Karmada still serves.

Karmada stores bindings at v1alpha2 and serves v1alpha1 beside it, converted by its webhook; so do
we (`bindingconversion.py` converts, the CRDs in `work.py` list this version). The schema is
Karmada's v1alpha1 CRD version field for field (pkg/apis/work/v1alpha1/binding_types.go): a
`resource` reference that also carries the replicas and per-replica requests, target clusters,
conditions (a plain list here, unlike v1alpha2's list-map) and each cluster's applied status. The
version has a status subresource and no printer columns, as in Karmada.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    boolean,
    condition,
    integer,
    kind_schema,
    obj,
    raw_object,
    resource_list,
    string,
)

VERSION = "v1alpha1"


def _resource() -> Schema:
    return obj(
        {
            "apiVersion": string("APIVersion represents the API version of the referent."),
            "kind": string("Kind represents the Kind of the referent."),
            "namespace": string("Namespace represents the namespace for the referent."),
            "name": string("Name represents the name of the referent."),
            "resourceVersion": string(
                "ResourceVersion represents the internal version of the referenced object."
            ),
            "resourcePerReplicas": resource_list(
                "ReplicaResourceRequirements represents the resources required by each replica."
            ),
            "replicas": integer("Replicas represents the replica number of the referencing resource."),
        },
        "Resource represents the Kubernetes resource to be propagated.",
        required=["apiVersion", "kind", "name"],
    )


def binding_spec() -> Schema:
    cluster = obj(
        {"name": string("Name of target cluster."), "replicas": integer("Replicas in target cluster")},
        "TargetCluster represents the identifier of a member cluster.",
        required=["name"],
    )
    return obj(
        {
            "resource": _resource(),
            "clusters": array(
                cluster, "Clusters represents target member clusters where the resource to be deployed."
            ),
        },
        "Spec represents the desired behavior.",
        required=["resource"],
    )


def binding_status() -> Schema:
    item = obj(
        {
            "clusterName": string(
                "ClusterName represents the member cluster name which the resource deployed on."
            ),
            "status": raw_object("Status reflects running status of current manifest."),
            "applied": boolean("Applied represents if the resource is successfully applied on the cluster."),
            "appliedMessage": string("AppliedMessage is a human readable message about the applied status."),
        },
        "AggregatedStatusItem represents status of the resource running in a member cluster.",
        required=["clusterName"],
    )
    return obj(
        {
            "conditions": array(condition(), "Conditions contain the different condition statuses."),
            "aggregatedStatus": array(
                item,
                "AggregatedStatus represents status list of the resource running in each member cluster.",
            ),
        },
        "Status represents the most recently observed status of the ResourceBinding.",
    )


def binding_version(description: str) -> dict[str, Any]:
    """The CRD's v1alpha1 entry: served, not stored, with a status subresource."""
    return {
        "name": VERSION,
        "served": True,
        "storage": False,
        "schema": {"openAPIV3Schema": kind_schema(description, binding_spec(), binding_status())},
        "subresources": {"status": {}},
    }


RESOURCE_BINDING_DESCRIPTION = (
    "ResourceBinding represents a binding of a kubernetes resource with a propagation policy."
)
CLUSTER_RESOURCE_BINDING_DESCRIPTION = (
    "ClusterResourceBinding represents a binding of a kubernetes resource with a ClusterPropagationPolicy."
)


def with_v1alpha1(crd: dict[str, Any], description: str) -> dict[str, Any]:
    """A binding CRD (serving v1alpha2) that also serves v1alpha1, listed first as Karmada lists it."""
    crd["spec"]["versions"] = [binding_version(description), *crd["spec"]["versions"]]
    return crd
