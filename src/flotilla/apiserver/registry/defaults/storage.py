"""Defaults of storage.k8s.io/v1 StorageClasses: `reclaimPolicy: Delete`, `volumeBindingMode: Immediate`."""

from __future__ import annotations

from typing import Any


def default_storage_class(storage_class: dict[str, Any]) -> None:
    if storage_class.get("reclaimPolicy") is None:
        storage_class["reclaimPolicy"] = "Delete"
    if storage_class.get("volumeBindingMode") is None:
        storage_class["volumeBindingMode"] = "Immediate"
