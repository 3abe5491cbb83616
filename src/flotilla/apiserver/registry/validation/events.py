"""Validation of Events, in both their shapes: core/v1 and events.k8s.io/v1.

Both are one stored object. kube validates core/v1 events leniently for old clients (the involved
object's namespace must match the event's; new-style events with `eventTime` also need a reporting
controller, instance, action and reason of bounded length) and events.k8s.io/v1 events strictly on
top of that (object metadata, `eventTime`, a Normal/Warning type, no deprecated fields). The
events.k8s.io shape is read through the core field names, which is also where kube reports errors.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024
EVENT_TYPES = ("Normal", "Warning")
_CORE_NAMES = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingController",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}


def as_core_event(event: dict[str, Any]) -> dict[str, Any]:
    """An events.k8s.io/v1 Event read with core/v1 field names."""
    return {_CORE_NAMES.get(name, name): value for name, value in event.items()}


def _legacy(event: dict[str, Any], *, reporting_field: str) -> list[FieldError]:
    errors: list[FieldError] = []
    namespace = fields.text(fields.mapping(event, "metadata"), "namespace")
    involved_namespace = fields.text(fields.mapping(event, "involvedObject"), "namespace")
    involved_path = "involvedObject.namespace"
    if not event.get("eventTime"):
        if not involved_namespace:
            if namespace not in ("", "default"):
                errors.append(
                    fielderrors.invalid(involved_path, involved_namespace, "does not match event.namespace")
                )
        elif namespace != involved_namespace:
            errors.append(
                fielderrors.invalid(involved_path, involved_namespace, "does not match event.namespace")
            )
    else:
        if not involved_namespace and namespace not in ("default", "kube-system"):
            errors.append(
                fielderrors.invalid(involved_path, involved_namespace, "does not match event.namespace")
            )
        controller = fields.text(event, "reportingController") or fields.text(event, "reportingComponent")
        if not controller:
            errors.append(fielderrors.required(reporting_field))
        errors.extend(metadata.qualified_name(controller, reporting_field))
        for name, limit in (
            ("reportingInstance", REPORTING_INSTANCE_LIMIT),
            ("action", ACTION_LIMIT),
            ("reason", REASON_LIMIT),
        ):
            value = fields.text(event, name)
            if not value:
                errors.append(fielderrors.required(name))
            if len(value) > limit:
                errors.append(fielderrors.invalid(name, "", f"can have at most {limit} characters"))
        if len(fields.text(event, "message")) > NOTE_LIMIT:
            errors.append(fielderrors.invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    errors.extend(
        fielderrors.invalid("namespace", namespace, message)
        for message in names.dns1123_subdomain_errors(namespace)
    )
    return errors


def _series(event: dict[str, Any]) -> list[FieldError]:
    if event.get("series") is None:
        return []
    series = fields.mapping(event, "series")
    errors: list[FieldError] = []
    if (fields.integer(series, "count") or 0) < 2:
        errors.append(fielderrors.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errors.append(fielderrors.required("series.lastObservedTime"))
    return errors


def validate_core_event(event: dict[str, Any]) -> list[FieldError]:
    """A core/v1 Event; its name only has to be a valid path segment."""
    errors = _legacy(event, reporting_field="reportingComponent")
    errors.extend(
        metadata.validate_object_meta(
            event, namespaced=True, name_rule=metadata.path_segment_name, kube_finalizers=False
        )
    )
    return errors


def validate_core_event_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = _legacy(new, reporting_field="reportingComponent")
    errors.extend(metadata.validate_object_meta_update(new, old))
    return errors


def validate_event(event: dict[str, Any]) -> list[FieldError]:
    """An events.k8s.io/v1 Event: the legacy rules, then the strict ones."""
    core = as_core_event(event)
    errors = _legacy(core, reporting_field="reportingController")
    errors.extend(metadata.validate_object_meta(core, namespaced=True))
    errors.extend(_series(core))
    if not core.get("eventTime"):
        errors.append(fielderrors.required("eventTime"))
    kind = fields.text(core, "type")
    if kind not in EVENT_TYPES:
        errors.append(fielderrors.invalid("type", "", f"has invalid value: {kind}"))
    for name in ("firstTimestamp", "lastTimestamp", "count"):
        if core.get(name):
            errors.append(fielderrors.invalid(name, "", "needs to be unset"))
    source = fields.mapping(core, "source")
    if fields.text(source, "component") or fields.text(source, "host"):
        errors.append(fielderrors.invalid("source", "", "needs to be unset"))
    return errors


def validate_event_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    new_core, old_core = as_core_event(new), as_core_event(old)
    errors = _legacy(new_core, reporting_field="reportingController")
    errors.extend(metadata.validate_object_meta_update(new_core, old_core))
    if new_core.get("series") != old_core.get("series"):
        errors.extend(_series(new_core))
    for name in (
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "reportingController",
        "related",
        "reportingInstance",
        "action",
        "type",
        "eventTime",
    ):
        errors.extend(metadata.immutable(new_core.get(name), old_core.get(name), name))
    return errors
