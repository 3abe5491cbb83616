"""The controller index follows the cache's changes and answers what each controller owns."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.store.controllerindex import ControllerIndex, controller_uid
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent

PREFIX = "/registry/pods/"


def pod(name: str, owner: str | None, revision: int = 1, namespace: str = "ns") -> CachedObject:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if owner is not None:
        metadata["ownerReferences"] = [
            {"uid": "other", "controller": False},
            {"uid": owner, "controller": True},
        ]
    return CachedObject(
        f"{PREFIX}{namespace}/{name}", namespace, name, revision, {"metadata": metadata}, revision
    )


def names(objects: list[dict[str, Any]]) -> list[str]:
    return [obj["metadata"]["name"] for obj in objects]


def test_the_controller_is_the_reference_marked_controller() -> None:
    """Only a `controller: true` reference counts; none means an orphan."""
    assert controller_uid(pod("a", "rs-1").obj) == "rs-1"
    assert controller_uid(pod("a", None).obj) == ""


def test_objects_are_grouped_by_namespace_and_controller_in_key_order() -> None:
    """Each controller sees its own objects of its namespace, orphans sit under the empty uid."""
    index = ControllerIndex(PREFIX, [pod("b", "rs-1"), pod("a", "rs-1"), pod("c", "rs-2"), pod("d", None)])
    index.apply(CacheEvent("ADDED", pod("e", "rs-1", namespace="elsewhere"), None))
    assert names(index.objects("ns", "rs-1")) == ["a", "b"]
    assert names(index.objects("ns", "rs-2")) == ["c"]
    assert names(index.objects("ns", "")) == ["d"]
    assert names(index.objects("elsewhere", "rs-1")) == ["e"]
    assert index.objects("ns", "unknown") == []


def test_adoption_release_and_deletion_move_objects_between_groups() -> None:
    """A change of controller moves the object; a deletion drops it; other prefixes are ignored."""
    index = ControllerIndex(PREFIX, [pod("a", None), pod("b", "rs-1")])
    index.apply(CacheEvent("MODIFIED", pod("a", "rs-1", revision=2), pod("a", None)))
    assert names(index.objects("ns", "rs-1")) == ["a", "b"]
    assert index.objects("ns", "") == []
    index.apply(CacheEvent("MODIFIED", pod("b", None, revision=3), pod("b", "rs-1")))
    assert names(index.objects("ns", "rs-1")) == ["a"]
    assert names(index.objects("ns", "")) == ["b"]
    index.apply(CacheEvent("DELETED", pod("a", "rs-1", revision=4), None))
    assert index.objects("ns", "rs-1") == []
    other = CachedObject("/registry/services/ns/a", "ns", "a", 5, {"metadata": {"name": "a"}}, 5)
    index.apply(CacheEvent("ADDED", other, None))
    assert index.objects("ns", "") == [pod("b", None).obj]


def test_the_latest_state_is_returned() -> None:
    """An update replaces the indexed object with the new one."""
    index = ControllerIndex(PREFIX, [pod("a", "rs-1")])
    updated = pod("a", "rs-1", revision=2)
    updated.obj["status"] = {"phase": "Running"}
    index.apply(CacheEvent("MODIFIED", updated, pod("a", "rs-1")))
    assert index.objects("ns", "rs-1")[0]["status"] == {"phase": "Running"}
