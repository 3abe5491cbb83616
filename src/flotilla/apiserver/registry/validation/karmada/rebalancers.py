"""Rules for a WorkloadRebalancer: at least one workload, each named in full.

Karmada has no webhook for this kind; its CRD requires `spec.workloads` with at least one item,
each with `apiVersion`, `kind` and `name`. Those checks are repeated here (for objects that never
met a schema), and two more refuse what could never work: a namespace that is not a valid
namespace name (no binding could live there), and a negative `ttlSecondsAfterFinished` (kube's
wording for the same field of a Job).
"""

from __future__ import annotations

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError, child, index
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object
from flotilla.apiserver.registry.validation.metadata import nonnegative


def validate_workload_rebalancer(rebalancer: Object) -> list[FieldError]:
    spec = fields.mapping(rebalancer, "spec")
    errors = _workloads(spec, "spec.workloads")
    ttl = fields.integer(spec, "ttlSecondsAfterFinished")
    if ttl is not None:
        errors += nonnegative(ttl, "spec.ttlSecondsAfterFinished")
    return errors


def validate_workload_rebalancer_update(new: Object, old: Object) -> list[FieldError]:
    """A changed spec is a new request (Karmada re-syncs the list), checked as a create."""
    return validate_workload_rebalancer(new)


def _workloads(spec: Object, path: str) -> list[FieldError]:
    workloads = spec.get("workloads")
    if workloads is None:
        return [fielderrors.required(path)]
    if workloads == []:
        return [fielderrors.invalid(path, 0, "should have at least 1 items")]
    errors: list[FieldError] = []
    for position, workload in enumerate(fields.items(spec, "workloads")):
        workload_path = index(path, position)
        if not isinstance(workload, dict):
            errors.append(fielderrors.invalid(workload_path, workload, "must be an object"))
            continue
        for key in ("apiVersion", "kind", "name"):
            if not fields.text(workload, key):
                errors.append(fielderrors.required(child(workload_path, key)))
        namespace = fields.text(workload, "namespace")
        errors += [
            fielderrors.invalid(child(workload_path, "namespace"), namespace, problem)
            for problem in (names.dns1123_label_errors(namespace) if namespace else [])
        ]
    return errors
