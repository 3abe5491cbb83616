"""The `/openapi/v2` document: kube's names, the operations kubectl 1.27/1.28 look for, v2-only shapes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.http.openapi import group_version_key

from .swagger2_fixtures import EXAMPLE_V1, builder, served, swagger_document

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
NAMESPACE = GroupVersionKind("", "v1", "Namespace")
GIZMO = GroupVersionKind("example.com", "v1", "Gizmo")
PRIMITIVES = {"string", "integer", "number", "boolean"}
V3_ONLY = {"oneOf", "anyOf", "allOf", "not", "nullable", "default"}


def patch_parameters(document: dict[str, Any], gvk: GroupVersionKind) -> list[str] | None:
    """What kubectl 1.27/1.28's field-validation check reads: the query parameters of the PATCH
    operation of the first path whose PATCH names `gvk` (None: no path does)."""
    wanted = {"group": gvk.group, "kind": gvk.kind, "version": gvk.version}
    for path_item in document["paths"].values():
        patch = path_item.get("patch", {})
        if patch.get("x-kubernetes-group-version-kind") == wanted:
            return [p["name"] for p in patch.get("parameters", []) if p.get("in") == "query"]
    return None


def schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema in a definition, descending only into schema-valued keywords."""
    if not isinstance(node, dict):
        return
    yield where, node
    for name, sub in node.get("properties", {}).items():
        yield from schemas(sub, f"{where}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from schemas(node[key], f"{where}[{key}]")


def kubectl_v2_parser_problems(document: dict[str, Any]) -> list[str]:
    """What kube-openapi's `proto.NewOpenAPIData` (kubectl 1.27/1.28) would refuse: one refusal
    fails the whole document."""
    problems = []
    definitions = document["definitions"]
    for name, definition in definitions.items():
        for where, schema in schemas(definition, name):
            types = schema.get("type")
            if "$ref" in schema:
                target = schema["$ref"].removeprefix("#/definitions/")
                if not schema["$ref"].startswith("#/definitions/") or target not in definitions:
                    problems.append(f"{where}: unknown reference {schema['$ref']}")
                if types or schema.get("properties"):
                    problems.append(f"{where}: a reference with a type or properties")
            elif isinstance(types, list):
                problems.append(f"{where}: more than one type")
            elif types == "array" and not isinstance(schema.get("items"), dict):
                problems.append(f"{where}: an array without exactly one item schema")
            elif types not in (None, "object", "array", *PRIMITIVES):
                problems.append(f"{where}: unknown type {types!r}")
    return problems


def test_definitions_are_named_as_kube_names_them() -> None:
    """Built-in kinds keep kube's Go-package names and carry their group-version-kind list."""
    definitions = swagger_document()["definitions"]
    deployment = definitions["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    assert "com.example.v1.Gizmo" in definitions and "com.example.v1.GizmoList" in definitions


def test_every_patch_operation_offers_field_validation_dry_run_and_field_manager() -> None:
    """Each served kind's PATCH (built-in or custom) has the parameters kubectl's verifier looks for."""
    document = swagger_document()
    for group_version, specs in served():
        for spec in specs:
            parameters = patch_parameters(document, spec.resource_type.gvk)
            assert parameters is not None, f"no PATCH operation for {spec.resource_type.gvk}"
            assert {"fieldValidation", "dryRun", "fieldManager"} <= set(parameters), (
                group_version,
                parameters,
            )
    assert patch_parameters(document, NAMESPACE) is not None  # the stand-in kubectl checks for CRDs


def test_operations_carry_action_and_kind() -> None:
    """kube's extensions on each operation: x-kubernetes-action and the kind it speaks."""
    item = swagger_document()["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
    assert {
        method: operation["x-kubernetes-action"]
        for method, operation in item.items()
        if method != "parameters"
    } == {
        "get": "get",
        "put": "put",
        "patch": "patch",
        "delete": "delete",
    }
    scale = swagger_document()["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
    assert scale["patch"]["x-kubernetes-group-version-kind"] == {
        "group": "autoscaling",
        "kind": "Scale",
        "version": "v1",
    }


def test_a_patch_takes_its_body_first_and_consumes_the_patch_types() -> None:
    """Swagger 2.0 spells the request body as the `in: body` parameter and its media types as consumes."""
    patch = swagger_document()["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["parameters"][0] == {
        "in": "body",
        "name": "body",
        "required": True,
        "schema": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"},
    }
    assert "application/strategic-merge-patch+json" in patch["consumes"]
    assert patch["responses"]["200"] == {
        "description": "OK",
        "schema": {"$ref": "#/definitions/io.k8s.api.apps.v1.Deployment"},
    }
    assert patch["schemes"] == ["https"]
    custom = swagger_document()["paths"]["/apis/example.com/v1/namespaces/{namespace}/gizmos/{name}"]["patch"]
    assert "application/strategic-merge-patch+json" not in custom["consumes"]


def test_a_list_produces_watch_events_too() -> None:
    listing = swagger_document()["paths"]["/apis/apps/v1/deployments"]["get"]
    assert listing["produces"] == ["application/json", "application/json;stream=watch"]


def test_every_reference_resolves_to_a_definition() -> None:
    document = swagger_document()
    references: set[str] = set()
    pending: list[Any] = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                references.add(ref)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    dangling = {
        ref for ref in references if ref.removeprefix("#/definitions/") not in document["definitions"]
    }
    assert not dangling
    assert all(ref.startswith("#/definitions/") for ref in references)


def test_no_definition_uses_what_swagger_2_cannot_hold() -> None:
    """No oneOf/anyOf/allOf/not/nullable/default anywhere: kube strips them from v2."""
    found = [
        f"{where}: {sorted(schema.keys() & V3_ONLY)}"
        for name, definition in swagger_document()["definitions"].items()
        for where, schema in schemas(definition, name)
        if schema.keys() & V3_ONLY
    ]
    assert not found


def test_every_definition_parses_in_kubectls_v2_parser() -> None:
    assert kubectl_v2_parser_problems(swagger_document()) == []


def test_the_parser_check_can_fail() -> None:
    broken = {
        "definitions": {
            "a": {"type": "array"},
            "b": {"$ref": "#/definitions/c"},
            "d": {"type": ["string", "null"]},
        }
    }
    assert len(kubectl_v2_parser_problems(broken)) == 3


def test_a_reference_keeps_its_description_beside_it() -> None:
    """v3 wraps a described reference in allOf; v2 keeps the description next to the $ref."""
    spec = swagger_document()["definitions"]["io.k8s.api.apps.v1.Deployment"]["properties"]["spec"]
    assert spec["$ref"] == "#/definitions/io.k8s.api.apps.v1.DeploymentSpec"
    assert spec["description"]


def test_int_or_string_and_quantity_are_strings() -> None:
    definitions = swagger_document()["definitions"]
    assert definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["type"] == "string"
    assert definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]["format"] == "int-or-string"
    assert definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"]["type"] == "string"


def test_a_custom_kind_is_published_as_kube_publishes_it_in_v2() -> None:
    """ToStructuralOpenAPIV2's rules, then metadata, type meta, embedded resources and the GVK."""
    gizmo = swagger_document()["definitions"]["com.example.v1.Gizmo"]
    assert gizmo["properties"]["metadata"] == {
        "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "description": gizmo["properties"]["metadata"]["description"],
    }
    spec = gizmo["properties"]["spec"]
    fields = spec["properties"]
    assert spec["required"] == ["size"]  # note is nullable, so not required in v2
    assert fields["note"] == {}
    assert fields["size"] == {"x-kubernetes-int-or-string": True}
    assert fields["free"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert fields["template"] == {
        "x-kubernetes-embedded-resource": True,
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert set(fields["pod"]["properties"]) == {"spec", "apiVersion", "kind", "metadata"}
    assert fields["pod"]["required"] == ["kind", "apiVersion"]
    assert "oneOf" not in fields["either"]
    assert fields["count"] == {"type": "integer", "minimum": 1, "maximum": 9.5}
    assert fields["mode"]["x-kubernetes-validations"] == [{"rule": "true"}]
    assert gizmo["x-kubernetes-group-version-kind"] == [
        {"group": "example.com", "kind": "Gizmo", "version": "v1"}
    ]


def test_a_custom_kind_keeping_unknown_fields_at_its_root_is_a_bare_object() -> None:
    """So kubectl's client-side v2 validation accepts any field, as with kube."""
    loose = swagger_document()["definitions"]["com.example.v1.Loose"]
    assert loose == {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Loose", "version": "v1"}],
    }


def test_both_documents_describe_the_same_operations() -> None:
    """One model written twice: every v3 operation is in v2 with the same id, kind, action and parameters."""
    v2_paths = swagger_document()["paths"]
    for group_version, specs in served():
        v3 = builder().group_version_document(group_version, specs)
        for path, path_item in v3["paths"].items():
            for method, operation in path_item.items():
                if method == "parameters":
                    continue
                twin = v2_paths[path][method]
                assert twin["operationId"] == operation["operationId"], (
                    group_version_key(group_version),
                    path,
                )
                assert twin.get("x-kubernetes-group-version-kind") == operation.get(
                    "x-kubernetes-group-version-kind"
                )
                assert twin.get("x-kubernetes-action") == operation.get("x-kubernetes-action")
                v3_names = [p["name"] for p in operation.get("parameters", [])]
                assert [p["name"] for p in twin.get("parameters", []) if p["in"] != "body"] == v3_names


def test_the_document_header_is_swagger_2() -> None:
    document = swagger_document()
    assert document["swagger"] == "2.0"
    assert document["info"]["title"] == "Kubernetes"
    assert document["security"] == [{"BearerToken": []}]
    assert document["securityDefinitions"]["BearerToken"]["type"] == "apiKey"
    assert f"/apis/{EXAMPLE_V1.group}/{EXAMPLE_V1.version}/" in document["paths"]
