"""Karmada's autoscaling.karmada.io names: FederatedHPA, CronFederatedHPA (`pkg/apis/autoscaling/v1alpha1`).

A FederatedHPA is a HorizontalPodAutoscaler (autoscaling/v2's spec and status) whose target is a
resource template on the hub: it reads the pods of the template's member copies and writes the
template's `/scale`. A CronFederatedHPA's rules set, on a cron schedule, either a workload's
replicas (`targetReplicas`) or a FederatedHPA's bounds (`targetMinReplicas`, `targetMaxReplicas`).
The condition types, reasons and Event reasons are Kubernetes' HPA ones, which Karmada reuses.
"""

from __future__ import annotations

import enum

from flotilla.api.scheme import GroupResource, GroupVersionKind

AUTOSCALING_GROUP = "autoscaling.karmada.io"
AUTOSCALING_VERSION = "v1alpha1"
FEDERATED_HPA = GroupVersionKind(AUTOSCALING_GROUP, AUTOSCALING_VERSION, "FederatedHPA")
FEDERATED_HPAS = GroupResource(AUTOSCALING_GROUP, "federatedhpas")
CRON_FEDERATED_HPA = GroupVersionKind(AUTOSCALING_GROUP, AUTOSCALING_VERSION, "CronFederatedHPA")
CRON_FEDERATED_HPAS = GroupResource(AUTOSCALING_GROUP, "cronfederatedhpas")

QUERY_FROM_CLUSTER_ANNOTATION = "resource.karmada.io/query-from-cluster"
"""On each item of the hub's metrics.k8s.io answers: the member cluster it was read from."""

METRICS_GROUP = "metrics.k8s.io"
METRICS_VERSION = "v1beta1"

DEFAULT_CPU_UTILIZATION = 80
"""The metric a FederatedHPA without metrics gets: 80% average CPU utilization."""
DEFAULT_HISTORY_LIMIT = 3
"""A CronFederatedHPA rule's default successful and failed history limits."""
MAX_HISTORY_LIMIT = 32
MAX_RULE_NAME_LENGTH = 32


class HPAConditionType(enum.StrEnum):
    ABLE_TO_SCALE = "AbleToScale"
    SCALING_ACTIVE = "ScalingActive"
    SCALING_LIMITED = "ScalingLimited"


class HPAEventReason(enum.StrEnum):
    SUCCESSFUL_RESCALE = "SuccessfulRescale"
    FAILED_RESCALE = "FailedRescale"
    FAILED_GET_SCALE = "FailedGetScale"
    FAILED_GET_BINDING = "FailedGetBinding"
    FAILED_GET_TARGET_CLUSTERS = "FailedGetTargetClusters"
    FAILED_COMPUTE_METRICS_REPLICAS = "FailedComputeMetricsReplicas"
    FAILED_GET_RESOURCE_METRIC = "FailedGetResourceMetric"
    FAILED_GET_CONTAINER_RESOURCE_METRIC = "FailedGetContainerResourceMetric"
    SELECTOR_REQUIRED = "SelectorRequired"


class CronEventReason(enum.StrEnum):
    SCALE_SUCCEEDED = "ScaleSucceeded"
    SCALE_FAILED = "ScaleFailed"
