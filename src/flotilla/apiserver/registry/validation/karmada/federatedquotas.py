"""Rules for a FederatedResourceQuota, as Karmada's validating webhook checks it.

The name is a DNS label at most 63 long (it becomes a label value on the quota's Works). Every
resource list — `spec.overall`, each assignment's `hard`, and the status's lists — holds resource
names and quantities a ResourceQuota accepts (`must be a standard resource for quota`, not
negative, whole for integer resources). Each static assignment names a valid cluster, once
(Karmada does not check duplicates; two assignments for one cluster would fight over its
ResourceQuota). Every resource an assignment limits is in `overall` (`assignment resourceName is
not exist in overall`), and `overall` is at least the sum of the assignments (`overall is less
than assignments`), each at its most precise field path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError, child, index, key
from flotilla.api.karmada.federatedquota import NAME_MAX, ResourceAmounts, add
from flotilla.api.karmada.registration import cluster_name_problems
from flotilla.apiserver.registry.validation import fields, resources
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object


def validate_federated_resource_quota(quota: Object) -> list[FieldError]:
    errors: list[FieldError] = []
    name = fields.text(fields.mapping(quota, "metadata"), "name")
    if len(name) > NAME_MAX:
        errors.append(
            fielderrors.invalid("metadata.name", name, f"must be no more than {NAME_MAX} characters")
        )
    spec = fields.mapping(quota, "spec")
    overall = _resource_list(fields.mapping(spec, "overall"), "spec.overall", errors)
    assigned: ResourceAmounts = {}
    seen: set[str] = set()
    for position, assignment in enumerate(fields.objects(spec, "staticAssignments")):
        path = index("spec.staticAssignments", position)
        cluster = fields.text(assignment, "clusterName")
        errors.extend(_cluster_name(cluster, child(path, "clusterName")))
        if cluster in seen:
            errors.append(fielderrors.duplicate(child(path, "clusterName"), cluster))
        seen.add(cluster)
        hard_path = child(path, "hard")
        hard = _resource_list(fields.mapping(assignment, "hard"), hard_path, errors)
        for resource in sorted(hard):
            if resource not in overall:
                errors.append(
                    fielderrors.invalid(
                        key(hard_path, resource), resource, "assignment resourceName is not exist in overall"
                    )
                )
        add(assigned, hard)
    for resource in sorted(overall):
        limit = overall[resource]
        if resource in assigned and limit < assigned[resource]:
            errors.append(
                fielderrors.invalid(
                    key("spec.overall", resource), str(limit), "overall is less than assignments"
                )
            )
    errors.extend(_status(fields.mapping(quota, "status")))
    return errors


def validate_federated_resource_quota_update(new: Object, old: Object) -> list[FieldError]:
    """Every field may change; the new object is checked as a new one."""
    return validate_federated_resource_quota(new)


def _status(status: Object) -> list[FieldError]:
    errors: list[FieldError] = []
    _resource_list(fields.mapping(status, "overall"), "status.overall", errors)
    _resource_list(fields.mapping(status, "overallUsed"), "status.overallUsed", errors)
    for position, cluster_status in enumerate(fields.objects(status, "aggregatedStatus")):
        path = index("status.aggregatedStatus", position)
        errors.extend(_cluster_name(fields.text(cluster_status, "clusterName"), child(path, "clusterName")))
        for name in ("hard", "used"):
            _resource_list(fields.mapping(cluster_status, name), child(path, name), errors)
    return errors


def _cluster_name(name: str, path: str) -> list[FieldError]:
    if not name:
        return [fielderrors.required(path)]
    return [fielderrors.invalid(path, name, problem) for problem in cluster_name_problems(name)]


def _resource_list(values: Mapping[str, Any], path: str, errors: list[FieldError]) -> ResourceAmounts:
    """The quantities of a quota's resource list, after recording what is wrong with it."""
    quantities: ResourceAmounts = {}
    for name in sorted(values):
        name_path = key(path, name)
        problems = resources.resource_name(name, name_path)
        if not problems and "/" not in name and not resources.is_standard(name):
            problems.append(fielderrors.invalid(name_path, name, "must be a standard resource for quota"))
        errors.extend(problems)
        quantity = resources.parsed(values[name], name_path, errors)
        if quantity is None:
            continue
        value_problems = resources.quantity_value(name, quantity, name_path)
        errors.extend(value_problems)
        if not problems and not value_problems:
            quantities[name] = quantity
    return quantities
