"""Validation of coordination.k8s.io/v1: Leases.

A lease's duration is positive, its transition count not negative, and its strategy a known one.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata

LEASE_STRATEGIES = ("OldestEmulationVersion",)


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
