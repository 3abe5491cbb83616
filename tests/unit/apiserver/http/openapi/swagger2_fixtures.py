"""The `/openapi/v2` document of every built-in kind plus a custom kind with every awkward schema shape."""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import Any

from flotilla.api.builtin import BUILTIN_RESOURCES
from flotilla.api.scheme import GroupVersion, GroupVersionKind, ResourceType, Subresource
from flotilla.apiserver.http.openapi import OpenAPIBuilder, ResourceTypeSpec
from flotilla.apiserver.registry.schema.builtin import builtin_schemas

GIZMO = ResourceType(
    "example.com",
    "v1",
    "Gizmo",
    "gizmos",
    "gizmo",
    namespaced=True,
    subresources=(
        Subresource("status", ("get", "patch", "update")),
        Subresource("scale", ("get", "patch", "update"), GroupVersionKind("autoscaling", "v1", "Scale")),
    ),
)
LOOSE = ResourceType("example.com", "v1", "Loose", "looses", "loose", namespaced=False)
"""A custom kind whose schema keeps unknown fields at its root."""

GIZMO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size", "note"],
            "properties": {
                "size": {"x-kubernetes-int-or-string": True},
                "note": {"type": "string", "nullable": True},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
                "pod": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "properties": {"spec": {"type": "object"}},
                },
                "either": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                },
                "count": {"type": "integer", "default": 3, "minimum": 1, "maximum": 9.5},
                "mode": {
                    "type": "string",
                    "enum": ["A", "B"],
                    "x-kubernetes-validations": [{"rule": "true"}],
                },
                "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
        }
    },
}
LOOSE_SCHEMA: dict[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
EXAMPLE_V1 = GroupVersion("example.com", "v1")


@functools.cache
def builder() -> OpenAPIBuilder:
    return OpenAPIBuilder(builtin_schemas().definitions)


def served() -> list[tuple[GroupVersion, list[ResourceTypeSpec]]]:
    """Every built-in resource by group version, then example.com/v1's custom kinds."""
    by_group_version: dict[GroupVersion, list[ResourceTypeSpec]] = defaultdict(list)
    for resource in BUILTIN_RESOURCES:
        by_group_version[resource.group_version].append(ResourceTypeSpec(resource))
    by_group_version[EXAMPLE_V1] = [
        ResourceTypeSpec(GIZMO, GIZMO_SCHEMA),
        ResourceTypeSpec(LOOSE, LOOSE_SCHEMA),
    ]
    return list(by_group_version.items())


@functools.cache
def _document() -> dict[str, Any]:
    return builder().swagger_document(served())


def swagger_document() -> dict[str, Any]:
    """The document (shared: tests must not change it)."""
    return _document()
