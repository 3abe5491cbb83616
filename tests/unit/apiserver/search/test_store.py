"""The search cache numbers changes with one revision, skips non-changes, and tells watchers what matters."""

from __future__ import annotations

import orjson

from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import SearchCache
from flotilla.apiserver.search.watchers import Watcher
from tests.unit.apiserver.search.objects import DEPLOYMENTS, PODS, pod


def test_storing_numbers_each_change_with_the_caches_revision() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    assert pods.store("member1", [pod("a"), pod("b")]) == ["default/a", "default/b"]
    deployments = cache.resource(DEPLOYMENTS)
    deployments.store(
        "member1",
        [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "x"}}],
    )
    assert cache.revision == 3
    objects = pods.objects("member1")
    assert objects is not None
    assert [objects.entries[key].revision for key in ("default/a", "default/b")] == [1, 2]


def test_an_unchanged_object_keeps_its_revision_and_is_no_event() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("member1", [pod("a")])
    watcher = Watcher(Query(PODS))
    pods.watchers.add(watcher)
    relisted = pod("a")
    relisted["metadata"]["resourceVersion"] = "99"  # a member's revision is not the cache's content
    relisted["metadata"]["managedFields"] = []
    pods.store("member1", [relisted])
    assert cache.revision == 1
    assert not watcher.events


def test_a_change_that_leaves_a_query_is_a_deletion_to_its_watcher() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("member1", [pod("a")])
    watcher = Watcher(Query(PODS, label_selector="app=web"))
    pods.watchers.add(watcher)
    pods.store("member1", [pod("a", app="api")])
    pods.store("member1", [pod("a", app="web")])
    pods.delete("member1", "default/a")
    assert [(event.type, event.entry.revision) for event in watcher.events] == [
        ("DELETED", 2),
        ("ADDED", 3),
        ("DELETED", 4),
    ]


def test_dropping_a_cluster_deletes_only_its_objects_and_namespaces_outside_a_keep_list() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("member1", [pod("a", "x"), pod("b", "y")])
    pods.store("member2", [pod("a", "x")])
    assert pods.drop("member1", frozenset({"y"})) == 1
    assert sorted(pods.objects("member1").entries) == ["y/b"]  # type: ignore[union-attr]
    assert pods.drop("member1") == 1
    assert pods.cluster_names() == ["member2"]
    assert len(pods) == 1


def test_delete_missing_removes_what_a_relist_no_longer_returns_in_its_namespace() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("member1", [pod("a", "x"), pod("b", "x"), pod("c", "y")])
    assert pods.delete_missing("member1", ["x/a"], "x") == 1
    assert sorted(pods.objects("member1").entries) == ["x/a", "y/c"]  # type: ignore[union-attr]


def test_history_is_bounded_and_says_how_far_back_it_reaches() -> None:
    cache = SearchCache(history=2)
    pods = cache.resource(PODS)
    pods.store("member1", [pod("a"), pod("b"), pod("c")])
    assert pods.compacted_through == 1
    assert [change.revision for change in pods.changes_after(1)] == [2, 3]


def test_every_object_carries_the_cluster_it_came_from() -> None:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("member7", [pod("a")])
    entry = pods.objects("member7").entries["default/a"]  # type: ignore[union-attr]
    assert pods.codec is not None
    rendered = orjson.loads(pods.codec.render(entry))
    assert rendered["metadata"]["annotations"]["resource.karmada.io/cached-from-cluster"] == "member7"
