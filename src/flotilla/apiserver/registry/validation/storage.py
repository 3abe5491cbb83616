"""Validation of persistent storage: PersistentVolumeClaims, PersistentVolumes and StorageClasses.

A claim asks for storage (`accessModes`, `resources.requests.storage`); kube freezes its spec once
created except for the bound volume name and, for bound claims, growing the request. A StorageClass
names a provisioner and its parameters, none of which may change later.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.api.quantities import ZERO, QuantityError, parse_quantity
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata, resources
from flotilla.apiserver.registry.validation.equality import semantic_equal

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
CLASS_RECLAIM_POLICIES = ("Delete", "Retain")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
PARAMETERS_SIZE_LIMIT = 256 * 1024


def validate_claim_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """kube's `ValidatePersistentVolumeClaimSpec`."""
    errors: list[FieldError] = []
    errors.extend(_access_modes(fields.items(spec, "accessModes"), fielderrors.child(path, "accessModes")))
    if spec.get("selector") is not None:
        errors.extend(validate_label_selector(spec["selector"], fielderrors.child(path, "selector")))
    storage_path = fielderrors.key(fielderrors.child(path, "resources"), "storage")
    requests = fields.mapping(fields.mapping(spec, "resources"), "requests")
    if "storage" not in requests:
        errors.append(fielderrors.required(storage_path))
    else:
        storage = resources.parsed(requests["storage"], storage_path, errors)
        if storage is not None and storage <= ZERO:
            errors.append(fielderrors.invalid(storage_path, str(storage), "must be greater than zero"))
        elif storage is not None:
            errors.extend(resources.quantity_value("storage", storage, storage_path))
    class_name = fields.text(spec, "storageClassName")
    if class_name:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "storageClassName"), class_name, message)
            for message in metadata.dns_subdomain_name(class_name, False)
        )
    volume_mode = spec.get("volumeMode")
    if isinstance(volume_mode, str) and volume_mode not in VOLUME_MODES:
        errors.append(
            fielderrors.not_supported(fielderrors.child(path, "volumeMode"), volume_mode, VOLUME_MODES)
        )
    for source_name in ("dataSource", "dataSourceRef"):
        if spec.get(source_name) is not None:
            source = fields.mapping(spec, source_name)
            source_path = fielderrors.child(path, source_name)
            errors.extend(
                fielderrors.required(fielderrors.child(source_path, name))
                for name in ("name", "kind")
                if not fields.text(source, name)
            )
    return errors


