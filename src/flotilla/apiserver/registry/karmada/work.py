"""The work.karmada.io CRDs: ResourceBinding and ClusterResourceBinding (v1alpha2), Work (v1alpha1).

Bindings are stored at v1alpha2 and served at v1alpha1 too, as Karmada serves them: the v1alpha1
schema is in `workv1alpha1`, and the API server converts between the two as Karmada's webhook does
(`bindingconversion`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ConflictResolution, PurgeMode, ResourceHealth
from flotilla.apiserver.registry.karmada.policy import failover, placement, suspension
from flotilla.apiserver.registry.karmada.schemas import (
    AGE,
    Schema,
    array,
    boolean,
    column,
    conditions,
    custom_resource_definition,
    date_time,
    integer,
    kind_schema,
    node_selector,
    obj,
    raw_object,
    resource_list,
    string,
    string_map,
    strings,
    toleration,
)
from flotilla.apiserver.registry.karmada.workv1alpha1 import (
    CLUSTER_RESOURCE_BINDING_DESCRIPTION,
    RESOURCE_BINDING_DESCRIPTION,
    with_v1alpha1,
)

COMPONENT_NAME_MAX = 32
EVICTION_REASON_MAX = 32
EVICTION_MESSAGE_MAX = 1024


def _node_claim() -> Schema:
    return obj(
        {
            "hardNodeAffinity": node_selector("The pods' required node affinity."),
            "nodeSelector": string_map(),
            "tolerations": array(toleration()),
        },
        "Node constraints of the pods.",
    )


def _target_clusters(description: str) -> Schema:
    component = obj(
        {
            "name": string("The component, as named in spec.components."),
            "replicas": integer("Replicas of the component assigned to the cluster."),
        },
        "One component's share of the cluster's replicas.",
        required=["name", "replicas"],
    )
    target = obj(
        {
            "name": string("The cluster."),
            "replicas": integer("Replicas assigned to the cluster."),
            "components": array(component, "Per-component replicas, for workloads of several pod templates."),
        },
        required=["name"],
    )
    return array(target, description)


def binding_spec() -> Schema:
    requirements = obj(
        {
            "nodeClaim": _node_claim(),
            "resourceRequest": resource_list("Resources one replica requests."),
            "namespace": string(),
            "priorityClassName": string(),
        },
        "What one replica needs.",
    )
    component = obj(
        {
            "name": string(max_length=COMPONENT_NAME_MAX),
            "replicas": integer(),
            "replicaRequirements": obj(
                {
                    "nodeClaim": _node_claim(),
                    "resourceRequest": resource_list(),
                    "priorityClassName": string(),
                }
            ),
        },
        required=["name", "replicas"],
    )
    eviction = obj(
        {
            "fromCluster": string("The cluster being evicted from."),
            "purgeMode": string(
                "What happens to the copy on the cluster being evicted from.",
                # As the policies' failover (Karmada v1.19, #7792): the deprecated spellings are gone.
                enum=[PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY, PurgeMode.NEVER],
            ),
            "replicas": integer(),
            "reason": string(
                min_length=1,
                max_length=EVICTION_REASON_MAX,
                pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            ),
            "message": string(max_length=EVICTION_MESSAGE_MAX),
            "producer": string(),
            "gracePeriodSeconds": integer(),
            "suppressDeletion": boolean(),
            "preservedLabelState": string_map(),
            "clustersBeforeFailover": strings(),
            "creationTimestamp": date_time(),
        },
        required=["fromCluster", "reason", "producer"],
    )
    snapshot = obj(
        {"namespace": string(), "name": string(), "clusters": _target_clusters("Its scheduled clusters.")},
        required=["name"],
    )
    return obj(
        {
            "resource": obj(
                {
                    "apiVersion": string(),
                    "kind": string(),
                    "namespace": string(),
                    "name": string(),
                    "uid": string(),
                    "resourceVersion": string(),
                },
                "The resource template this binding stands for.",
                required=["apiVersion", "kind", "name"],
            ),
            "propagateDeps": boolean(),
            "replicaRequirements": requirements,
            "replicas": integer("The template's desired replicas."),
            "components": array(component, "Pod templates of a multi-template workload."),
            "clusters": _target_clusters("The scheduling result."),
            "placement": placement(),
            "gracefulEvictionTasks": array(eviction),
            "requiredBy": array(snapshot, "Bindings that depend on this one."),
            "schedulerName": string(),
            "failover": failover(),
            "conflictResolution": string(enum=list(ConflictResolution), default=ConflictResolution.ABORT),
            "rescheduleTriggeredAt": date_time("A reschedule from scratch was asked for at this time."),
            "suspension": suspension(scheduling=boolean("Stop scheduling this binding.")),
            "preserveResourcesOnDeletion": boolean(),
            "schedulePriority": obj({"priority": integer(default=0)}),
            "workloadAffinityGroups": obj({"affinityGroup": string(), "antiAffinityGroup": string()}),
        },
        required=["resource"],
    )


def binding_status() -> Schema:
    item = obj(
        {
            "clusterName": string(),
            "status": raw_object("The member object's status."),
            "applied": boolean(),
            "appliedMessage": string(),
            "health": string(enum=list(ResourceHealth)),
        },
        required=["clusterName"],
    )
    return obj(
        {
            "schedulerObservedGeneration": integer(bits=64),
            "schedulerObservingAffinityName": string(),
            "lastScheduledTime": date_time(),
            "conditions": conditions("Scheduled and FullyApplied."),
            "aggregatedStatus": array(item, "Each target cluster's status of the resource."),
        }
    )


def work_spec() -> Schema:
    return obj(
        {
            "workload": obj(
                {"manifests": array(raw_object("A resource to apply."), "The resources to apply.")}
            ),
            "suspendDispatching": boolean(),
            "preserveResourcesOnDeletion": boolean(),
        }
    )


def work_status() -> Schema:
    identifier = obj(
        {
            "ordinal": integer("The manifest's index in spec.workload.manifests.", bits=None),
            "group": string(),
            "version": string(),
            "kind": string(),
            "resource": string(),
            "namespace": string(),
            "name": string(),
        },
        required=["ordinal", "version", "kind", "resource", "name"],
    )
    manifest_status = obj(
        {
            "identifier": identifier,
            "status": raw_object(),
            "health": string(enum=list(ResourceHealth)),
        },
        required=["identifier"],
    )
    return obj(
        {
            "conditions": conditions("Applied, Progressing, Available, Degraded, Dispatching."),
            "manifestStatuses": array(manifest_status),
        }
    )


_BINDING_COLUMNS = (
    column("SCHEDULED", '.status.conditions[?(@.type=="Scheduled")].status'),
    column("FULLYAPPLIED", '.status.conditions[?(@.type=="FullyApplied")].status'),
    AGE,
)


def work_crds() -> list[dict[str, Any]]:
    """ResourceBinding and ClusterResourceBinding (v1alpha1 and v1alpha2), and Work."""
    group = constants.WORK_GROUP
    common: dict[str, Any] = {"group": group, "categories": [constants.CATEGORY], "status": True}
    return [
        with_v1alpha1(
            custom_resource_definition(
                kind="ResourceBinding",
                version="v1alpha2",
                plural=constants.RESOURCE_BINDINGS.resource,
                namespaced=True,
                short_names=["rb"],
                columns=_BINDING_COLUMNS,
                schema=kind_schema(
                    "Binds a namespaced resource template to its placement and scheduling result.",
                    binding_spec(),
                    binding_status(),
                ),
                **common,
            ),
            RESOURCE_BINDING_DESCRIPTION,
        ),
        with_v1alpha1(
            custom_resource_definition(
                kind="ClusterResourceBinding",
                version="v1alpha2",
                plural=constants.CLUSTER_RESOURCE_BINDINGS.resource,
                namespaced=False,
                short_names=["crb"],
                columns=_BINDING_COLUMNS,
                schema=kind_schema(
                    "Binds a cluster-scoped resource template to its placement and scheduling result.",
                    binding_spec(),
                    binding_status(),
                ),
                **common,
            ),
            CLUSTER_RESOURCE_BINDING_DESCRIPTION,
        ),
        custom_resource_definition(
            kind="Work",
            version="v1alpha1",
            plural=constants.WORKS.resource,
            namespaced=True,
            short_names=["wk"],
            columns=(
                column("WORKLOAD-KIND", ".spec.workload.manifests[*].kind"),
                column("APPLIED", '.status.conditions[?(@.type=="Applied")].status'),
                AGE,
            ),
            schema=kind_schema("The resources one member cluster receives.", work_spec(), work_status()),
            **common,
        ),
    ]
