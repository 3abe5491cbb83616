"""Tests for the `/openapi/v3` group version documents, root index and hashes, on real definitions."""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from flotilla.api.builtin import BUILTIN_RESOURCES
from flotilla.api.scheme import GroupVersion, GroupVersionKind, ResourceType, Subresource
from flotilla.apiserver.http.openapi import (
    OpenAPIBuilder,
    ResourceTypeSpec,
    document_hash,
    group_version_key,
    root_document,
    serialize_document,
)
from flotilla.apiserver.registry.schema.builtin import builtin_schemas

APPS_V1 = GroupVersion("apps", "v1")
CORE_V1 = GroupVersion("", "v1")
EXAMPLE_V1 = GroupVersion("example.com", "v1")
DEPLOYMENT_ITEM = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
SMP = "application/strategic-merge-patch+json"

WIDGET = ResourceType(
    "example.com",
    "v1",
    "Widget",
    "widgets",
    "widget",
    namespaced=True,
    subresources=(
        Subresource("status", ("get", "patch", "update")),
        Subresource("scale", ("get", "patch", "update"), GroupVersionKind("autoscaling", "v1", "Scale")),
    ),
)
WIDGET_SCHEMA = {"type": "object", "properties": {"spec": {"type": "object"}}}


def _builtin_group_versions() -> dict[GroupVersion, list[ResourceTypeSpec]]:
    by_group_version: dict[GroupVersion, list[ResourceTypeSpec]] = defaultdict(list)
    for resource in BUILTIN_RESOURCES:
        by_group_version[resource.group_version].append(ResourceTypeSpec(resource))
    return by_group_version


BUILTIN_GROUP_VERSIONS = _builtin_group_versions()


@pytest.fixture(scope="module")
def builder() -> OpenAPIBuilder:
    return OpenAPIBuilder(builtin_schemas().definitions)


@pytest.fixture(scope="module")
def apps_document(builder: OpenAPIBuilder) -> dict[str, Any]:
    return builder.group_version_document(APPS_V1, BUILTIN_GROUP_VERSIONS[APPS_V1])


@pytest.fixture(scope="module")
def widget_document(builder: OpenAPIBuilder) -> dict[str, Any]:
    return builder.group_version_document(EXAMPLE_V1, [ResourceTypeSpec(WIDGET, WIDGET_SCHEMA)])


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def _schema_types(schema: Any) -> Iterator[Any]:
    """Every `type` keyword value in a schema, descending only into schema-valued keywords."""
    if not isinstance(schema, dict):
        return
    if "type" in schema:
        yield schema["type"]
    for key in ("properties", "patternProperties"):
        for sub in schema.get(key, {}).values():
            yield from _schema_types(sub)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            yield from _schema_types(sub)
    for key in ("items", "additionalProperties", "not"):
        yield from _schema_types(schema.get(key))


def _dangling_references(document: dict[str, Any]) -> set[str]:
    schemas = document["components"]["schemas"]
    references = {value for key, value in _walk(document) if key == "$ref" and isinstance(value, str)}
    prefix = "#/components/schemas/"
    return {ref for ref in references if not ref.startswith(prefix) or ref[len(prefix) :] not in schemas}


def test_deployment_patch_declares_field_validation(apps_document: dict[str, Any]) -> None:
    """The Deployment PATCH operation lists `fieldValidation` as a query parameter, as kubectl checks."""
    patch = apps_document["paths"][DEPLOYMENT_ITEM]["patch"]
    assert {"name": "fieldValidation", "in": "query"}.items() <= next(
        parameter for parameter in patch["parameters"] if parameter["name"] == "fieldValidation"
    ).items()
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "kind": "Deployment",
        "version": "v1",
    }
    assert patch["x-kubernetes-action"] == "patch"


def test_deployment_patch_accepts_strategic_merge_patch(apps_document: dict[str, Any]) -> None:
    """Built-in kinds list all four patch media types, so `kubectl apply` sends a strategic merge patch."""
    content = apps_document["paths"][DEPLOYMENT_ITEM]["patch"]["requestBody"]["content"]
    assert set(content) == {
        "application/json-patch+json",
        "application/merge-patch+json",
        SMP,
        "application/apply-patch+yaml",
    }


