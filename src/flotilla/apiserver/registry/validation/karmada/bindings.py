"""Sanity rules for ResourceBinding and ClusterResourceBinding, which Karmada's controllers write.

A binding names its resource template (apiVersion, kind, name); replicas are not negative, neither
in the spec nor per target cluster; target clusters are named and each named once; a graceful
eviction task says from where, why and who asked, and its grace period and `suppressDeletion` are
exclusive; aggregated health takes Karmada's values.
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError, child
from flotilla.api.karmada.constants import ConflictResolution, ResourceHealth
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object, one_of


def validate_resource_binding(binding: Object) -> list[FieldError]:
    spec = fields.mapping(binding, "spec")
    resource = fields.mapping(spec, "resource")
    errors = [
        fielderrors.required(f"spec.resource.{key}")
        for key in ("apiVersion", "kind", "name")
        if not fields.text(resource, key)
    ]
    errors += _not_negative(spec, "replicas", "spec")
    errors += one_of(spec, "conflictResolution", "spec", ConflictResolution)
    seen: set[str] = set()
    for position, target in enumerate(fields.objects(spec, "clusters")):
        target_path = f"spec.clusters[{position}]"
        name = fields.text(target, "name")
        if not name:
            errors.append(fielderrors.required(child(target_path, "name")))
        elif name in seen:
            errors.append(fielderrors.duplicate(child(target_path, "name"), name))
        seen.add(name)
        errors += _not_negative(target, "replicas", target_path)
    for position, task in enumerate(fields.objects(spec, "gracefulEvictionTasks")):
        task_path = f"spec.gracefulEvictionTasks[{position}]"
        for key in ("fromCluster", "reason", "producer"):
            if not fields.text(task, key):
                errors.append(fielderrors.required(child(task_path, key)))
        if task.get("gracePeriodSeconds") is not None and task.get("suppressDeletion") is not None:
            errors.append(
                fielderrors.forbidden(
                    child(task_path, "suppressDeletion"),
                    "gracePeriodSeconds and suppressDeletion are exclusive",
                )
            )
    for position, item in enumerate(fields.objects(fields.mapping(binding, "status"), "aggregatedStatus")):
        errors += one_of(item, "health", f"status.aggregatedStatus[{position}]", ResourceHealth)
    return errors


def validate_resource_binding_update(new: Object, old: Object) -> list[FieldError]:
    return validate_resource_binding(new)


def _not_negative(obj: Object, key: str, path: str) -> list[FieldError]:
    value = fields.integer(obj, key)
    if value is not None and value < 0:
        return [fielderrors.invalid(child(path, key), value, "must be greater than or equal to 0")]
    return []
