"""Queries select by namespace, name, labels (through the index) and the kind's field labels."""

from __future__ import annotations

import re

import pytest

from flotilla.api.selectors import SelectorError
from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import SearchCache
from tests.unit.apiserver.search.objects import DEPLOYMENTS, PODS, pod


def _selected(query: Query, cache: SearchCache) -> list[str]:
    pods = cache.resource(PODS)
    found = []
    for cluster in pods.cluster_names():
        objects = pods.objects(cluster)
        assert objects is not None
        found += [
            f"{cluster}:{key}"
            for key in query.candidates(objects)
            if query.matches(key, objects.entries[key])
        ]
    return found


@pytest.fixture
def cache() -> SearchCache:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store(
        "m1", [pod("a", "x", app="web"), pod("b", "x", app="api"), pod("c", "y", app="web", phase="Pending")]
    )
    pods.store("m2", [pod("a", "x", app="web", tier="front")])
    return cache


def test_an_equality_label_selector_uses_the_index_and_still_tests_the_rest(cache: SearchCache) -> None:
    assert _selected(Query(PODS, label_selector="app=web"), cache) == ["m1:x/a", "m1:y/c", "m2:x/a"]
    assert _selected(Query(PODS, label_selector="app in (web,api),tier"), cache) == ["m2:x/a"]
    assert _selected(Query(PODS, label_selector="app=nothing"), cache) == []


def test_set_based_selectors_without_equality_scan_the_namespace(cache: SearchCache) -> None:
    assert _selected(Query(PODS, label_selector="app!=web"), cache) == ["m1:x/b"]
    assert _selected(Query(PODS, namespace="y", label_selector="!tier"), cache) == ["m1:y/c"]


def test_field_selectors_read_the_kept_values(cache: SearchCache) -> None:
    assert _selected(Query(PODS, field_selector="status.phase=Pending"), cache) == ["m1:y/c"]
    assert _selected(Query(PODS, field_selector="metadata.name=a,metadata.namespace=x"), cache) == [
        "m1:x/a",
        "m2:x/a",
    ]


def test_a_name_and_namespace_pick_one_key_per_cluster(cache: SearchCache) -> None:
    assert _selected(Query(PODS, namespace="x", name="a"), cache) == ["m1:x/a", "m2:x/a"]


def test_bad_selectors_and_unknown_field_labels_are_refused_in_kubes_words() -> None:
    with pytest.raises(SelectorError):
        Query(PODS, label_selector="app in web")
    with pytest.raises(SelectorError, match=re.escape("field label not supported: spec.replicas")):
        Query(PODS, field_selector="spec.replicas=1")
    with pytest.raises(SelectorError, match=re.escape('"spec.replicas" is not a known field selector')):
        Query(DEPLOYMENTS, field_selector="spec.replicas=1")