def _access_modes(modes: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not modes:
        errors.append(fielderrors.required(path, "at least 1 access mode is required"))
    errors.extend(
        fielderrors.not_supported(path, mode, ACCESS_MODES) for mode in modes if mode not in ACCESS_MODES
    )
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        errors.append(fielderrors.forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errors


def validate_claim(claim: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(claim, namespaced=True)
    errors.extend(validate_claim_spec(fields.mapping(claim, "spec"), "spec"))
    return errors


def _storage_request(claim: dict[str, Any]) -> Any:
    return fields.mapping(fields.mapping(fields.mapping(claim, "spec"), "resources"), "requests").get(
        "storage"
    )


def validate_claim_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Claims are immutable but for the bound volume, the volume attributes class and growing."""
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_claim(new))
    new_spec = copy.deepcopy(fields.mapping(new, "spec"))
    old_spec = copy.deepcopy(fields.mapping(old, "spec"))
    if not fields.text(old_spec, "volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")
    new_spec.pop("volumeAttributesClassName", None)
    old_spec.pop("volumeAttributesClassName", None)
    bound = fields.text(fields.mapping(old, "status"), "phase") == "Bound"
    if bound:
        new_requests = fields.mapping(fields.mapping(new_spec, "resources"), "requests")
        if "storage" in new_requests:
            new_requests["storage"] = _storage_request(old)
    if not semantic_equal(_canonical_requests(new_spec), _canonical_requests(old_spec)):
        errors.append(
            fielderrors.forbidden(
                "spec",
                "spec is immutable after creation except resources.requests and volumeAttributesClassName "
                "for bound claims",
            )
        )
    try:
        if parse_quantity(_storage_request(new)) < parse_quantity(_storage_request(old)):
            errors.append(
                fielderrors.forbidden(
                    "spec.resources.requests.storage", "field can not be less than previous value"
                )
            )
    except QuantityError:
        pass
    return errors


def _canonical_requests(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with quantities compared by amount, as kube's semantic equality does."""
    result = dict(spec)
    claim_resources = dict(fields.mapping(spec, "resources"))
    for section in ("requests", "limits"):
        if section in claim_resources:
            claim_resources[section] = {
                name: _amount(value) for name, value in fields.mapping(claim_resources, section).items()
            }
    result["resources"] = claim_resources
    return result


def _amount(value: Any) -> Any:
    try:
        return parse_quantity(value).amount
    except QuantityError:
        return value


_VOLUME_SOURCES = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "cinder",
    "cephfs",
    "fc",
    "flocker",
    "flexVolume",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "local",
    "storageos",
    "csi",
)


def validate_volume(volume: dict[str, Any]) -> list[FieldError]:
    """The essentials of a PersistentVolume: capacity, access modes, one source, known policies."""
    errors = metadata.validate_object_meta(volume, namespaced=False)
    spec = fields.mapping(volume, "spec")
    errors.extend(_access_modes(fields.items(spec, "accessModes"), "spec.accessModes"))
    capacity = fields.mapping(spec, "capacity")
    if "storage" not in capacity:
        errors.append(fielderrors.required("spec.capacity", "must specify storage"))
    else:
        _, capacity_errors = resources.resource_list(capacity, "spec.capacity")
        errors.extend(capacity_errors)
    present = [source for source in _VOLUME_SOURCES if spec.get(source) is not None]
    if not present:
        errors.append(fielderrors.required("spec", "must specify a volume type"))
    errors.extend(
        fielderrors.forbidden(fielderrors.child("spec", extra), "may not specify more than 1 volume type")
        for extra in present[1:]
    )
    policy = spec.get("persistentVolumeReclaimPolicy")
    if isinstance(policy, str) and policy not in RECLAIM_POLICIES:
        errors.append(
            fielderrors.not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES)
        )
    volume_mode = spec.get("volumeMode")
    if isinstance(volume_mode, str) and volume_mode not in VOLUME_MODES:
        errors.append(fielderrors.not_supported("spec.volumeMode", volume_mode, VOLUME_MODES))
    return errors


def validate_volume_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_volume(new))
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    errors.extend(metadata.immutable(new_spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode"))
    return errors


def validate_storage_class(storage_class: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(storage_class, namespaced=False)
    provisioner = fields.text(storage_class, "provisioner")
    if not provisioner:
        errors.append(fielderrors.required("provisioner"))
    else:
        errors.extend(metadata.qualified_name(provisioner.lower(), "provisioner"))
    parameters = fields.mapping(storage_class, "parameters")
    if "" in parameters:
        errors.append(fielderrors.required("parameters"))
    size = sum(len(key) + len(str(value)) for key, value in parameters.items())
    if size > PARAMETERS_SIZE_LIMIT:
        errors.append(fielderrors.too_long("parameters", PARAMETERS_SIZE_LIMIT))
    policy = storage_class.get("reclaimPolicy")
    if isinstance(policy, str) and policy not in CLASS_RECLAIM_POLICIES:
        errors.append(fielderrors.not_supported("reclaimPolicy", policy, CLASS_RECLAIM_POLICIES))
    binding = storage_class.get("volumeBindingMode")
    if binding is None:
        errors.append(fielderrors.required("volumeBindingMode"))
    elif binding not in BINDING_MODES:
        errors.append(fielderrors.not_supported("volumeBindingMode", binding, BINDING_MODES))
    return errors


def validate_storage_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_storage_class(new))
    if fields.mapping(new, "parameters") != fields.mapping(old, "parameters"):
        errors.append(fielderrors.forbidden("parameters", "updates to parameters are forbidden."))
    if fields.text(new, "provisioner") != fields.text(old, "provisioner"):
        errors.append(fielderrors.forbidden("provisioner", "updates to provisioner are forbidden."))
    if fields.text(new, "reclaimPolicy") != fields.text(old, "reclaimPolicy"):
        errors.append(fielderrors.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    errors.extend(
        metadata.immutable(new.get("volumeBindingMode"), old.get("volumeBindingMode"), "volumeBindingMode")
    )
    return errors
