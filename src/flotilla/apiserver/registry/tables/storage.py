"""Tables for volumes: PersistentVolume, PersistentVolumeClaim (core) and StorageClass (storage.k8s.io).

Access modes print in their short forms in a fixed order (`RWO,ROX,RWX,RWOP`); the storage class
still honours the beta annotation that predates `storageClassName`; capacities are canonical
quantities. Defaults Kubernetes applies on write (`Retain`/`Delete` reclaim, `Filesystem` volume
mode, `Pending` phase, `Immediate` binding) are assumed when a stored object lacks them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.quantities import format_quantity
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer, wide
from flotilla.apiserver.registry.tables.objects import (
    child,
    created,
    deleting,
    flag,
    items,
    mapping,
    name,
    optional_text,
    string_map,
    text,
)

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def access_modes(modes: list[Any]) -> str:
    """Access modes in short form and Kubernetes' fixed order, duplicates dropped."""
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _storage_class(obj: dict[str, Any]) -> str:
    annotations = string_map(obj, "metadata", "annotations")
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return text(obj, "spec", "storageClassName")


def _attributes_class(obj: dict[str, Any]) -> str:
    value = optional_text(obj, "spec", "volumeAttributesClassName")
    return "<unset>" if value is None else value


def _volume_row(volume: dict[str, Any], now: datetime) -> list[Cell]:
    claim = child(volume, "spec", "claimRef")
    claim_cell = f"{text(claim, 'namespace')}/{text(claim, 'name')}" if isinstance(claim, dict) else ""
    phase = "Terminating" if deleting(volume) else text(volume, "status", "phase") or "Pending"
    return [
        name(volume),
        format_quantity(mapping(volume, "spec", "capacity").get("storage")),
        access_modes(items(volume, "spec", "accessModes")),
        text(volume, "spec", "persistentVolumeReclaimPolicy") or "Retain",
        phase,
        claim_cell,
        _storage_class(volume),
        _attributes_class(volume),
        text(volume, "status", "reason"),
        since(created(volume), now),
        text(volume, "spec", "volumeMode") or "Filesystem",
    ]


PERSISTENT_VOLUME = Printer(
    (
        NAME,
        Column("Capacity", "string", description=swagger_doc("PersistentVolumeSpec.capacity")),
        Column("Access Modes", "string", description=swagger_doc("PersistentVolumeSpec.accessModes")),
        Column(
            "Reclaim Policy",
            "string",
            description=swagger_doc("PersistentVolumeSpec.persistentVolumeReclaimPolicy"),
        ),
        Column("Status", "string", description=swagger_doc("PersistentVolumeStatus.phase")),
        Column("Claim", "string", description=swagger_doc("PersistentVolumeSpec.claimRef")),
        Column("StorageClass", "string", description="StorageClass of the pv"),
        Column("VolumeAttributesClass", "string", description="VolumeAttributesClass of the pv"),
        Column("Reason", "string", description=swagger_doc("PersistentVolumeStatus.reason")),
        AGE,
        wide("VolumeMode", swagger_doc("PersistentVolumeSpec.volumeMode")),
    ),
    _volume_row,
)


def _claim_row(claim: dict[str, Any], now: datetime) -> list[Cell]:
    volume_name = text(claim, "spec", "volumeName")
    capacity = modes = ""
    if volume_name:
        # Capacity and modes are those of the bound volume, reported in the claim's status.
        capacity = format_quantity(mapping(claim, "status", "capacity").get("storage"))
        modes = access_modes(items(claim, "status", "accessModes"))
    phase = "Terminating" if deleting(claim) else text(claim, "status", "phase") or "Pending"
    return [
        name(claim),
        phase,
        volume_name,
        capacity,
        modes,
        _storage_class(claim),
        _attributes_class(claim),
        since(created(claim), now),
        text(claim, "spec", "volumeMode") or "Filesystem",
    ]


PERSISTENT_VOLUME_CLAIM = Printer(
    (
        NAME,
        Column("Status", "string", description=swagger_doc("PersistentVolumeClaimStatus.phase")),
        Column("Volume", "string", description=swagger_doc("PersistentVolumeClaimSpec.volumeName")),
        Column("Capacity", "string", description=swagger_doc("PersistentVolumeClaimStatus.capacity")),
        Column("Access Modes", "string", description=swagger_doc("PersistentVolumeClaimStatus.accessModes")),
        Column("StorageClass", "string", description="StorageClass of the pvc"),
        Column("VolumeAttributesClass", "string", description="VolumeAttributesClass of the pvc"),
        AGE,
        wide("VolumeMode", swagger_doc("PersistentVolumeClaimSpec.volumeMode")),
    ),
    _claim_row,
)


def _storage_class_row(storage_class: dict[str, Any], now: datetime) -> list[Cell]:
    annotations = string_map(storage_class, "metadata", "annotations")
    default = any(annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)
    return [
        name(storage_class) + (" (default)" if default else ""),
        text(storage_class, "provisioner"),
        text(storage_class, "reclaimPolicy") or "Delete",
        text(storage_class, "volumeBindingMode") or "Immediate",
        flag(storage_class, "allowVolumeExpansion"),
        since(created(storage_class), now),
    ]


STORAGE_CLASS = Printer(
    (
        NAME,
        Column("Provisioner", "string", description=swagger_doc("StorageClass.provisioner")),
        Column("ReclaimPolicy", "string", description=swagger_doc("StorageClass.reclaimPolicy")),
        Column("VolumeBindingMode", "string", description=swagger_doc("StorageClass.volumeBindingMode")),
        Column(
            "AllowVolumeExpansion", "string", description=swagger_doc("StorageClass.allowVolumeExpansion")
        ),
        AGE,
    ),
    _storage_class_row,
)
