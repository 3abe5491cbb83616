"""The compact store: objects read back equal to what was stored, only the recently used kept decoded."""

from __future__ import annotations

from flotilla.api.objectkeys import ObjectKey
from flotilla.client.compactstore import CompactStore


def obj(name: str, **labels: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}


def test_objects_read_back_equal_and_the_least_recently_used_are_kept_as_json() -> None:
    store = CompactStore(hot=2)
    keys = [ObjectKey("default", name) for name in ("a", "b", "c")]
    for key in keys:
        store[key] = obj(key.name, team="red")
    assert len(store) == 3 and list(store) == keys and keys[0] in store
    first = store[keys[0]]  # cold: decoded again, now hot
    assert first == obj("a", team="red")
    assert store[keys[0]] is first  # hot: the same dict until it cools
    store[keys[1]]
    store[keys[2]]  # a is the least recently used of three, with two hot
    assert store[keys[0]] is not first and store[keys[0]] == first


def test_peek_decodes_without_warming_and_deletion_forgets_both_forms() -> None:
    store = CompactStore(hot=1)
    a, b = ObjectKey("", "a"), ObjectKey("", "b")
    store[a] = obj("a")
    store[b] = obj("b")  # a cools
    hot_b = store[b]
    assert store.peek(a) == obj("a") and store.peek(a) is not store.peek(a)
    assert store[b] is hot_b  # peeking at a did not push b out
    del store[b]
    assert b not in store and store.get(b) is None and len(store) == 1
    assert store.pop(a) == obj("a") and len(store) == 0


def test_a_loaded_object_is_cold_until_read() -> None:
    """What a relist loads costs its JSON only; the first read decodes it and keeps it hot."""
    store = CompactStore(hot=4)
    key = ObjectKey("default", "a")
    store.load(key, obj("a"))
    first = store.get(key)
    assert first == obj("a") and store.get(key) is first
    assert store.get(ObjectKey("default", "missing"), "absent") == "absent"
