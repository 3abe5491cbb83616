"""The search API's paths parse as kube's request parser reads them in front of karmada-search."""

from __future__ import annotations

from multidict import MultiDict

from flotilla.apiserver.http.limits import is_long_running
from flotilla.apiserver.requestinfo import RequestInfo, parse_request_info


def test_a_search_is_a_get_of_search_cache_with_the_native_root_as_subresource() -> None:
    parsed = parse_request_info(
        "/apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/namespaces/x/deployments",
        "GET",
        MultiDict(watch="true"),
    )
    assert parsed == RequestInfo("search.karmada.io", "v1alpha1", "", "search", "cache", "apis", "get")
    core = parse_request_info("/apis/search.karmada.io/v1alpha1/search/cache/api/v1/pods", "GET", MultiDict())
    assert core is not None and (core.resource, core.name, core.subresource) == ("search", "cache", "api")


def test_search_requests_are_long_running() -> None:
    assert is_long_running("get", "api")
    assert is_long_running("get", "apis")