def test_deployment_schema_has_gvk_and_properties(apps_document: dict[str, Any]) -> None:
    """`components.schemas` carries the Deployment with its GVK and `spec` → DeploymentSpec."""
    deployment = apps_document["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    assert deployment["properties"]["spec"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}
    ]
    replicas = apps_document["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]
    assert replicas["replicas"]["type"] == "integer"


@pytest.mark.parametrize("group_version", list(BUILTIN_GROUP_VERSIONS), ids=str)
def test_builtin_documents_have_no_null_types(builder: OpenAPIBuilder, group_version: GroupVersion) -> None:
    """No schema of any built-in document keeps a `null` type or a list of types."""
    document = builder.group_version_document(group_version, BUILTIN_GROUP_VERSIONS[group_version])
    types = [t for schema in document["components"]["schemas"].values() for t in _schema_types(schema)]
    assert types, "the walk must find types"
    assert all(isinstance(t, str) and t != "null" for t in types)


@pytest.mark.parametrize("group_version", list(BUILTIN_GROUP_VERSIONS), ids=str)
def test_builtin_documents_resolve_every_reference(
    builder: OpenAPIBuilder, group_version: GroupVersion
) -> None:
    """Every `$ref` of every built-in document names a schema in the same document."""
    document = builder.group_version_document(group_version, BUILTIN_GROUP_VERSIONS[group_version])
    assert _dangling_references(document) == set()


def test_dangling_reference_check_can_fail(apps_document: dict[str, Any]) -> None:
    """The reference check reports a schema removed from the document (it is not vacuous)."""
    schemas = dict(apps_document["components"]["schemas"])
    del schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
    broken = {**apps_document, "components": {"schemas": schemas}}
    assert "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in _dangling_references(
        broken
    )


def test_namespaced_resource_has_all_namespaces_collection_and_item_paths(
    apps_document: dict[str, Any],
) -> None:
    """A namespaced resource is served across namespaces, per namespace and per item."""
    paths = apps_document["paths"]
    all_namespaces = paths["/apis/apps/v1/deployments"]
    assert set(all_namespaces) == {"get", "parameters"}
    assert all_namespaces["get"]["operationId"] == "listAppsV1DeploymentForAllNamespaces"
    collection = paths["/apis/apps/v1/namespaces/{namespace}/deployments"]
    assert {"get", "post", "delete"} <= set(collection)
    assert collection["delete"]["x-kubernetes-action"] == "deletecollection"
    assert {"get", "put", "patch", "delete"} <= set(paths[DEPLOYMENT_ITEM])
    list_parameters = {parameter["name"] for parameter in collection["get"]["parameters"]}
    assert {
        "labelSelector",
        "fieldSelector",
        "limit",
        "continue",
        "watch",
        "resourceVersion",
    } <= list_parameters


def test_scale_subresource_speaks_autoscaling_scale(apps_document: dict[str, Any]) -> None:
    """`deployments/scale` operations carry the autoscaling/v1 Scale GVK and schema."""
    scale = apps_document["paths"][f"{DEPLOYMENT_ITEM}/scale"]
    assert scale["patch"]["x-kubernetes-group-version-kind"]["kind"] == "Scale"
    assert scale["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"
    }
    assert "io.k8s.api.autoscaling.v1.Scale" in apps_document["components"]["schemas"]
    assert scale["put"]["description"] == "replace scale of the specified Deployment"


def test_core_document_follows_kube_naming(builder: OpenAPIBuilder) -> None:
    """Core paths live under /api/v1; operation ids and tags follow kube's `CoreV1` naming."""
    document = builder.group_version_document(CORE_V1, BUILTIN_GROUP_VERSIONS[CORE_V1])
    pods = document["paths"]["/api/v1/namespaces/{namespace}/pods"]
    assert pods["post"]["operationId"] == "createCoreV1NamespacedPod"
    assert pods["post"]["description"] == "create a Pod"
    assert pods["post"]["tags"] == ["core_v1"]
    namespace = document["paths"]["/api/v1/namespaces/{name}"]
    assert namespace["patch"]["operationId"] == "patchCoreV1Namespace"
    assert [parameter["name"] for parameter in namespace["parameters"]] == ["name", "pretty"]


def test_verbs_limit_operations(builder: OpenAPIBuilder) -> None:
    """Namespaces have no deletecollection verb, so their collection path has no DELETE."""
    document = builder.group_version_document(CORE_V1, BUILTIN_GROUP_VERSIONS[CORE_V1])
    assert set(document["paths"]["/api/v1/namespaces"]) == {"get", "post", "parameters"}


def _delete_answers(document: dict[str, Any], path: str) -> dict[str, str]:
    responses = document["paths"][path]["delete"]["responses"]
    return {
        code: response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        for code, response in responses.items()
        if "content" in response
    }


def test_a_delete_declares_the_object_where_the_server_answers_with_it(
    builder: OpenAPIBuilder, widget_document: dict[str, Any]
) -> None:
    """As kube declares it: a pod's and a custom resource's delete answer with the object, a
    ConfigMap's with a Status, and a deletecollection with a Status (the schemathesis run's finding)."""
    core = builder.group_version_document(CORE_V1, BUILTIN_GROUP_VERSIONS[CORE_V1])
    pod = _delete_answers(core, "/api/v1/namespaces/{namespace}/pods/{name}")
    assert pod == {"200": "io.k8s.api.core.v1.Pod", "202": "io.k8s.api.core.v1.Pod"}
    configmap = _delete_answers(core, "/api/v1/namespaces/{namespace}/configmaps/{name}")
    assert set(configmap.values()) == {"io.k8s.apimachinery.pkg.apis.meta.v1.Status"}
    widget = _delete_answers(widget_document, "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}")
    assert set(widget.values()) == {"com.example.v1.Widget"}
    collection = _delete_answers(widget_document, "/apis/example.com/v1/namespaces/{namespace}/widgets")
    assert collection == {"200": "io.k8s.apimachinery.pkg.apis.meta.v1.Status"}


