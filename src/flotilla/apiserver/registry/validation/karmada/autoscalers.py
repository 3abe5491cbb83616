"""Rules for FederatedHPAs and CronFederatedHPAs, as Karmada's validating webhook applies them.

A FederatedHPA is checked as kube checks an HPA (Karmada lifts that code): minReplicas at least 1
(no scale to zero), maxReplicas above 0 and at least minReplicas, a target reference with a kind
and a name, each metric with exactly the source its type names and a valid target, and the
behaviour's windows, policies and periods in range — the rules of
`validation.autoscaling`, applied to the FederatedHPA's spec — and a status without negative
replica counts.

A CronFederatedHPA targeting autoscaling.karmada.io may only target a FederatedHPA, and its rules
must then set `targetMinReplicas` or `targetMaxReplicas` (positive, min ≤ max); any other target
needs `targetReplicas` ≥ 0 (zero is allowed: scale a workload away at weekends). Rule names are
unique, schedules are cron syntax, time zones are IANA names the controller can load.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flotilla.api import fielderrors
from flotilla.api.cron import CronSyntaxError, parse_schedule
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.api.karmada.autoscaling import AUTOSCALING_GROUP, AUTOSCALING_VERSION, FEDERATED_HPA
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.autoscaling import validate_horizontal_pod_autoscaler
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object

_GROUP_VERSION = f"{AUTOSCALING_GROUP}/{AUTOSCALING_VERSION}"


def validate_federated_hpa(autoscaler: Object) -> list[FieldError]:
    # The HPA rules also check metadata, which the API server has already done for this object.
    errors = [
        error
        for error in validate_horizontal_pod_autoscaler(autoscaler)
        if not error.field.startswith("metadata")
    ]
    status = fields.mapping(autoscaler, "status")
    for name in ("currentReplicas", "desiredReplicas"):
        value = fields.integer(status, name)
        if value is not None and value < 0:
            errors.append(fielderrors.invalid(f"status.{name}", value, "must be greater than or equal to 0"))
    return errors


def validate_federated_hpa_update(new: Object, old: Object) -> list[FieldError]:
    return validate_federated_hpa(new)


def validate_cron_federated_hpa(cron: Object) -> list[FieldError]:
    spec = fields.mapping(cron, "spec")
    reference = fields.mapping(spec, "scaleTargetRef")
    errors: list[FieldError] = []
    scales_autoscaler = fields.text(reference, "apiVersion") == _GROUP_VERSION
    kind = fields.text(reference, "kind")
    if scales_autoscaler and kind != FEDERATED_HPA.kind:
        return [
            fielderrors.invalid(
                "spec.scaleTargetRef.kind",
                kind,
                f"invalid scaleTargetRef kind: {kind}, only support {FEDERATED_HPA.kind}",
            )
        ]
    for name in ("kind", "name"):
        if not fields.text(reference, name):
            errors.append(fielderrors.required(f"spec.scaleTargetRef.{name}"))
    seen: set[str] = set()
    for position, rule in enumerate(fields.objects(spec, "rules")):
        path = index("spec.rules", position)
        name = fields.text(rule, "name")
        if name in seen:
            errors.append(fielderrors.duplicate(child(path, "name"), name))
        seen.add(name)
        errors += _schedule(rule, path)
        errors += _time_zone(rule, path)
        errors += _autoscaler_bounds(rule, path) if scales_autoscaler else _replicas(rule, path, kind)
    return errors


def validate_cron_federated_hpa_update(new: Object, old: Object) -> list[FieldError]:
    return validate_cron_federated_hpa(new)


def _schedule(rule: dict[str, Any], path: str) -> list[FieldError]:
    schedule = fields.text(rule, "schedule")
    problem = ""
    if schedule.startswith(("TZ=", "CRON_TZ=")):
        problem = "a time zone goes in timeZone, not in the schedule"
    else:
        try:
            parse_schedule(schedule)
        except CronSyntaxError as error:
            problem = str(error)
    if not problem:
        return []
    return [fielderrors.invalid(child(path, "schedule"), schedule, f"invalid cron format: {problem}")]


def _time_zone(rule: dict[str, Any], path: str) -> list[FieldError]:
    zone = rule.get("timeZone")
    if zone is None:
        return []
    text = str(zone)
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        return [fielderrors.invalid(child(path, "timeZone"), text, f"unknown time zone {text}")]
    return []


def _autoscaler_bounds(rule: dict[str, Any], path: str) -> list[FieldError]:
    minimum = fields.integer(rule, "targetMinReplicas")
    maximum = fields.integer(rule, "targetMaxReplicas")
    errors: list[FieldError] = []
    if minimum is None and maximum is None:
        errors.append(
            fielderrors.invalid(
                child(path, "targetMaxReplicas"),
                "",
                "targetMinReplicas and targetMaxReplicas cannot be nil at the same time "
                "if you want to scale FederatedHPA",
            )
        )
    if minimum is not None and minimum <= 0:
        errors.append(
            fielderrors.invalid(
                child(path, "targetMinReplicas"), minimum, "targetMinReplicas should be larger than 0"
            )
        )
    if maximum is not None and maximum <= 0:
        errors.append(
            fielderrors.invalid(
                child(path, "targetMaxReplicas"), maximum, "targetMaxReplicas should be larger than 0"
            )
        )
    if minimum is not None and maximum is not None and minimum > maximum:
        errors.append(
            fielderrors.invalid(
                child(path, "targetMinReplicas"),
                minimum,
                "targetMaxReplicas should be larger than or equal to targetMinReplicas",
            )
        )
    return errors


def _replicas(rule: dict[str, Any], path: str, kind: str) -> list[FieldError]:
    replicas = fields.integer(rule, "targetReplicas")
    if replicas is None:
        return [
            fielderrors.invalid(
                child(path, "targetReplicas"), "", f"targetReplicas cannot be nil if you want to scale {kind}"
            )
        ]
    if replicas < 0:
        return [
            fielderrors.invalid(
                child(path, "targetReplicas"), replicas, "targetReplicas should be larger than or equal to 0"
            )
        ]
    return []
