"""Validation of scheduling.k8s.io/v1: PriorityClasses.

A priority class has a fixed value, at most one billion unless it is one of the built-in
`system-` classes (whose names are reserved and whose values are fixed), and a known preemption
policy that never changes.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata

PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}


def validate_priority_class(priority_class: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(priority_class, namespaced=False)
    name = fields.text(fields.mapping(priority_class, "metadata"), "name")
    value = fields.integer(priority_class, "value") or 0
    if name.startswith("system-"):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            problem = f"{name} is not a known system priority class"
        elif known != value:
            problem = f"value of {name} PriorityClass must be {known}"
        else:
            problem = ""
        if problem:
            errors.append(
                fielderrors.forbidden(
                    "metadata.name",
                    "priority class names with 'system-' prefix are reserved for system use only. "
                    f"error: {problem}",
                )
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errors.append(
            fielderrors.forbidden(
                "value",
                f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}",
            )
        )
    policy = priority_class.get("preemptionPolicy")
    if policy is not None and policy not in PREEMPTION_POLICIES:
        errors.append(fielderrors.not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
    return errors


def validate_priority_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    if fields.integer(new, "value") != fields.integer(old, "value"):
        errors.append(fielderrors.forbidden("value", "may not be changed in an update."))
    errors.extend(
        metadata.immutable(new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy")
    )
    return errors
