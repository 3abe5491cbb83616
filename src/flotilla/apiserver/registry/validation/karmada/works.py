"""Sanity rules for Work, the per-cluster manifests the execution controller applies to a member.

Every manifest is an object that names what it is (apiVersion, kind and metadata.name), so a
member can apply it; manifest health takes Karmada's values.
"""

from __future__ import annotations

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError, child
from flotilla.api.karmada.constants import ResourceHealth
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.registry.validation.karmada.fieldchecks import Object, one_of


def validate_work(work: Object) -> list[FieldError]:
    """Every manifest names what it is: apiVersion, kind and metadata.name."""
    errors: list[FieldError] = []
    manifests = fields.items(fields.mapping(fields.mapping(work, "spec"), "workload"), "manifests")
    for position, manifest in enumerate(manifests):
        manifest_path = f"spec.workload.manifests[{position}]"
        if not isinstance(manifest, dict):
            errors.append(fielderrors.invalid(manifest_path, manifest, "must be an object"))
            continue
        for key in ("apiVersion", "kind"):
            if not fields.text(manifest, key):
                errors.append(fielderrors.required(child(manifest_path, key)))
        if not fields.text(fields.mapping(manifest, "metadata"), "name"):
            errors.append(fielderrors.required(child(manifest_path, "metadata.name")))
    for position, status in enumerate(fields.objects(fields.mapping(work, "status"), "manifestStatuses")):
        errors += one_of(status, "health", f"status.manifestStatuses[{position}]", ResourceHealth)
    return errors


def validate_work_update(new: Object, old: Object) -> list[FieldError]:
    return validate_work(new)
