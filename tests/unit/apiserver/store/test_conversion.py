"""Objects leave storage at the version asked for and enter it at the storage version, pruned to each."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.registry.customresources import served_for_crd
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.cachedobjects import CachedObject
from flotilla.apiserver.store.conversion import (
    CONVERT_ON_LOOP,
    all_at_version,
    all_at_version_bounded,
    at_version,
    for_storage,
    matching_at_version,
)

GIZMO_V1 = {
    "type": "object",
    "properties": {"spec": {"type": "object", "properties": {"color": {"type": "string"}}}},
}
GIZMO_V2 = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {"color": {"type": "string"}, "shine": {"type": "string"}}}
    },
}


def gizmo_crd(*, second: bool = True, stored: tuple[str, ...] = ("v1",)) -> dict[str, Any]:
    versions: list[dict[str, Any]] = [
        {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": GIZMO_V1}}
    ]
    if second:
        versions.append(
            {
                "name": "v2",
                "served": True,
                "storage": False,
                "schema": {"openAPIV3Schema": GIZMO_V2},
                "selectableFields": [{"jsonPath": ".spec.color"}],
            }
        )
    return {
        "metadata": {"name": "gizmos.example.com", "resourceVersion": "5"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "gizmos", "kind": "Gizmo"},
            "versions": versions,
        },
        "status": {"storedVersions": list(stored)},
    }


def served(version: str, crd: dict[str, Any] | None = None) -> ServedResource:
    return next(s for s in served_for_crd(crd or gizmo_crd()) if s.type.version == version)


def stored(version: str = "v1", **spec: Any) -> CachedObject:
    obj = {
        "apiVersion": f"example.com/{version}",
        "kind": "Gizmo",
        "metadata": {"name": "g", "namespace": "ns", "resourceVersion": "11"},
        "spec": spec,
    }
    return CachedObject("/registry/example.com/gizmos/ns/g", "ns", "g", 11, obj, created=10)


def test_an_object_is_served_at_the_version_asked_for() -> None:
    """Read at v2, an object stored at v1 is converted; at v1 it is the cached object itself."""
    item = stored(color="red")
    assert at_version(served("v1"), item) is item
    converted = at_version(served("v2"), item)
    assert converted.obj["apiVersion"] == "example.com/v2" and converted.obj["spec"] == {"color": "red"}
    assert (converted.key, converted.revision, converted.created) == (item.key, 11, 10)
    assert item.obj["apiVersion"] == "example.com/v1", "the cached object is never changed"


def test_a_converted_object_is_pruned_to_the_schema_of_its_version() -> None:
    """A field the target version does not know is dropped (kube's schema coercion after conversion)."""
    once_stored_at_v2 = gizmo_crd(stored=("v2", "v1"))
    read = at_version(served("v1", once_stored_at_v2), stored("v2", color="red", shine="gloss"))
    assert read.obj["spec"] == {"color": "red"}
    write = {
        "apiVersion": "example.com/v2",
        "kind": "Gizmo",
        "metadata": {"name": "g"},
        "spec": {"shine": "x"},
    }
    assert for_storage(served("v2"), write) == {
        "apiVersion": "example.com/v1",
        "kind": "Gizmo",
        "metadata": {"name": "g"},
        "spec": {},
    }


def test_a_kind_of_one_version_converts_nothing() -> None:
    """No conversion at all: the very sequence comes back, and writes are stored as they are."""
    only = served("v1", gizmo_crd(second=False))
    items = [stored(color="red")]
    assert all_at_version(only, items) is items
    write = {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {}}
    assert for_storage(only, write) is write


def test_field_selectors_judge_objects_at_the_version_asked_for() -> None:
    """A predicate on a converting kind with selectable fields sees the converted object."""
    seen: list[str] = []

    def predicate(item: CachedObject) -> bool:
        seen.append(item.obj["apiVersion"])
        return True

    wrapped = matching_at_version(served("v2"), predicate)
    assert wrapped is not None and wrapped(stored(color="red"))
    assert seen == ["example.com/v2"]
    assert matching_at_version(served("v1"), predicate) is predicate, "v1 has no selectable fields"
    assert matching_at_version(served("v2"), None) is None


def test_an_object_at_a_version_the_converter_does_not_know_is_an_internal_error() -> None:
    """A binding stored at a version Karmada never had cannot be served: a Status, not a traceback."""
    crd = {
        "metadata": {"name": "resourcebindings.work.karmada.io"},
        "spec": {
            "group": "work.karmada.io",
            "names": {"plural": "resourcebindings", "kind": "ResourceBinding"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": False},
                {"name": "v1alpha2", "served": True, "storage": True},
            ],
        },
    }
    binding = served("v1alpha1", crd)
    item = CachedObject("/k", "ns", "b", 3, {"apiVersion": "work.karmada.io/v9", "kind": "ResourceBinding"})
    with pytest.raises(errors.InternalError, match=r"only work\.karmada\.io/v1alpha1 and"):
        at_version(binding, item)


async def test_many_objects_are_converted_off_the_event_loop_all_the_same() -> None:
    """A long list is converted in a worker thread, item for item as on the loop, order kept."""
    items = [stored(color=str(n)) for n in range(CONVERT_ON_LOOP + 5)]
    converted = await all_at_version_bounded(served("v2"), items)
    assert [item.obj["apiVersion"] for item in converted] == ["example.com/v2"] * len(items)
    assert [item.obj["spec"]["color"] for item in converted] == [str(n) for n in range(len(items))]
    few = items[:3]
    assert [i.obj for i in await all_at_version_bounded(served("v2"), few)] == [
        i.obj for i in all_at_version(served("v2"), few)
    ]


def test_the_version_every_object_is_stored_at_converts_nothing() -> None:
    """v1 stores every object (the only stored version): reading and writing it skip conversion
    altogether, so the version the controllers use costs nothing; v2 still converts."""
    assert served("v1").custom is not None and served("v1").custom.conversion is None
    assert served("v2").custom is not None and served("v2").custom.conversion is not None
