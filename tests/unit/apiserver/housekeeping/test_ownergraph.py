"""The ownership index, fed with hand-made cache events."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.housekeeping.ownergraph import OwnerGraph, OwnerReference, owner_references
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent

PREFIX = "/registry/core/configmaps/default/"


def configmap(
    name: str,
    uid: str,
    *,
    owners: tuple[str, ...] = (),
    blocking: bool = False,
    finalizers: tuple[str, ...] = (),
    deleting: bool = False,
    revision: int = 1,
) -> CachedObject:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": uid}
    if owners:
        meta["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "name": f"of-{o}",
                "uid": o,
                "blockOwnerDeletion": blocking,
            }
            for o in owners
        ]
    if finalizers:
        meta["finalizers"] = list(finalizers)
    if deleting:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    return CachedObject(PREFIX + name, "default", name, revision, obj)


def added(obj: CachedObject) -> CacheEvent:
    return CacheEvent("ADDED", obj, None)


def modified(obj: CachedObject, prev: CachedObject) -> CacheEvent:
    return CacheEvent("MODIFIED", obj, prev)


def deleted(obj: CachedObject) -> CacheEvent:
    return CacheEvent("DELETED", obj, obj)


def graph_with(*objects: CachedObject) -> OwnerGraph:
    graph = OwnerGraph()
    for obj in objects:
        graph.observe(added(obj))
    return graph


def test_an_object_without_owners_asks_for_nothing() -> None:
    """An object that names no owner and that nobody names is never looked at."""
    graph = OwnerGraph()
    plain = configmap("plain", "u-plain")
    assert graph.observe(added(plain)) == []
    assert graph.observe(modified(configmap("plain", "u-plain", revision=2), plain)) == []
    assert graph.observe(deleted(plain)) == []
    assert graph.key_of("u-plain") is None


def test_a_new_dependent_is_looked_at_and_indexed_under_its_owner() -> None:
    """A dependent that appears is judged once and listed among its owner's dependents."""
    graph = OwnerGraph()
    assert graph.observe(added(configmap("dep", "u-dep", owners=("u-owner",)))) == [PREFIX + "dep"]
    assert graph.dependents("u-owner") == [PREFIX + "dep"]
    assert graph.has_dependents("u-owner")


def test_an_unchanged_dependent_is_not_looked_at_again() -> None:
    """A modification that keeps the owner references asks for nothing."""
    first = configmap("dep", "u-dep", owners=("u-owner",))
    graph = graph_with(first)
    again = configmap("dep", "u-dep", owners=("u-owner",), revision=2)
    assert graph.observe(modified(again, first)) == []


def test_changed_references_move_the_dependent_between_owners() -> None:
    """When a dependent names another owner, the index follows and the dependent is judged again."""
    first = configmap("dep", "u-dep", owners=("u-a",))
    graph = graph_with(first)
    moved = configmap("dep", "u-dep", owners=("u-b",), revision=2)
    assert graph.observe(modified(moved, first)) == [PREFIX + "dep"]
    assert graph.dependents("u-a") == []
    assert graph.dependents("u-b") == [PREFIX + "dep"]


def test_a_deleted_owner_brings_up_its_dependents() -> None:
    """Every dependent of an object that goes away is looked at (it may have lost its last owner)."""
    owner = configmap("owner", "u-owner")
    graph = graph_with(
        owner,
        configmap("a", "u-a", owners=("u-owner",)),
        configmap("b", "u-b", owners=("u-owner", "u-other")),
    )
    assert graph.key_of("u-owner") == PREFIX + "owner"
    assert graph.observe(deleted(owner)) == [PREFIX + "a", PREFIX + "b"]
    assert graph.key_of("u-owner") is None


def test_a_deleted_dependent_leaves_the_index() -> None:
    """A dependent that goes away is no longer listed under its owners."""
    dependent = configmap("dep", "u-dep", owners=("u-owner",))
    graph = graph_with(configmap("owner", "u-owner"), dependent)
    assert graph.observe(deleted(dependent)) == []
    assert not graph.has_dependents("u-owner")
    assert graph.references(PREFIX + "dep") == ()


def test_foreground_deletion_brings_up_the_owner_and_its_dependents_once() -> None:
    """A foreground deletion brings up the owner and all its dependents at first, later only the owner."""
    owner = configmap("owner", "u-owner")
    graph = graph_with(owner, configmap("dep", "u-dep", owners=("u-owner",)))
    deleting = configmap("owner", "u-owner", finalizers=("foregroundDeletion",), deleting=True, revision=2)
    assert graph.observe(modified(deleting, owner)) == [PREFIX + "owner", PREFIX + "dep"]
    assert graph.is_deleting_dependents(PREFIX + "owner")
    later = configmap("owner", "u-owner", finalizers=("foregroundDeletion", "x/y"), deleting=True, revision=3)
    assert graph.observe(modified(later, deleting)) == [PREFIX + "owner"]


