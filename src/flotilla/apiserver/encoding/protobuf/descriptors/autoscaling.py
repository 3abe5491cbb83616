"""Protobuf field tables for autoscaling/v1 and autoscaling/v2.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    INT32,
    INT64,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "autoscaling.v1.CrossVersionObjectReference": (
        Field(1, "kind", STRING),
        Field(2, "name", STRING),
        Field(3, "apiVersion", STRING, OMITEMPTY),
    ),
    "autoscaling.v1.HorizontalPodAutoscaler": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "autoscaling.v1.HorizontalPodAutoscalerSpec", OMITEMPTY),
        Field(3, "status", "autoscaling.v1.HorizontalPodAutoscalerStatus", OMITEMPTY),
    ),
    "autoscaling.v1.HorizontalPodAutoscalerSpec": (
        Field(1, "scaleTargetRef", "autoscaling.v1.CrossVersionObjectReference"),
        Field(2, "minReplicas", INT32, POINTER | OMITEMPTY),
        Field(3, "maxReplicas", INT32),
        Field(4, "targetCPUUtilizationPercentage", INT32, POINTER | OMITEMPTY),
    ),
    "autoscaling.v1.HorizontalPodAutoscalerStatus": (
        Field(1, "observedGeneration", INT64, POINTER | OMITEMPTY),
        Field(2, "lastScaleTime", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(3, "currentReplicas", INT32),
        Field(4, "desiredReplicas", INT32),
        Field(5, "currentCPUUtilizationPercentage", INT32, POINTER | OMITEMPTY),
    ),
    "autoscaling.v1.Scale": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "autoscaling.v1.ScaleSpec", OMITEMPTY),
        Field(3, "status", "autoscaling.v1.ScaleStatus", OMITEMPTY),
    ),
    "autoscaling.v1.ScaleSpec": (Field(1, "replicas", INT32, OMITEMPTY),),
    "autoscaling.v1.ScaleStatus": (
        Field(1, "replicas", INT32),
        Field(2, "selector", STRING, OMITEMPTY),
    ),
    "autoscaling.v2.ContainerResourceMetricSource": (
        Field(1, "name", STRING),
        Field(2, "target", "autoscaling.v2.MetricTarget"),
        Field(3, "container", STRING),
    ),
    "autoscaling.v2.ContainerResourceMetricStatus": (
        Field(1, "name", STRING),
        Field(2, "current", "autoscaling.v2.MetricValueStatus"),
        Field(3, "container", STRING),
    ),
    "autoscaling.v2.CrossVersionObjectReference": (
        Field(1, "kind", STRING),
        Field(2, "name", STRING),
        Field(3, "apiVersion", STRING, OMITEMPTY),
    ),
    "autoscaling.v2.ExternalMetricSource": (
        Field(1, "metric", "autoscaling.v2.MetricIdentifier"),
        Field(2, "target", "autoscaling.v2.MetricTarget"),
    ),
    "autoscaling.v2.ExternalMetricStatus": (
        Field(1, "metric", "autoscaling.v2.MetricIdentifier"),
        Field(2, "current", "autoscaling.v2.MetricValueStatus"),
    ),
    "autoscaling.v2.HPAScalingPolicy": (
        Field(1, "type", STRING),
        Field(2, "value", INT32),
        Field(3, "periodSeconds", INT32),
    ),
    "autoscaling.v2.HPAScalingRules": (
        Field(3, "stabilizationWindowSeconds", INT32, POINTER | OMITEMPTY),
        Field(1, "selectPolicy", STRING, POINTER | OMITEMPTY),
        Field(2, "policies", "autoscaling.v2.HPAScalingPolicy", REPEATED | OMITEMPTY),
    ),
    "autoscaling.v2.HorizontalPodAutoscaler": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "autoscaling.v2.HorizontalPodAutoscalerSpec", OMITEMPTY),
        Field(3, "status", "autoscaling.v2.HorizontalPodAutoscalerStatus", OMITEMPTY),
    ),
    "autoscaling.v2.HorizontalPodAutoscalerBehavior": (
        Field(1, "scaleUp", "autoscaling.v2.HPAScalingRules", POINTER | OMITEMPTY),
        Field(2, "scaleDown", "autoscaling.v2.HPAScalingRules", POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.HorizontalPodAutoscalerCondition": (
        Field(1, "type", STRING),
        Field(2, "status", STRING),
        Field(3, "lastTransitionTime", "meta.v1.Time", OMITEMPTY),
        Field(4, "reason", STRING, OMITEMPTY),
        Field(5, "message", STRING, OMITEMPTY),
    ),
    "autoscaling.v2.HorizontalPodAutoscalerSpec": (
        Field(1, "scaleTargetRef", "autoscaling.v2.CrossVersionObjectReference"),
        Field(2, "minReplicas", INT32, POINTER | OMITEMPTY),
        Field(3, "maxReplicas", INT32),
        Field(4, "metrics", "autoscaling.v2.MetricSpec", REPEATED | OMITEMPTY),
        Field(5, "behavior", "autoscaling.v2.HorizontalPodAutoscalerBehavior", POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.HorizontalPodAutoscalerStatus": (
        Field(1, "observedGeneration", INT64, POINTER | OMITEMPTY),
        Field(2, "lastScaleTime", "meta.v1.Time", POINTER | OMITEMPTY),
        Field(3, "currentReplicas", INT32, OMITEMPTY),
        Field(4, "desiredReplicas", INT32),
        Field(5, "currentMetrics", "autoscaling.v2.MetricStatus", REPEATED),
        Field(6, "conditions", "autoscaling.v2.HorizontalPodAutoscalerCondition", REPEATED | OMITEMPTY),
    ),
    "autoscaling.v2.MetricIdentifier": (
        Field(1, "name", STRING),
        Field(2, "selector", "meta.v1.LabelSelector", POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.MetricSpec": (
        Field(1, "type", STRING),
        Field(2, "object", "autoscaling.v2.ObjectMetricSource", POINTER | OMITEMPTY),
        Field(3, "pods", "autoscaling.v2.PodsMetricSource", POINTER | OMITEMPTY),
        Field(4, "resource", "autoscaling.v2.ResourceMetricSource", POINTER | OMITEMPTY),
        Field(7, "containerResource", "autoscaling.v2.ContainerResourceMetricSource", POINTER | OMITEMPTY),
        Field(5, "external", "autoscaling.v2.ExternalMetricSource", POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.MetricStatus": (
        Field(1, "type", STRING),
        Field(2, "object", "autoscaling.v2.ObjectMetricStatus", POINTER | OMITEMPTY),
        Field(3, "pods", "autoscaling.v2.PodsMetricStatus", POINTER | OMITEMPTY),
        Field(4, "resource", "autoscaling.v2.ResourceMetricStatus", POINTER | OMITEMPTY),
        Field(7, "containerResource", "autoscaling.v2.ContainerResourceMetricStatus", POINTER | OMITEMPTY),
        Field(5, "external", "autoscaling.v2.ExternalMetricStatus", POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.MetricTarget": (
        Field(1, "type", STRING),
        Field(2, "value", "resource.Quantity", POINTER | OMITEMPTY),
        Field(3, "averageValue", "resource.Quantity", POINTER | OMITEMPTY),
        Field(4, "averageUtilization", INT32, POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.MetricValueStatus": (
        Field(1, "value", "resource.Quantity", POINTER | OMITEMPTY),
        Field(2, "averageValue", "resource.Quantity", POINTER | OMITEMPTY),
        Field(3, "averageUtilization", INT32, POINTER | OMITEMPTY),
    ),
    "autoscaling.v2.ObjectMetricSource": (
        Field(1, "describedObject", "autoscaling.v2.CrossVersionObjectReference"),
        Field(2, "target", "autoscaling.v2.MetricTarget"),
        Field(3, "metric", "autoscaling.v2.MetricIdentifier"),
    ),
    "autoscaling.v2.ObjectMetricStatus": (
        Field(1, "metric", "autoscaling.v2.MetricIdentifier"),
        Field(2, "current", "autoscaling.v2.MetricValueStatus"),
        Field(3, "describedObject", "autoscaling.v2.CrossVersionObjectReference"),
    ),
    "autoscaling.v2.PodsMetricSource": (
        Field(1, "metric", "autoscaling.v2.MetricIdentifier"),
        Field(2, "target", "autoscaling.v2.MetricTarget"),
    ),
    "autoscaling.v2.PodsMetricStatus": (
        Field(1, "metric", "autoscaling.v2.MetricIdentifier"),
        Field(2, "current", "autoscaling.v2.MetricValueStatus"),
    ),
    "autoscaling.v2.ResourceMetricSource": (
        Field(1, "name", STRING),
        Field(2, "target", "autoscaling.v2.MetricTarget"),
    ),
    "autoscaling.v2.ResourceMetricStatus": (
        Field(1, "name", STRING),
        Field(2, "current", "autoscaling.v2.MetricValueStatus"),
    ),
}
