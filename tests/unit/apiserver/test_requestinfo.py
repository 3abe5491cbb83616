"""What a resource request asks for, read from its path, method and query as kube-apiserver's RequestInfo."""

from __future__ import annotations

import pytest
from multidict import MultiDict

from flotilla.apiserver.requestinfo import RequestInfo, parse_request_info


def parse(path: str, method: str = "GET", **query: str) -> RequestInfo | None:
    return parse_request_info(path, method, MultiDict(query))


def test_a_core_collection_is_group_empty_and_version_from_the_path() -> None:
    """/api/v1/pods lists pods of every namespace in the core group."""
    assert parse("/api/v1/pods") == RequestInfo("", "v1", "", "pods", "", "", "list")


def test_a_group_path_names_its_group_and_version() -> None:
    """/apis/<group>/<version>/… reads the group and version from the two segments after /apis."""
    info = parse("/apis/apps/v1/namespaces/default/deployments/web")
    assert info == RequestInfo("apps", "v1", "default", "deployments", "web", "", "get")


@pytest.mark.parametrize(
    ("path", "namespace", "resource", "name", "subresource"),
    [
        ("/api/v1/namespaces/default/pods", "default", "pods", "", ""),
        ("/api/v1/namespaces/default/pods/web", "default", "pods", "web", ""),
        ("/api/v1/namespaces/default/pods/web/status", "default", "pods", "web", "status"),
        ("/apis/apps/v1/namespaces/team/deployments/web/scale", "team", "deployments", "web", "scale"),
    ],
)
def test_a_namespaced_path_yields_its_namespace_resource_name_and_subresource(
    path: str, namespace: str, resource: str, name: str, subresource: str
) -> None:
    """namespaces/<ns>/<resource>[/<name>[/<subresource>]] is the resource inside that namespace."""
    info = parse(path)
    assert info is not None
    assert (info.namespace, info.resource, info.name, info.subresource) == (
        namespace,
        resource,
        name,
        subresource,
    )


def test_the_namespaces_collection_is_cluster_scoped() -> None:
    """/api/v1/namespaces lists namespaces: no namespace of its own."""
    assert parse("/api/v1/namespaces") == RequestInfo("", "v1", "", "namespaces", "", "", "list")


def test_one_namespace_is_both_the_name_and_the_namespace_of_the_request() -> None:
    """/api/v1/namespaces/<ns> is the Namespace object <ns>, in namespace <ns> (as kube sets both)."""
    assert parse("/api/v1/namespaces/team") == RequestInfo("", "v1", "team", "namespaces", "team", "", "get")


@pytest.mark.parametrize("subresource", ["status", "finalize"])
def test_status_and_finalize_of_a_namespace_address_the_namespace_itself(subresource: str) -> None:
    """namespaces/<ns>/status and /finalize are subresources of the Namespace, not a resource in it."""
    info = parse(f"/api/v1/namespaces/team/{subresource}", "PUT")
    assert info == RequestInfo("", "v1", "team", "namespaces", "team", subresource, "update")


@pytest.mark.parametrize("subresource", ["log", "proxy", "exec", "binding", "eviction", "token"])
def test_connect_and_action_subresources_are_read_like_any_other(subresource: str) -> None:
    """pods/<name>/log, /proxy and the rest: the third segment is the subresource."""
    info = parse(f"/api/v1/namespaces/default/pods/web/{subresource}")
    assert info is not None and (info.name, info.subresource) == ("web", subresource)


@pytest.mark.parametrize(
    ("method", "named", "verb"),
    [
        ("GET", True, "get"),
        ("HEAD", True, "get"),
        ("GET", False, "list"),
        ("HEAD", False, "list"),
        ("POST", False, "create"),
        ("POST", True, "create"),
        ("PUT", True, "update"),
        ("PATCH", True, "patch"),
        ("DELETE", True, "delete"),
        ("DELETE", False, "deletecollection"),
    ],
)
def test_the_verb_follows_the_method_and_whether_a_name_is_given(method: str, named: bool, verb: str) -> None:
    """GET is get or list, DELETE is delete or deletecollection, POST create, PUT update, PATCH patch."""
    path = "/api/v1/namespaces/default/configmaps" + ("/settings" if named else "")
    info = parse(path, method)
    assert info is not None and info.verb == verb


@pytest.mark.parametrize("value", ["true", "1", "True", "yes", ""])
def test_watch_in_the_query_makes_a_list_a_watch(value: str) -> None:
    """`watch` is read as kube reads a boolean parameter: present and not 0 or false is true."""
    info = parse("/api/v1/namespaces/default/configmaps", watch=value)
    assert info is not None and info.verb == "watch"


@pytest.mark.parametrize("value", ["false", "0", "FALSE"])
def test_watch_false_or_0_keeps_a_list_a_list(value: str) -> None:
    """watch=false and watch=0 are a plain list."""
    info = parse("/api/v1/namespaces/default/configmaps", watch=value)
    assert info is not None and info.verb == "list"


def test_watch_in_the_query_of_a_named_get_keeps_it_a_get() -> None:
    """As in kube only a collection is watched: GET …/configmaps/a?watch=true reads the object a."""
    info = parse("/api/v1/namespaces/default/configmaps/settings", watch="true")
    assert info is not None and (info.verb, info.name) == ("get", "settings")


def test_watch_in_the_query_of_a_write_changes_nothing() -> None:
    """Only reads become watches: a POST with ?watch=true is still a create."""
    info = parse("/api/v1/namespaces/default/configmaps", "POST", watch="true")
    assert info is not None and info.verb == "create"


def test_a_collection_is_a_request_without_a_name() -> None:
    """is_collection says whether the request addresses a collection."""
    listed, named = parse("/api/v1/pods"), parse("/api/v1/namespaces/default/pods/web")
    assert listed is not None and listed.is_collection
    assert named is not None and not named.is_collection


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/api",
        "/api/v1",
        "/api/v1/",
        "/apis",
        "/apis/apps",
        "/apis/apps/v1",
        "/healthz",
        "/version",
        "/openapi/v3",
        "/metrics",
    ],
)
def test_discovery_and_non_resource_paths_are_not_resource_requests(path: str) -> None:
    """Paths that name no resource (discovery, health, version, OpenAPI) parse to None."""
    assert parse(path) is None


def test_a_path_deeper_than_a_subresource_is_not_a_resource_request_unless_it_is_a_proxy() -> None:
    """resource/name/subresource is the deepest form served; what follows `proxy` is the proxy's own path."""
    assert parse("/api/v1/pods/web/status/extra") is None
    info = parse("/api/v1/namespaces/default/services/web/proxy/healthz")
    assert info == RequestInfo("", "v1", "default", "services", "web", "proxy", "get")


def test_empty_segments_are_ignored() -> None:
    """Doubled and trailing slashes do not shift the segments."""
    assert parse("/api/v1//namespaces/default/pods/") == parse("/api/v1/namespaces/default/pods")


@pytest.mark.parametrize(("method", "verb"), [("GET", "get"), ("POST", "create"), ("DELETE", "delete")])
def test_a_proxy_path_is_the_clusters_proxy_subresource_whatever_follows(method: str, verb: str) -> None:
    """kube's RequestInfo leaves what follows `proxy` to the handler: the request is `clusters/proxy`."""
    info = parse("/apis/cluster.karmada.io/v1alpha1/clusters/edge-12/proxy/api/v1/pods", method, watch="true")
    assert info == RequestInfo("cluster.karmada.io", "v1alpha1", "", "clusters", "edge-12", "proxy", verb)