def test_a_departing_dependent_wakes_its_foreground_owner() -> None:
    """A dependent deleted while its owner waits in the foreground brings the owner up."""
    owner = configmap("owner", "u-owner", finalizers=("foregroundDeletion",), deleting=True)
    dependent = configmap("dep", "u-dep", owners=("u-owner",), blocking=True)
    graph = graph_with(owner, dependent)
    assert graph.observe(deleted(dependent)) == [PREFIX + "owner"]


def test_a_dependent_dropping_its_reference_wakes_its_foreground_owner() -> None:
    """A dependent that stops naming a foreground-deleting owner brings that owner up."""
    owner = configmap("owner", "u-owner", finalizers=("foregroundDeletion",), deleting=True)
    dependent = configmap("dep", "u-dep", owners=("u-owner",), blocking=True)
    graph = graph_with(owner, dependent)
    released = configmap("dep", "u-dep", revision=2)
    assert graph.observe(modified(released, dependent)) == [PREFIX + "owner"]


def test_unblocking_a_reference_wakes_its_foreground_owner() -> None:
    """Clearing blockOwnerDeletion changes the reference, so the waiting owner looks again."""
    owner = configmap("owner", "u-owner", finalizers=("foregroundDeletion",), deleting=True)
    dependent = configmap("dep", "u-dep", owners=("u-owner",), blocking=True)
    graph = graph_with(owner, dependent)
    unblocked = configmap("dep", "u-dep", owners=("u-owner",), revision=2)
    assert graph.observe(modified(unblocked, dependent)) == [PREFIX + "dep", PREFIX + "owner"]


def test_a_dependent_dropping_a_live_owner_wakes_nobody_else() -> None:
    """Owners that are not deleting in the foreground do not care that a dependent left them."""
    dependent = configmap("dep", "u-dep", owners=("u-owner",))
    graph = graph_with(configmap("owner", "u-owner"), dependent)
    assert graph.observe(modified(configmap("dep", "u-dep", revision=2), dependent)) == []


def test_orphan_deletion_brings_up_the_owner() -> None:
    """An owner deleted with the orphan finalizer is looked at, its dependents are not."""
    owner = configmap("owner", "u-owner")
    graph = graph_with(owner, configmap("dep", "u-dep", owners=("u-owner",)))
    orphaning = configmap("owner", "u-owner", finalizers=("orphan",), deleting=True, revision=2)
    assert graph.observe(modified(orphaning, owner)) == [PREFIX + "owner"]
    assert not graph.is_deleting_dependents(PREFIX + "owner")


def test_a_deleting_object_with_other_finalizers_asks_for_nothing() -> None:
    """deletionTimestamp with only a user finalizer is none of the collector's business."""
    plain = configmap("held", "u-held")
    graph = graph_with(plain)
    held = configmap("held", "u-held", finalizers=("example.com/hold",), deleting=True, revision=2)
    assert graph.observe(modified(held, plain)) == []


def test_rebuild_indexes_the_cache_and_lists_what_needs_a_look() -> None:
    """A rebuild forgets the old index and asks for every dependent and every deleting owner."""
    graph = graph_with(configmap("stale", "u-stale", owners=("u-gone",)))
    keys = graph.rebuild(
        [
            configmap("plain", "u-plain"),
            configmap("dep", "u-dep", owners=("u-owner",)),
            configmap("owner", "u-owner", finalizers=("foregroundDeletion",), deleting=True),
            configmap("orphaning", "u-orphaning", finalizers=("orphan",), deleting=True),
        ]
    )
    assert keys == [PREFIX + "dep", PREFIX + "owner", PREFIX + "orphaning"]
    assert graph.dependents("u-gone") == []
    assert graph.key_of("u-plain") == PREFIX + "plain"
    assert graph.is_deleting_dependents(PREFIX + "owner")
    assert graph.any_dependent_deleting_dependents("u-nobody") is False


def test_owner_references_skip_malformed_entries() -> None:
    """Entries that are not objects or have no uid are ignored; flags are read strictly as booleans."""
    meta = {
        "ownerReferences": [
            "nonsense",
            {"kind": "ConfigMap", "name": "x"},
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1", "controller": True},
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u2", "blockOwnerDeletion": "true"},
        ]
    }
    assert owner_references(meta) == (
        OwnerReference("apps/v1", "Deployment", "web", "u1", controller=True),
        OwnerReference("v1", "Pod", "p", "u2"),
    )
    assert owner_references({"ownerReferences": "bad"}) == ()
