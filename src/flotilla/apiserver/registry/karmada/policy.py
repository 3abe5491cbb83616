"""The policy.karmada.io/v1alpha1 CRDs: PropagationPolicy, ClusterPropagationPolicy, OverridePolicy,
ClusterOverridePolicy.

Schemas follow Karmada's CRDs field for field, with the defaults, enums and required fields they
declare (`conflictResolution: Abort`, `priority: 0`, `preemption: Never`, `schedulerName:
default-scheduler`, `replicaSchedulingType: Divided`, failover's `tolerationSeconds: 300` and
`purgeMode: Gracefully`; a `schedulePriority` names both its source — only `KubePriorityClass` —
and its class; label and annotation overriders carry a value). The cross-field rules Karmada's
webhook enforces live in `flotilla.apiserver.registry.validation.karmada`.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import (
    ActivationPreference,
    ConflictResolution,
    DynamicWeightFactor,
    ImageComponent,
    OverriderOperator,
    PreemptionBehavior,
    PriorityClassSource,
    PurgeMode,
    ReplicaDivisionPreference,
    ReplicaSchedulingType,
    SpreadByField,
)
from flotilla.apiserver.registry.karmada.federatedquota import federated_resource_quota_crd
from flotilla.apiserver.registry.karmada.schemas import (
    AGE,
    Schema,
    any_json,
    array,
    boolean,
    column,
    custom_resource_definition,
    integer,
    kind_schema,
    label_selector,
    node_selector_requirement,
    obj,
    string,
    string_map,
    strings,
    toleration,
)

AFFINITY_NAME_MAX = 32


def resource_selector() -> Schema:
    return obj(
        {
            "apiVersion": string("The API version of the target resources."),
            "kind": string("The kind of the target resources."),
            "namespace": string("The namespace of the target resources; defaults to the policy's own."),
            "name": string("The name of the target resource; empty selects all."),
            "labelSelector": label_selector("A label query over the resources; ignored when name is set."),
        },
        required=["apiVersion", "kind"],
    )


def _affinity_fields() -> dict[str, Schema]:
    return {
        "labelSelector": label_selector("Clusters whose labels match."),
        "fieldSelector": obj(
            {"matchExpressions": array(node_selector_requirement())},
            "Clusters whose provider, region or zone match (operators In and NotIn).",
        ),
        "clusterNames": strings("Clusters selected by name."),
        "exclude": strings("Clusters never selected."),
    }


def cluster_affinity(description: str = "") -> Schema:
    return obj(_affinity_fields(), description)


def _affinity_name() -> Schema:
    return string("The name of the cluster group.", min_length=1, max_length=AFFINITY_NAME_MAX)


def cluster_affinity_term() -> Schema:
    overflow = obj(
        {"affinityName": _affinity_name(), **_affinity_fields()},
        "A tier used once the tiers before it are full.",
        required=["affinityName"],
    )
    return obj(
        {
            "affinityName": _affinity_name(),
            **_affinity_fields(),
            "overflowAffinities": array(overflow, "Further tiers, filled in order."),
        },
        required=["affinityName"],
    )


def placement() -> Schema:
    static_weight = obj(
        {
            "targetCluster": cluster_affinity("The clusters this weight applies to."),
            "weight": integer("The weight of the matching clusters.", bits=64, minimum=1),
        },
        required=["targetCluster", "weight"],
    )
    replica_scheduling = obj(
        {
            "replicaSchedulingType": string(
                "Duplicated copies all replicas to every cluster; Divided splits them.",
                enum=list(ReplicaSchedulingType),
                default=ReplicaSchedulingType.DIVIDED,
            ),
            "replicaDivisionPreference": string(
                "How Divided replicas are split: Aggregated or Weighted.",
                enum=list(ReplicaDivisionPreference),
            ),
            "weightPreference": obj(
                {
                    "staticWeightList": array(static_weight),
                    "dynamicWeight": string(
                        "Weigh clusters by what they can run; overrides staticWeightList.",
                        enum=list(DynamicWeightFactor),
                    ),
                },
                "Weights of clusters; none means equal weights.",
            ),
        },
        "How replicas are assigned to clusters; absent means Duplicated.",
    )
    spread_constraint = obj(
        {
            "spreadByField": string("cluster, region, zone or provider.", enum=list(SpreadByField)),
            "spreadByLabel": string("A cluster label key to group by."),
            "maxGroups": integer("The most groups to select.", bits=None),
            "minGroups": integer("The fewest groups to select; defaults to 1.", bits=None),
        }
    )
    workload_affinity_term = obj({"groupByLabelKey": string()}, required=["groupByLabelKey"])
    return obj(
        {
            "clusterAffinity": cluster_affinity("The clusters that may be selected."),
            "clusterAffinities": array(
                cluster_affinity_term(), "Ordered cluster groups; not with clusterAffinity."
            ),
            "clusterTolerations": array(toleration(), "Cluster taints tolerated."),
            "spreadConstraints": array(spread_constraint),
            "replicaScheduling": replica_scheduling,
            "workloadAffinity": obj(
                {"affinity": workload_affinity_term, "antiAffinity": workload_affinity_term}
            ),
        },
        "Where the selected resources go.",
    )


def _state_preservation() -> Schema:
    rule = obj({"aliasLabelName": string(), "jsonPath": string()}, required=["aliasLabelName", "jsonPath"])
    return obj({"rules": array(rule)}, required=["rules"])


def failover() -> Schema:
    application = obj(
        {
            "decisionConditions": obj(
                {"tolerationSeconds": integer("Seconds an unhealthy application is tolerated.", default=300)}
            ),
            "purgeMode": string(
                "What happens to the application on the cluster it leaves.",
                # Karmada v1.19 dropped the deprecated spellings Immediately and Graciously (#7792).
                enum=[PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY, PurgeMode.NEVER],
                default=PurgeMode.GRACEFULLY,
            ),
            "gracePeriodSeconds": integer("How long a Gracefully purged copy is kept at most."),
            "statePreservation": _state_preservation(),
        },
        required=["decisionConditions"],
    )
    cluster = obj(
        {
            "purgeMode": string(
                enum=[PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY], default=PurgeMode.GRACEFULLY
            ),
            "statePreservation": _state_preservation(),
        }
    )
    return obj(
        {"application": application, "cluster": cluster},
        "How applications move away from failures; absent disables failover.",
    )


def suspension(**more: Schema) -> Schema:
    """Suspension of dispatching (bindings add `scheduling` through `more`)."""
    return obj(
        {
            "dispatching": boolean("Stop dispatching to every cluster."),
            "dispatchingOnClusters": obj({"clusterNames": strings()}, "Stop dispatching to these clusters."),
            **more,
        }
    )


def propagation_spec() -> Schema:
    return obj(
        {
            "resourceSelectors": array(resource_selector(), "The resources propagated.", min_items=1),
            "association": boolean("Deprecated: use propagateDeps."),
            "propagateDeps": boolean("Propagate the resources the selected ones depend on."),
            "placement": placement(),
            "priority": integer("Higher priority policies claim resources first.", default=0),
            "preemption": string(
                "Whether this policy takes resources from lower priority ones.",
                enum=list(PreemptionBehavior),
                default=PreemptionBehavior.NEVER,
            ),
            "dependentOverrides": strings("OverridePolicies that must exist before this policy applies."),
            "schedulerName": string(
                "The scheduler of the resources.", default=constants.DEFAULT_SCHEDULER_NAME
            ),
            "failover": failover(),
            "conflictResolution": string(
                "What to do when the resource already exists in a member cluster.",
                enum=list(ConflictResolution),
                default=ConflictResolution.ABORT,
            ),
            "activationPreference": string(
                "Lazy: policy changes apply when each resource next changes.",
                enum=list(ActivationPreference),
            ),
            "suspension": suspension(),
            "preserveResourcesOnDeletion": boolean(
                "Keep the member copies when the resource template is deleted."
            ),
            "schedulePriority": obj(
                {
                    # Karmada declares the other sources but implements, and accepts, only this one.
                    "priorityClassSource": string(
                        "Where the PriorityClass is looked up.",
                        enum=[PriorityClassSource.KUBE_PRIORITY_CLASS],
                    ),
                    "priorityClassName": string("The PriorityClass of the resources."),
                },
                "The scheduling priority of the resources.",
                required=["priorityClassSource", "priorityClassName"],
            ),
        },
        "Which resources to propagate and where.",
        required=["resourceSelectors"],
    )


def overriders() -> Schema:
    operators = list(OverriderOperator)
    add_remove = [OverriderOperator.ADD, OverriderOperator.REMOVE]
    command_args = obj(
        {"containerName": string(), "operator": string(enum=add_remove), "value": strings()},
        required=["containerName", "operator"],
    )
    label_annotation = obj(
        {"operator": string(enum=operators), "value": string_map()}, required=["operator", "value"]
    )
    patch_operation = obj(
        {"subPath": string(), "operator": string(enum=operators), "value": any_json()},
        required=["subPath", "operator"],
    )
    return obj(
        {
            "plaintext": array(
                obj(
                    {
                        "path": string("A JSON pointer into the resource."),
                        "operator": string(enum=operators),
                        "value": any_json("The value to add or replace; none for remove."),
                    },
                    required=["path", "operator"],
                )
            ),
            "imageOverrider": array(
                obj(
                    {
                        "predicate": obj(
                            {"path": string("A JSON pointer to the image field.")}, required=["path"]
                        ),
                        "component": string(enum=list(ImageComponent)),
                        "operator": string(enum=operators),
                        "value": string(),
                    },
                    required=["component", "operator"],
                )
            ),
            "commandOverrider": array(command_args),
            "argsOverrider": array(command_args),
            "labelsOverrider": array(label_annotation),
            "annotationsOverrider": array(label_annotation),
            "fieldOverrider": array(
                obj(
                    {
                        "fieldPath": string("A JSON pointer to a string field holding JSON or YAML."),
                        "json": array(patch_operation),
                        "yaml": array(patch_operation),
                    },
                    required=["fieldPath"],
                )
            ),
        }
    )


def override_spec() -> Schema:
    rule = obj(
        {
            "targetCluster": cluster_affinity("The clusters this rule applies to; absent means all."),
            "overriders": overriders(),
        },
        required=["overriders"],
    )
    return obj(
        {
            "resourceSelectors": array(resource_selector(), "The resources overridden; none means all."),
            "overrideRules": array(rule, "Overriders by target cluster."),
            "targetCluster": cluster_affinity("Deprecated: use overrideRules."),
            "overriders": overriders(),
        },
        "How the resources are changed per cluster.",
    )


_POLICY_COLUMNS = (
    column("CONFLICT-RESOLUTION", ".spec.conflictResolution"),
    column("PRIORITY", ".spec.priority"),
    AGE,
)


def policy_crds() -> list[dict[str, Any]]:
    """The policy CRDs (ClusterTaintPolicy's is in `taintpolicy`)."""
    group = constants.POLICY_GROUP
    common: dict[str, Any] = {"group": group, "version": "v1alpha1", "categories": [constants.CATEGORY]}
    return [
        custom_resource_definition(
            kind="PropagationPolicy",
            plural=constants.PROPAGATION_POLICIES.resource,
            namespaced=True,
            short_names=["pp"],
            columns=_POLICY_COLUMNS,
            schema=kind_schema(
                "Propagates a group of resources of its namespace to member clusters.", propagation_spec()
            ),
            **common,
        ),
        custom_resource_definition(
            kind="ClusterPropagationPolicy",
            plural=constants.CLUSTER_PROPAGATION_POLICIES.resource,
            namespaced=False,
            short_names=["cpp"],
            columns=_POLICY_COLUMNS,
            schema=kind_schema(
                "Propagates cluster-scoped resources, or resources of any namespace, to member clusters.",
                propagation_spec(),
            ),
            **common,
        ),
        custom_resource_definition(
            kind="OverridePolicy",
            plural=constants.OVERRIDE_POLICIES.resource,
            namespaced=True,
            short_names=["op"],
            schema=kind_schema("Changes resources of its namespace per target cluster.", override_spec()),
            **common,
        ),
        custom_resource_definition(
            kind="ClusterOverridePolicy",
            plural=constants.CLUSTER_OVERRIDE_POLICIES.resource,
            namespaced=False,
            short_names=["cop"],
            schema=kind_schema("Changes resources of any namespace per target cluster.", override_spec()),
            **common,
        ),
        federated_resource_quota_crd(),
    ]
