"""The policy.karmada.io/v1alpha1 FederatedResourceQuota CRD, as Karmada declares it.

Namespaced, in the `karmada-io` category, with a status subresource and Karmada's two columns
(`OVERALL`, `OVERALL_USED`, both read from the status). `spec.overall` is required, each static
assignment needs its `clusterName` and `hard`. The rules across fields (assignments within the
overall, resource names and quantities as a ResourceQuota's, unique cluster names) are in
`validation.karmada.federatedquotas`; the check against the namespace's usage is admission
(`housekeeping.federatedquotas`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.federatedquota import FEDERATED_RESOURCE_QUOTA, FEDERATED_RESOURCE_QUOTAS
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    column,
    custom_resource_definition,
    kind_schema,
    obj,
    resource_list,
    string,
)


def federated_resource_quota_spec() -> Schema:
    assignment = obj(
        {
            "clusterName": string("The cluster the limits are enforced in."),
            "hard": resource_list("The hard limits of the cluster's ResourceQuota."),
        },
        "The ResourceQuota of one cluster.",
        required=["clusterName", "hard"],
    )
    return obj(
        {
            "overall": resource_list("The hard limits of the namespace across all clusters."),
            "staticAssignments": array(
                assignment, "ResourceQuotas created in the named clusters; none elsewhere."
            ),
        },
        "The desired quota.",
        required=["overall"],
    )


def federated_resource_quota_status() -> Schema:
    cluster_status = obj(
        {
            "clusterName": string("The cluster this status is from."),
            "hard": resource_list("The limits the cluster enforces."),
            "used": resource_list("What the cluster's namespace uses."),
        },
        required=["clusterName"],
    )
    return obj(
        {
            "overall": resource_list("The enforced hard limits."),
            "overallUsed": resource_list("What the namespace's workloads hold across all clusters."),
            "aggregatedStatus": array(cluster_status, "The quota of each cluster with an assignment."),
        },
        "The enforced quota and its usage.",
    )


def federated_resource_quota_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=FEDERATED_RESOURCE_QUOTA.group,
        version=FEDERATED_RESOURCE_QUOTA.version,
        kind=FEDERATED_RESOURCE_QUOTA.kind,
        plural=FEDERATED_RESOURCE_QUOTAS.resource,
        namespaced=True,
        status=True,
        categories=[constants.CATEGORY],
        columns=[column("OVERALL", ".status.overall"), column("OVERALL_USED", ".status.overallUsed")],
        schema=kind_schema(
            "Sets aggregate quota restrictions enforced per namespace across all clusters.",
            federated_resource_quota_spec(),
            federated_resource_quota_status(),
        ),
    )
