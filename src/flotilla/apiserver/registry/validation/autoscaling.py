"""Validation of autoscaling/v2 HorizontalPodAutoscalers.

An HPA names the object it scales, keeps `minReplicas` at least 1 and `maxReplicas` at least both 1
and `minReplicas`, describes each metric with exactly the source its `type` names, and bounds the
scaling behaviour's windows, policies and periods as kube does.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.quantities import ZERO, QuantityError, parse_quantity
from flotilla.apiserver.registry.validation import fields, metadata

METRIC_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
_SOURCE_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ("Disabled", "Max", "Min")
MAX_STABILIZATION_WINDOW = 3600
MAX_PERIOD = 1800


def _reference(reference: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for name in ("kind", "name"):
        value = fields.text(reference, name)
        name_path = fielderrors.child(path, name)
        if not value:
            errors.append(fielderrors.required(name_path))
        else:
            errors.extend(
                fielderrors.invalid(name_path, value, message)
                for message in metadata.path_segment_name(value, False)
            )
    return errors


def _positive_quantity(target: dict[str, Any], name: str, path: str) -> list[FieldError]:
    value = target.get(name)
    if value is None:
        return []
    value_path = fielderrors.child(path, name)
    try:
        quantity = parse_quantity(value)
    except QuantityError as problem:
        return [fielderrors.invalid(value_path, value, str(problem))]
    return [] if quantity > ZERO else [fielderrors.invalid(value_path, str(quantity), "must be positive")]


def _target(target: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = fields.text(target, "type")
    if not kind:
        errors.append(
            fielderrors.required(fielderrors.child(path, "type"), "must specify a metric target type")
        )
    if kind not in TARGET_TYPES:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "type"), kind, "must be either Utilization, Value, or AverageValue"
            )
        )
    errors.extend(_positive_quantity(target, "value", path))
    errors.extend(_positive_quantity(target, "averageValue", path))
    utilization = fields.integer(target, "averageUtilization")
    if utilization is not None and utilization < 1:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "averageUtilization"), utilization, "must be greater than 0"
            )
        )
    return errors


def _source(kind: str, source: dict[str, Any], path: str) -> list[FieldError]:
    target = fields.mapping(source, "target")
    target_path = fielderrors.child(path, "target")
    errors = _target(target, target_path)
    if kind in ("Resource", "ContainerResource"):
        if not fields.text(source, "name"):
            errors.append(
                fielderrors.required(fielderrors.child(path, "name"), "must specify a resource name")
            )
        if kind == "ContainerResource" and not fields.text(source, "container"):
            errors.append(
                fielderrors.required(fielderrors.child(path, "container"), "must specify a container")
            )
        has_utilization = target.get("averageUtilization") is not None
        has_value = target.get("averageValue") is not None
        if not has_utilization and not has_value:
            errors.append(
                fielderrors.required(
                    fielderrors.child(target_path, "averageUtilization"),
                    "must set either a target raw value or a target utilization",
                )
            )
        if has_utilization and has_value:
            errors.append(
                fielderrors.forbidden(
                    fielderrors.child(target_path, "averageValue"),
                    "may not set both a target raw value and a target utilization",
                )
            )
        return errors
    metric = fields.mapping(source, "metric")
    if not fields.text(metric, "name"):
        errors.append(
            fielderrors.required(fielderrors.child(path, "metric.name"), "must specify a metric name")
        )
    if kind == "Object":
        errors.extend(
            _reference(fields.mapping(source, "describedObject"), fielderrors.child(path, "describedObject"))
        )
    return errors


def _metrics(metrics: list[dict[str, Any]], min_replicas: int | None, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, metric in enumerate(metrics):
        metric_path = fielderrors.index(path, position)
        kind = fields.text(metric, "type")
        type_path = fielderrors.child(metric_path, "type")
        if not kind:
            errors.append(fielderrors.required(type_path, "must specify a metric source type"))
        if kind not in METRIC_TYPES:
            errors.append(fielderrors.not_supported(type_path, kind, METRIC_TYPES))
            continue
        present = [name for name in _SOURCE_FIELDS.values() if metric.get(name) is not None]
        expected = _SOURCE_FIELDS[kind]
        if expected not in present:
            errors.append(
                fielderrors.required(
                    fielderrors.child(metric_path, expected),
                    "must populate information for the given metric source",
                )
            )
        else:
            errors.extend(
                _source(kind, fields.mapping(metric, expected), fielderrors.child(metric_path, expected))
            )
        errors.extend(
            fielderrors.forbidden(
                fielderrors.child(metric_path, extra), "must populate the given metric source only"
            )
            for extra in present
            if extra != expected
        )
    if min_replicas == 0 and not any(
        fields.text(metric, "type") in ("Object", "External") for metric in metrics
    ):
        errors.append(
            fielderrors.forbidden(
                path,
                "must specify at least one Object or External metric to support scaling to zero replicas",
            )
        )
    return errors


def _scaling_rules(rules: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    window = fields.integer(rules, "stabilizationWindowSeconds")
    window_path = fielderrors.child(path, "stabilizationWindowSeconds")
    if window is not None and window < 0:
        errors.append(fielderrors.invalid(window_path, window, "must be greater than or equal to zero"))
    if window is not None and window > MAX_STABILIZATION_WINDOW:
        errors.append(
            fielderrors.invalid(
                window_path, window, f"must be less than or equal to {MAX_STABILIZATION_WINDOW}"
            )
        )
    select = rules.get("selectPolicy")
    if isinstance(select, str) and select not in SELECT_POLICIES:
        errors.append(
            fielderrors.not_supported(fielderrors.child(path, "selectPolicy"), select, SELECT_POLICIES)
        )
    policies = fields.objects(rules, "policies")
    policies_path = fielderrors.child(path, "policies")
    if not policies and select != "Disabled":
        errors.append(fielderrors.required(policies_path, "must specify at least one Policy"))
    for position, policy in enumerate(policies):
        policy_path = fielderrors.index(policies_path, position)
        kind = fields.text(policy, "type")
        if kind not in ("Pods", "Percent"):
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(policy_path, "type"), kind, "must be either Pods or Percent"
                )
            )
        value = fields.integer(policy, "value") or 0
        if value <= 0:
            errors.append(
                fielderrors.invalid(
                    fielderrors.child(policy_path, "value"), value, "must be greater than zero"
                )
            )
        period = fields.integer(policy, "periodSeconds") or 0
        period_path = fielderrors.child(policy_path, "periodSeconds")
        if period <= 0:
            errors.append(fielderrors.invalid(period_path, period, "must be greater than zero"))
        if period > MAX_PERIOD:
            errors.append(
                fielderrors.invalid(period_path, period, f"must be less than or equal to {MAX_PERIOD}")
            )
    return errors


def validate_horizontal_pod_autoscaler(autoscaler: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(autoscaler, namespaced=True)
    spec = fields.mapping(autoscaler, "spec")
    min_replicas = fields.integer(spec, "minReplicas")
    max_replicas = fields.integer(spec, "maxReplicas") or 0
    if min_replicas is not None and min_replicas < 1:
        errors.append(
            fielderrors.invalid("spec.minReplicas", min_replicas, "must be greater than or equal to 1")
        )
    if max_replicas < 1:
        errors.append(fielderrors.invalid("spec.maxReplicas", max_replicas, "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        errors.append(
            fielderrors.invalid(
                "spec.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`"
            )
        )
    errors.extend(_reference(fields.mapping(spec, "scaleTargetRef"), "spec.scaleTargetRef"))
    errors.extend(_metrics(fields.objects(spec, "metrics"), min_replicas, "spec.metrics"))
    behavior = fields.mapping(spec, "behavior")
    for direction in ("scaleUp", "scaleDown"):
        if behavior.get(direction) is not None:
            errors.extend(_scaling_rules(fields.mapping(behavior, direction), f"spec.behavior.{direction}"))
    return errors


def validate_horizontal_pod_autoscaler_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_horizontal_pod_autoscaler(new))
    return errors
