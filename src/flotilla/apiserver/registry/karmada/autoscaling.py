"""The autoscaling.karmada.io/v1alpha1 CRDs: FederatedHPA and CronFederatedHPA.

Karmada's schemas field for field (`autoscaling.karmada.io_federatedhpas.yaml`,
`…_cronfederatedhpas.yaml`). A FederatedHPA's spec is autoscaling/v2's HorizontalPodAutoscaler
spec — `scaleTargetRef` and `maxReplicas` required, `metrics` (MetricSpec) and `behavior` — and
its status is the HPA's whole status; `fhpa`, with the REFERENCE-KIND, REFERENCE-NAME, MINPODS,
MAXPODS and REPLICAS columns. A CronFederatedHPA (`cronfhpa`) has a target and rules; the schema
bounds rule names (1-32) and history limits (1-32 and 0-32) and defaults `suspend` and the limits,
as Karmada's kubebuilder markers do. Defaults of the FederatedHPA itself (min 1, 80% CPU, kube's
behavior rules) and the checks that need several fields are built-in admission
(`validation.karmada.autoscalers`).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.autoscaling import (
    CRON_FEDERATED_HPA,
    CRON_FEDERATED_HPAS,
    FEDERATED_HPA,
    FEDERATED_HPAS,
    MAX_HISTORY_LIMIT,
    MAX_RULE_NAME_LENGTH,
)
from flotilla.api.karmada.constants import CATEGORY
from flotilla.apiserver.registry.karmada.schemas import (
    AGE,
    Schema,
    array,
    boolean,
    column,
    custom_resource_definition,
    date_time,
    integer,
    kind_schema,
    label_selector,
    obj,
    quantity,
    string,
)


def cross_version_object_reference(description: str) -> Schema:
    return obj(
        {
            "apiVersion": string("The API version of the referent."),
            "kind": string("The kind of the referent."),
            "name": string("The name of the referent."),
        },
        description,
        required=["kind", "name"],
    )


def _metric_identifier() -> Schema:
    return obj(
        {"name": string("The name of the metric."), "selector": label_selector()},
        "A metric by name and, for a scoped query, a label selector.",
        required=["name"],
    )


def _metric_target() -> Schema:
    return obj(
        {
            "type": string("Utilization, Value or AverageValue."),
            "value": quantity("The target value of the metric."),
            "averageValue": quantity("The target value of the average of the metric across pods."),
            "averageUtilization": integer("The target percentage of the pods' resource requests."),
        },
        "The target value, average value or average utilization of a metric.",
        required=["type"],
    )


def _metric_value_status() -> Schema:
    return obj(
        {
            "value": quantity(),
            "averageValue": quantity(),
            "averageUtilization": integer("The current percentage of the pods' resource requests."),
        },
        "The current value of a metric.",
    )


def _metric_sources(*, status: bool) -> dict[str, Schema]:
    """The five metric sources of a MetricSpec (`status=False`) or a MetricStatus."""
    value, value_key = (_metric_value_status(), "current") if status else (_metric_target(), "target")
    reference = cross_version_object_reference("The object the metric describes.")

    def source(fields: dict[str, Schema], description: str) -> Schema:
        fields = {**fields, value_key: value}
        return obj(fields, description, required=list(fields))

    return {
        "object": source(
            {"describedObject": reference, "metric": _metric_identifier()}, "A metric of a single object."
        ),
        "pods": source({"metric": _metric_identifier()}, "A metric of each pod, averaged."),
        "resource": source({"name": string("The resource's name.")}, "A resource of the pods, as requests."),
        "containerResource": source(
            {"name": string("The resource's name."), "container": string("The container's name.")},
            "A resource of one container of each pod.",
        ),
        "external": source({"metric": _metric_identifier()}, "A metric not tied to any Kubernetes object."),
    }


def metric_spec() -> Schema:
    return obj(
        {
            "type": string("Object, Pods, Resource, ContainerResource or External."),
            **_metric_sources(status=False),
        },
        "A metric to scale on, and its target.",
        required=["type"],
    )


def metric_status() -> Schema:
    return obj(
        {
            "type": string("Object, Pods, Resource, ContainerResource or External."),
            **_metric_sources(status=True),
        },
        "The last read state of a metric.",
        required=["type"],
    )


def _scaling_rules(description: str) -> Schema:
    policy = obj(
        {
            "type": string("Pods or Percent."),
            "value": integer("The amount of change the policy permits."),
            "periodSeconds": integer("The window, in seconds, the policy's change applies to."),
        },
        "One allowed change over a period.",
        required=["type", "value", "periodSeconds"],
    )
    return obj(
        {
            "policies": array(policy, "The allowed changes.", list_type="atomic"),
            "selectPolicy": string("Max, Min or Disabled."),
            "stabilizationWindowSeconds": integer("How far back recommendations are considered."),
            "tolerance": quantity("The least relative change acted on (kube 1.33)."),
        },
        description,
    )


def federated_hpa_spec() -> Schema:
    return obj(
        {
            "scaleTargetRef": cross_version_object_reference("The resource template scaled."),
            "minReplicas": integer("The lower bound (default 1)."),
            "maxReplicas": integer("The upper bound; at least minReplicas."),
            "metrics": array(metric_spec(), "The metrics to scale on (default: 80% average CPU)."),
            "behavior": obj(
                {
                    "scaleUp": _scaling_rules("How fast to scale up."),
                    "scaleDown": _scaling_rules("How fast to scale down."),
                },
                "Scaling speed in each direction.",
            ),
        },
        "Which template to scale, within which bounds, on which metrics.",
        required=["maxReplicas", "scaleTargetRef"],
    )


def hpa_status() -> Schema:
    hpa_condition = obj(
        {
            "type": string("AbleToScale, ScalingActive or ScalingLimited."),
            "status": string("True, False or Unknown."),
            "lastTransitionTime": date_time(),
            "reason": string(),
            "message": string(),
        },
        "A condition of the autoscaler.",
        required=["status", "type"],
    )
    conditions = array(hpa_condition, "The autoscaler's conditions.")
    conditions["x-kubernetes-list-type"] = "map"
    conditions["x-kubernetes-list-map-keys"] = ["type"]
    return obj(
        {
            "observedGeneration": integer(bits=64),
            "lastScaleTime": date_time("When the autoscaler last changed the number of replicas."),
            "currentReplicas": integer("The replicas of the target last seen."),
            "desiredReplicas": integer("The replicas the autoscaler last asked for."),
            "currentMetrics": array(metric_status(), "The metrics last read.", list_type="atomic"),
            "conditions": conditions,
        },
        "The autoscaler's current state (autoscaling/v2's HorizontalPodAutoscalerStatus).",
        required=["desiredReplicas"],
    )


def federated_hpa_crd() -> dict[str, Any]:
    return custom_resource_definition(
        group=FEDERATED_HPA.group,
        version=FEDERATED_HPA.version,
        kind=FEDERATED_HPA.kind,
        plural=FEDERATED_HPAS.resource,
        namespaced=True,
        status=True,
        short_names=["fhpa"],
        categories=[CATEGORY],
        columns=[
            column("REFERENCE-KIND", ".spec.scaleTargetRef.kind"),
            column("REFERENCE-NAME", ".spec.scaleTargetRef.name"),
            column("MINPODS", ".spec.minReplicas", "integer"),
            column("MAXPODS", ".spec.maxReplicas", "integer"),
            column("REPLICAS", ".status.currentReplicas", "integer"),
            AGE,
        ],
        schema=kind_schema(
            "Scales a resource template on the metrics of its pods in every member cluster.",
            federated_hpa_spec(),
            hpa_status(),
        ),
    )


def _bounded(node: Schema, *, minimum: int, maximum: int, default: int) -> Schema:
    node.update(minimum=minimum, maximum=maximum, default=default)
    return node


def cron_rule() -> Schema:
    return obj(
        {
            "name": string(
                "The rule's name, unique in the object; a new name starts a new history.",
                min_length=1,
                max_length=MAX_RULE_NAME_LENGTH,
            ),
            "schedule": string("A cron schedule (five fields, or @hourly, @daily…)."),
            "targetReplicas": integer("The replicas to set on a workload target."),
            "targetMinReplicas": integer("The minReplicas to set on a FederatedHPA target."),
            "targetMaxReplicas": integer("The maxReplicas to set on a FederatedHPA target."),
            "suspend": {**boolean("Stop running the rule."), "default": False},
            "timeZone": string("The IANA time zone of the schedule (default: the controller manager's)."),
            "successfulHistoryLimit": _bounded(
                integer("Successful executions kept."), minimum=1, maximum=MAX_HISTORY_LIMIT, default=3
            ),
            "failedHistoryLimit": _bounded(
                integer("Failed executions kept."), minimum=0, maximum=MAX_HISTORY_LIMIT, default=3
            ),
        },
        "A schedule and what to set when it comes.",
        required=["name", "schedule"],
    )


def cron_status() -> Schema:
    successful = obj(
        {
            "scheduleTime": date_time("When the rule was to run."),
            "executionTime": date_time("When it ran."),
            "appliedReplicas": integer(),
            "appliedMinReplicas": integer(),
            "appliedMaxReplicas": integer(),
        },
        "A successful execution.",
        required=["executionTime", "scheduleTime"],
    )
    failed = obj(
        {
            "scheduleTime": date_time("When the rule was to run."),
            "executionTime": date_time("When it ran."),
            "message": string("Why it failed."),
        },
        "A failed execution.",
        required=["executionTime", "message", "scheduleTime"],
    )
    history = obj(
        {
            "ruleName": string(),
            "nextExecutionTime": date_time("The next run; absent while the rule is suspended."),
            "successfulExecutions": array(successful, "The latest successful executions, newest first."),
            "failedExecutions": array(failed, "The latest failed executions, newest first."),
        },
        "One rule's executions.",
        required=["ruleName"],
    )
    return obj({"executionHistories": array(history, "One history per rule.")}, "The rules' executions.")


def cron_federated_hpa_crd() -> dict[str, Any]:
    spec = obj(
        {
            "scaleTargetRef": cross_version_object_reference(
                "The workload (any kind with a scale subresource) or the FederatedHPA to scale."
            ),
            "rules": array(cron_rule(), "The schedules and what each sets."),
        },
        "What to scale, and when.",
        required=["rules", "scaleTargetRef"],
    )
    return custom_resource_definition(
        group=CRON_FEDERATED_HPA.group,
        version=CRON_FEDERATED_HPA.version,
        kind=CRON_FEDERATED_HPA.kind,
        plural=CRON_FEDERATED_HPAS.resource,
        namespaced=True,
        status=True,
        short_names=["cronfhpa"],
        categories=[CATEGORY],
        columns=[
            column("REFERENCE-KIND", ".spec.scaleTargetRef.kind"),
            column("REFERENCE-NAME", ".spec.scaleTargetRef.name"),
            AGE,
        ],
        schema=kind_schema(
            "Scales a workload, or moves a FederatedHPA's bounds, on cron schedules.", spec, cron_status()
        ),
    )


def autoscaling_crds() -> list[dict[str, Any]]:
    return [federated_hpa_crd(), cron_federated_hpa_crd()]
