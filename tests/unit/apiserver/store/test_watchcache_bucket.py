"""The watch cache's per-resource bucket: key order, namespaces, continuing after a key."""

from __future__ import annotations

from flotilla.apiserver.store.watchcache import Bucket, CachedObject

PREFIX = "/registry/configmaps/"


def _object(namespace: str, name: str, revision: int = 1) -> CachedObject:
    key = f"{PREFIX}{namespace}/{name}"
    return CachedObject(key, namespace, name, revision, {"metadata": {"name": name, "namespace": namespace}})


def _names(objects: list[CachedObject]) -> list[str]:
    return [f"{o.namespace}/{o.name}" for o in objects]


def test_lists_in_key_order_per_namespace_and_overall() -> None:
    bucket = Bucket(PREFIX)
    for namespace, name in [("b", "2"), ("a", "9"), ("b", "1"), ("a", "10")]:
        bucket.put(_object(namespace, name))
    assert _names(bucket.list()) == ["a/10", "a/9", "b/1", "b/2"]
    assert _names(bucket.list("b")) == ["b/1", "b/2"]
    assert bucket.list("missing") == []


def test_after_starts_past_the_given_key_even_when_it_is_gone() -> None:
    bucket = Bucket(PREFIX)
    for name in ["a", "b", "c", "d"]:
        bucket.put(_object("ns", name))
    assert _names(bucket.list("ns", after=f"{PREFIX}ns/b")) == ["ns/c", "ns/d"]
    bucket.remove(f"{PREFIX}ns/b")
    assert _names(bucket.list("ns", after=f"{PREFIX}ns/b")) == ["ns/c", "ns/d"]
    assert _names(bucket.list(after=f"{PREFIX}ns/d")) == []


def test_the_order_follows_keys_that_come_and_go_but_updates_keep_it() -> None:
    bucket = Bucket(PREFIX)
    bucket.put(_object("ns", "m"))
    assert _names(bucket.list("ns")) == ["ns/m"]
    bucket.put(_object("ns", "a"))
    bucket.put(_object("other", "z"))
    assert _names(bucket.list("ns")) == ["ns/a", "ns/m"]
    assert _names(bucket.list()) == ["ns/a", "ns/m", "other/z"]
    bucket.put(_object("ns", "a", revision=2))
    assert [o.revision for o in bucket.list("ns")] == [2, 1]
    bucket.remove(f"{PREFIX}ns/m")
    assert _names(bucket.list("ns")) == ["ns/a"]
    assert _names(bucket.list()) == ["ns/a", "other/z"]
