"""Schemas and objects shared by the server-side apply tests: a Deployment as kubectl applies it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema

APPS_V1: Final = "apps/v1"
NOW: Final = datetime(2024, 5, 1, 10, 0, 0, tzinfo=UTC)
LATER: Final = datetime(2024, 5, 1, 11, 30, 0, tzinfo=UTC)


def kind_schema(group: str, version: str, kind: str) -> Schema:
    schema = builtin_schemas().for_kind(GroupVersionKind(group, version, kind))
    assert schema is not None, f"no built-in schema for {group}/{version} {kind}"
    return schema


def deployment_schema() -> Schema:
    return kind_schema("apps", "v1", "Deployment")


def web_deployment(**spec: Any) -> dict[str, Any]:
    """The manifest a user applies: nginx with one port, labels, and `spec` fields overridden."""
    manifest: dict[str, Any] = {
        "apiVersion": APPS_V1,
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}]
                },
            },
        },
    }
    manifest["spec"].update(spec)
    return manifest


def partial_deployment(
    spec: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A configuration that names the Deployment and sets only `spec` / extra `metadata`."""
    manifest: dict[str, Any] = {
        "apiVersion": APPS_V1,
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", **(metadata or {})},
    }
    if spec is not None:
        manifest["spec"] = spec
    return manifest


def pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = obj["spec"]["template"]["spec"]
    return result


def containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = pod_spec(obj)["containers"]
    return result


def entry(managed_fields: list[dict[str, Any]], manager: str, operation: str = "Apply") -> dict[str, Any]:
    """The managedFields entry of `manager` for `operation`; fails the test when there is none."""
    found = [e for e in managed_fields if e.get("manager") == manager and e["operation"] == operation]
    assert len(found) == 1, f"expected one {operation} entry for {manager}, got {managed_fields}"
    return found[0]


def managers(managed_fields: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e.get("manager", ""), e["operation"]) for e in managed_fields]