def test_custom_resource_document_has_no_strategic_merge_patch(widget_document: dict[str, Any]) -> None:
    """A CRD's PATCH operations omit SMP, so kubectl falls back to JSON merge patch."""
    item = widget_document["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]
    for path, path_item in widget_document["paths"].items():
        if "patch" in path_item:
            assert SMP not in path_item["patch"]["requestBody"]["content"], path
    assert "application/merge-patch+json" in item["patch"]["requestBody"]["content"]


def test_custom_resource_document_publishes_the_crd_schema(widget_document: dict[str, Any]) -> None:
    """The CRD's kind and list schemas are published with GVKs and every reference resolves."""
    schemas = widget_document["components"]["schemas"]
    assert schemas["com.example.v1.Widget"]["properties"]["spec"] == {"type": "object"}
    assert schemas["com.example.v1.WidgetList"]["x-kubernetes-group-version-kind"][0]["kind"] == "WidgetList"
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in schemas
    assert _dangling_references(widget_document) == set()
    status = widget_document["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"]
    assert status["patch"]["x-kubernetes-group-version-kind"]["kind"] == "Widget"
    assert "io.k8s.api.autoscaling.v1.Scale" in schemas


def test_resource_without_any_schema_is_a_schemaless_custom_kind(builder: OpenAPIBuilder) -> None:
    """A kind neither built in nor given a CRD schema is a bare object patched by merge patches."""
    gadget = ResourceType("example.com", "v1", "Gadget", "gadgets", "gadget", namespaced=False)
    document = builder.group_version_document(EXAMPLE_V1, [ResourceTypeSpec(gadget)])
    patch = document["paths"]["/apis/example.com/v1/gadgets/{name}"]["patch"]
    assert SMP not in patch["requestBody"]["content"]
    assert document["components"]["schemas"]["com.example.v1.Gadget"]["type"] == "object"


def test_resources_of_another_group_version_are_rejected(builder: OpenAPIBuilder) -> None:
    """Passing a resource of a different group version is a programming error."""
    with pytest.raises(ValueError, match="not served by group version"):
        builder.group_version_document(APPS_V1, [ResourceTypeSpec(WIDGET, WIDGET_SCHEMA)])


def test_document_header_is_openapi_3(apps_document: dict[str, Any]) -> None:
    """The document declares OpenAPI 3.0.0 and kube's title."""
    assert apps_document["openapi"] == "3.0.0"
    assert apps_document["info"]["title"] == "Kubernetes"
    assert apps_document["info"]["version"].startswith("v1.32")


def test_hash_is_stable_across_builds(builder: OpenAPIBuilder, apps_document: dict[str, Any]) -> None:
    """Building the same document twice gives the same upper-case SHA-512 hex hash."""
    again = builder.group_version_document(APPS_V1, BUILTIN_GROUP_VERSIONS[APPS_V1])
    assert document_hash(again) == document_hash(apps_document)
    assert re.fullmatch(r"[0-9A-F]{128}", document_hash(apps_document))


def test_hash_changes_with_the_document(builder: OpenAPIBuilder, widget_document: dict[str, Any]) -> None:
    """A changed CRD schema gives a different hash, so clients refetch the document."""
    changed_schema = {"type": "object", "properties": {"spec": {"type": "object", "description": "new"}}}
    changed = builder.group_version_document(EXAMPLE_V1, [ResourceTypeSpec(WIDGET, changed_schema)])
    assert document_hash(changed) != document_hash(widget_document)


def test_serialization_ignores_key_insertion_order() -> None:
    """Canonical bytes sort keys, so equal documents serialize identically."""
    assert serialize_document({"b": 1, "a": {"d": 2, "c": 3}}) == serialize_document(
        {"a": {"c": 3, "d": 2}, "b": 1}
    )


def test_root_document_points_at_hashed_group_version_documents() -> None:
    """The root maps each group version key to its document URL with the hash."""
    keys = {group_version_key(CORE_V1): "AB", group_version_key(APPS_V1): "CD"}
    assert root_document(keys) == {
        "paths": {
            "api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=AB"},
            "apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=CD"},
        }
    }


def test_every_builtin_document_builds_quickly(builder: OpenAPIBuilder) -> None:
    """All built-in group version documents together build in well under a second."""
    start = time.perf_counter()
    for group_version, resources in BUILTIN_GROUP_VERSIONS.items():
        builder.group_version_document(group_version, resources)
    assert time.perf_counter() - start < 1.0
