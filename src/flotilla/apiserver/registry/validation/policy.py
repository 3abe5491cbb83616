"""Validation of policy/v1: PodDisruptionBudgets.

A disruption budget sets `minAvailable` or `maxUnavailable` (never both) as a count or percentage
of at most 100%, selects its pods with a well-formed label selector, and names a known unhealthy
pod eviction policy.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata, scalars

UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


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
