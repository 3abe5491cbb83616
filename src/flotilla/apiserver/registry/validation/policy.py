"""Validation of the small cluster-operation kinds: PodDisruptionBudgets (policy/v1), PriorityClasses
(scheduling.k8s.io/v1) and Leases (coordination.k8s.io/v1).

A disruption budget sets `minAvailable` or `maxUnavailable` (never both) as a count or percentage. A
priority class has a fixed value, at most one billion unless it is one of the built-in `system-`
classes. A lease's duration is positive and its transition count not negative.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata, scalars

UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}
LEASE_STRATEGIES = ("OldestEmulationVersion",)


# --- PodDisruptionBudget ------------------------------------------------------------------------


def validate_pod_disruption_budget(budget: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(budget, namespaced=True)
    spec = fields.mapping(budget, "spec")
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(fielderrors.invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
    for name in ("minAvailable", "maxUnavailable"):
        if spec.get(name) is not None:
            path = fielderrors.child("spec", name)
            errors.extend(scalars.positive_int_or_percent(spec[name], path))
            errors.extend(scalars.not_more_than_100_percent(spec[name], path))
    errors.extend(validate_label_selector(spec.get("selector"), "spec.selector"))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errors.append(
            fielderrors.not_supported(
                "spec.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES
            )
        )
    return errors


def validate_pod_disruption_budget_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_pod_disruption_budget(new))
    return errors


# --- PriorityClass ------------------------------------------------------------------------------


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


# --- Lease --------------------------------------------------------------------------------------


def validate_lease(lease: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(lease, namespaced=True)
    spec = fields.mapping(lease, "spec")
    duration = fields.integer(spec, "leaseDurationSeconds")
    if duration is not None and duration <= 0:
        errors.append(fielderrors.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = fields.integer(spec, "leaseTransitions")
    if transitions is not None and transitions < 0:
        errors.append(
            fielderrors.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0")
        )
    strategy = spec.get("strategy")
    if strategy is not None and strategy not in LEASE_STRATEGIES:
        errors.append(fielderrors.not_supported("spec.strategy", strategy, LEASE_STRATEGIES))
    return errors


def validate_lease_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_lease(new))
    return errors
