"""StorageClasses get kube's default reclaim policy and volume binding mode."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

STORAGE_CLASS = GroupVersionKind("storage.k8s.io", "v1", "StorageClass")


def test_storage_classes_delete_and_bind_immediately() -> None:
    """Delete and Immediate are kube's defaults."""
    storage_class = defaulted(STORAGE_CLASS, {"provisioner": "example.com/ssd"})
    assert (storage_class["reclaimPolicy"], storage_class["volumeBindingMode"]) == ("Delete", "Immediate")
