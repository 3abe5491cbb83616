from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables.storage import (
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    access_modes,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def meta(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "creationTimestamp": "2025-03-01T11:00:00Z", **extra}


def test_access_modes_use_short_names_in_fixed_order() -> None:
    """Access modes print as RWO,ROX,RWX,RWOP in that order, whatever the stored order."""
    assert (
        access_modes(["ReadWriteOncePod", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"])
        == "RWO,RWX,RWOP"
    )


def test_bound_volume_row() -> None:
    """A bound PV shows canonical capacity, claim as namespace/name and defaults for unset fields."""
    volume = {
        "metadata": meta("pv-1"),
        "spec": {
            "capacity": {"storage": "10240Mi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "standard",
            "claimRef": {"namespace": "default", "name": "data"},
            "persistentVolumeReclaimPolicy": "Delete",
        },
        "status": {"phase": "Bound"},
    }
    assert PERSISTENT_VOLUME.cells(volume, NOW) == [
        "pv-1",
        "10Gi",
        "RWO",
        "Delete",
        "Bound",
        "default/data",
        "standard",
        "<unset>",
        "",
        "60m",
        "Filesystem",
    ]


def test_volume_being_deleted_and_beta_class_annotation() -> None:
    """A deleting PV reads Terminating; the beta storage-class annotation wins over the field."""
    volume = {
        "metadata": meta(
            "pv-2",
            deletionTimestamp="2025-03-01T11:59:00Z",
            annotations={"volume.beta.kubernetes.io/storage-class": "old"},
        ),
        "spec": {"storageClassName": "new"},
        "status": {"phase": "Released"},
    }
    row = PERSISTENT_VOLUME.cells(volume, NOW)
    assert (row[1], row[3], row[4], row[6]) == ("0", "Retain", "Terminating", "old")


def test_claim_rows_bound_and_pending() -> None:
    """A bound claim shows its volume's capacity and modes; a pending one leaves them empty."""
    bound = {
        "metadata": meta("data"),
        "spec": {
            "volumeName": "pv-1",
            "storageClassName": "standard",
            "resources": {"requests": {"storage": "5Gi"}},
        },
        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]},
    }
    assert PERSISTENT_VOLUME_CLAIM.cells(bound, NOW) == [
        "data",
        "Bound",
        "pv-1",
        "10Gi",
        "RWO",
        "standard",
        "<unset>",
        "60m",
        "Filesystem",
    ]
    pending = {"metadata": meta("scratch"), "spec": {"resources": {"requests": {"storage": "1Gi"}}}}
    assert PERSISTENT_VOLUME_CLAIM.cells(pending, NOW)[1:5] == ["Pending", "", "", ""]


def test_storage_class_marks_default_and_fills_defaults() -> None:
    """The default class gets ` (default)`; reclaim and binding mode default to Delete and Immediate."""
    storage_class = {
        "metadata": meta("standard", annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
        "provisioner": "rancher.io/local-path",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    assert STORAGE_CLASS.cells(storage_class, NOW) == [
        "standard (default)",
        "rancher.io/local-path",
        "Delete",
        "WaitForFirstConsumer",
        False,
        "60m",
    ]
    plain = {
        "metadata": meta("fast"),
        "provisioner": "csi.example",
        "allowVolumeExpansion": True,
        "reclaimPolicy": "Retain",
    }
    assert STORAGE_CLASS.cells(plain, NOW)[:5] == ["fast", "csi.example", "Retain", "Immediate", True]
