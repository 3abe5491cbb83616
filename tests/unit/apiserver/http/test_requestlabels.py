"""Requests → the labels of `apiserver_request_total`, as kube-apiserver gives them."""

from __future__ import annotations

import pytest
from multidict import MultiDict

from flotilla.apiserver.http.requestlabels import RequestLabels, bounded, request_labels
from flotilla.apiserver.requestinfo import parse_request_info

APPLY = "application/apply-patch+yaml"


def labels(method: str, url: str, content_type: str = "application/json", route: str = "") -> RequestLabels:
    path, _, query_string = url.partition("?")
    query: MultiDict[str] = MultiDict(pair.partition("=")[::2] for pair in query_string.split("&") if pair)
    info = parse_request_info(path, method, query)
    return request_labels(method, info, query, content_type, route)


@pytest.mark.parametrize(
    ("method", "url", "content_type", "verb", "scope"),
    [
        ("GET", "/api/v1/namespaces/default/pods/p", "", "GET", "resource"),
        ("GET", "/api/v1/namespaces/default/pods", "", "LIST", "namespace"),
        ("GET", "/api/v1/pods", "", "LIST", "cluster"),
        ("HEAD", "/api/v1/nodes", "", "LIST", "cluster"),
        ("GET", "/api/v1/namespaces/default/pods?watch=true", "", "WATCH", "namespace"),
        ("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=5", "", "WATCH", "namespace"),
        ("GET", "/api/v1/namespaces/default/pods?watch=false", "", "LIST", "namespace"),
        ("GET", "/api/v1/namespaces/default/pods?watch=0", "", "LIST", "namespace"),
        ("POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", "POST", "resource"),
        ("PUT", "/apis/apps/v1/namespaces/default/deployments/d", "application/json", "PUT", "resource"),
        (
            "PATCH",
            "/apis/apps/v1/namespaces/default/deployments/d",
            "application/merge-patch+json",
            "PATCH",
            "resource",
        ),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d", APPLY, "APPLY", "resource"),
        ("DELETE", "/apis/apps/v1/namespaces/default/deployments/d", "", "DELETE", "resource"),
        ("DELETE", "/apis/apps/v1/namespaces/default/deployments", "", "DELETE", "namespace"),
        ("DELETE", "/api/v1/nodes", "", "DELETE", "cluster"),
        ("GET", "/api/v1/namespaces/default/pods/p/log", "", "CONNECT", "resource"),
        ("POST", "/api/v1/namespaces/default/pods/p/exec", "", "CONNECT", "resource"),
        ("BREW", "/api/v1/namespaces/default/pods/p", "", "other", "resource"),
    ],
)
def test_the_verb_and_scope_are_kubes(
    method: str, url: str, content_type: str, verb: str, scope: str
) -> None:
    """GET of a collection is LIST, a true `watch` is WATCH, server-side apply is APPLY, a create
    is POST with scope resource, a collection delete stays DELETE, streams are CONNECT."""
    found = labels(method, url, content_type)
    assert (found.verb, found.scope) == (verb, scope)


def test_a_resource_request_is_labelled_by_group_version_resource_and_subresource() -> None:
    found = labels("PUT", "/apis/apps/v1/namespaces/default/deployments/d/scale")
    assert found == RequestLabels("PUT", "", "apps", "v1", "deployments", "scale", "resource")
    core = labels("GET", "/api/v1/namespaces/default/configmaps/c")
    assert (core.group, core.version, core.resource, core.subresource) == ("", "v1", "configmaps", "")


@pytest.mark.parametrize(
    ("query", "dry_run"),
    [("", ""), ("?dryRun=All", "All"), ("?dryRun=All&dryRun=All", "All"), ("?dryRun=Some", "invalid")],
)
def test_dry_run_is_empty_the_sorted_values_or_invalid(query: str, dry_run: str) -> None:
    assert labels("POST", f"/api/v1/namespaces/default/configmaps{query}").dry_run == dry_run


def test_a_non_resource_request_is_labelled_by_its_route_with_an_empty_scope() -> None:
    """Discovery and /openapi carry their route's pattern, never the path a client typed."""
    found = labels("GET", "/openapi/v3/apis/apps/v1", route="/openapi/v3/{key}")
    assert found == RequestLabels("GET", "", "", "", "", "/openapi/v3/{key}", "")
    assert labels("GET", "/version", route="/version").subresource == "/version"


def test_error_answers_for_what_is_not_served_lose_the_client_typed_labels() -> None:
    """A 404 for a made-up resource or subresource must not add a series per made-up name."""
    served = {("apps", "v1", "deployments", ""), ("apps", "v1", "deployments", "scale")}

    def is_served(group: str, version: str, resource: str, subresource: str) -> bool:
        return (group, version, resource, subresource) in served

    made_up = labels("GET", "/apis/made.up/v9/whatevers/x")
    assert bounded(made_up, is_served) == RequestLabels("GET", "", "", "", "", "", "resource")
    bad_subresource = labels("GET", "/apis/apps/v1/namespaces/default/deployments/d/junk")
    assert bounded(bad_subresource, is_served).subresource == ""
    assert bounded(bad_subresource, is_served).resource == "deployments"
    scale = labels("GET", "/apis/apps/v1/namespaces/default/deployments/d/scale")
    assert bounded(scale, is_served) == scale
