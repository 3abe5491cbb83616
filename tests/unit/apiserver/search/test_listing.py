"""Cross-cluster lists come in (cluster, namespace, name) order and page with continue points."""

from __future__ import annotations

from flotilla.apiserver.http.handlers.params import decode_continue, encode_continue
from flotilla.apiserver.search.listing import list_page, split_continue_point
from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import SearchCache
from tests.unit.apiserver.search.objects import PODS, pod


def _cache() -> SearchCache:
    cache = SearchCache()
    pods = cache.resource(PODS)
    pods.store("m2", [pod("b"), pod("a")])
    pods.store("m1", [pod("z", app="api"), pod("c")])
    return cache


def test_pages_follow_each_other_without_gaps_or_repeats() -> None:
    cache = _cache()
    pods = cache.resource(PODS)
    query = Query(PODS)
    seen, after = [], ""
    while True:
        page = list_page(pods, query, limit=3, after=after)
        seen += [(item.cluster, item.key) for item in page.items]
        if not page.last:
            break
        after = page.last
    assert seen == [("m1", "default/c"), ("m1", "default/z"), ("m2", "default/a"), ("m2", "default/b")]


def test_a_full_page_that_ends_the_list_has_no_continue_point() -> None:
    pods = _cache().resource(PODS)
    assert list_page(pods, Query(PODS), limit=4).last == ""
    assert list_page(pods, Query(PODS), limit=3).last == "m2/default/a"


def test_a_selected_page_counts_only_matches() -> None:
    pods = _cache().resource(PODS)
    page = list_page(pods, Query(PODS, label_selector="app=web"), limit=2)
    assert [(item.cluster, item.key) for item in page.items] == [("m1", "default/c"), ("m2", "default/a")]
    rest = list_page(pods, Query(PODS, label_selector="app=web"), limit=2, after=page.last)
    assert [(item.cluster, item.key) for item in rest.items] == [("m2", "default/b")]
    assert rest.last == ""


def test_a_continue_token_carries_the_revision_and_the_cluster_qualified_key() -> None:
    token = decode_continue(encode_continue(42, "m2/default/a"))
    assert token.revision == 42
    assert split_continue_point(token.start_after) == ("m2", "default/a")
