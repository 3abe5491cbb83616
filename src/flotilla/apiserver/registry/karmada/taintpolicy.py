"""The policy.karmada.io/v1alpha1 ClusterTaintPolicy CRD.

Karmada's schema field for field (`policy.karmada.io_clustertaintpolicies.yaml`): a required spec
with at least one taint (`key` and `effect` required), condition tests whose three fields are
required, and the same `ClusterAffinity` as a placement's for `targetClusters`. As in Karmada the
schema declares no enums and no printer columns (`kubectl get` shows NAME and AGE); what the
webhook refuses — NoExecute without `--allow-no-execute-taint-policy`, duplicate taints, unknown
operators — is `flotilla.apiserver.registry.validation.karmada.taintpolicies`.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.apiserver.registry.karmada.policy import cluster_affinity
from flotilla.apiserver.registry.karmada.schemas import (
    Schema,
    array,
    custom_resource_definition,
    kind_schema,
    obj,
    string,
    strings,
)


def match_conditions(description: str) -> Schema:
    test = obj(
        {
            "conditionType": string("The ClusterStatus condition type."),
            "operator": string("In or NotIn."),
            "statusValues": strings("Condition statuses: True, False or Unknown."),
        },
        "A test of one Cluster condition's status.",
        required=["conditionType", "operator", "statusValues"],
    )
    return array(test, description)


def cluster_taint_policy_spec() -> Schema:
    taint = obj(
        {
            "key": string("The taint key."),
            "effect": string("The taint effect."),
            "value": string("The taint value."),
        },
        "A taint added to or removed from the target clusters.",
        required=["key", "effect"],
    )
    return obj(
        {
            "targetClusters": cluster_affinity(
                "The clusters this policy looks at; none: every cluster. Clusters that stop "
                "matching keep their taints."
            ),
            "addOnConditions": match_conditions(
                "Add the taints while all these hold (ANDed); empty: never add."
            ),
            "removeOnConditions": match_conditions(
                "Remove the taints while all these hold (ANDed); empty: never remove."
            ),
            "taints": array(taint, "The taints added or removed.", min_items=1),
        },
        "Which taints the target clusters get, and on which conditions.",
        required=["taints"],
    )


def cluster_taint_policy_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=constants.POLICY_GROUP,
        version=constants.CLUSTER_TAINT_POLICY.version,
        kind=constants.CLUSTER_TAINT_POLICY.kind,
        plural=constants.CLUSTER_TAINT_POLICIES.resource,
        namespaced=False,
        schema=kind_schema(
            "Adds and removes taints on Cluster objects by their conditions. Add conditions are "
            "evaluated before remove conditions; taints are never removed because a policy was deleted.",
            cluster_taint_policy_spec(),
        ),
    )
