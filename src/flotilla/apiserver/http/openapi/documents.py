"""The OpenAPI documents: one OpenAPI 3.0 document per group version with its root index, and the
one Swagger 2.0 document of everything served.

kubectl 1.28+ fetch `/openapi/v3` (the root: group version → `serverRelativeURL` with a content
hash), then the document of the group version they are working with; kubectl 1.27 and 1.28 also
fetch `/openapi/v2`, a single document of every kind (as protobuf, `encoding/protobuf/openapiv2`).
`OpenAPIBuilder` builds both from one model: the paths and operations of each resource
(`operations`, written by `openapi3` or `swagger2`) and the schemas they reach (`components`, in
either dialect). Built-in kinds take their schemas from kubernetes-validate's definitions; custom
resources from their CRD's `openAPIV3Schema`.

Building is pure and deterministic: the same resources give the same document, hence the same
hash, which is what lets clients cache documents on disk (`?hash=` URLs are immutable). The caller
builds built-in documents once per process and rebuilds a group version's document when its CRDs
change; `serialize_document` gives the exact bytes to serve and hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from flotilla.api.scheme import GroupVersion, GroupVersionKind, ResourceType
from flotilla.apiserver.registry.resources import delete_returns_object
from flotilla.apiserver.registry.schema.builtin import KUBERNETES_VERSION

from .components import (
    GVK_EXTENSION,
    LIST_META,
    OBJECT_META,
    Dialect,
    component_schemas,
    convert_definition,
    custom_resource_list_schema,
    custom_resource_schema,
    custom_resource_schema_name,
)
from .openapi3 import v3_paths
from .operations import (
    BUILTIN_PATCH_TYPES,
    CUSTOM_PATCH_TYPES,
    PathItem,
    ResourceSchemas,
    group_version_root_path,
    resource_paths,
)
from .swagger2 import SWAGGER_VERSION, v2_paths

OPENAPI_VERSION = "3.0.0"
DEFAULT_INFO_VERSION = f"v{KUBERNETES_VERSION}.0"
ROOT_URL = "/openapi/v3"

_TYPE_META_SOURCE = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
"""A definition whose `apiVersion`/`kind` properties are plain TypeMeta (custom kinds reuse them)."""
_SECURITY_SCHEMES = {
    "BearerToken": {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}


@dataclass(frozen=True, slots=True)
class ResourceTypeSpec:
    """One resource to publish: its scheme entry and, for a custom resource, its CRD schema.

    `crd_schema` is the CRD version's `schema.openAPIV3Schema`; leave it None for built-in kinds.
    A resource without a CRD schema whose kind kubernetes-validate does not define is published as
    a schemaless custom kind (any field accepted, merge patches only).
    """

    resource_type: ResourceType
    crd_schema: Mapping[str, Any] | None = None


class OpenAPIBuilder:
    """Builds OpenAPI v3 documents from the built-in definitions and the served resource types."""

    def __init__(
        self,
        definitions: Mapping[str, Mapping[str, Any]],
        *,
        info_version: str = DEFAULT_INFO_VERSION,
    ) -> None:
        """`definitions`: kubernetes-validate's `$defs` (`builtin_schemas().definitions`);
        `info_version`: the `info.version` of every document (kube puts its release there)."""
        self._definitions = definitions
        self._info_version = info_version
        self._by_gvk: dict[GroupVersionKind, str] = {}
        for name, definition in definitions.items():
            for gvk in definition.get(GVK_EXTENSION, ()):
                key = GroupVersionKind(gvk.get("group", ""), gvk["version"], gvk["kind"])
                self._by_gvk.setdefault(key, name)
        self._type_meta = self._type_meta_properties()

    def definition_name(self, gvk: GroupVersionKind) -> str | None:
        """The built-in definition of a kind (`io.k8s.api.apps.v1.Deployment`), if there is one."""
        return self._by_gvk.get(gvk)

    def group_version_document(
        self, group_version: GroupVersion, resources: Sequence[ResourceTypeSpec]
    ) -> dict[str, Any]:
        """The OpenAPI 3.0 document kube serves at `/openapi/v3/<api/v1 | apis/group/version>`."""
        custom_schemas: dict[str, dict[str, Any]] = {}
        path_items = self._path_items(group_version, resources, custom_schemas, Dialect.OPENAPI_V3)
        paths = v3_paths(path_items)
        schemas = self._schemas(paths, custom_schemas, Dialect.OPENAPI_V3)
        return {
            "components": {
                "schemas": schemas,
                "securitySchemes": {name: dict(scheme) for name, scheme in _SECURITY_SCHEMES.items()},
            },
            "info": {"title": "Kubernetes", "version": self._info_version},
            "openapi": OPENAPI_VERSION,
            "paths": dict(sorted(paths.items())),
        }

    def swagger_document(
        self, group_versions: Iterable[tuple[GroupVersion, Sequence[ResourceTypeSpec]]]
    ) -> dict[str, Any]:
        """The Swagger 2.0 document kube serves at `/openapi/v2`: every group version's paths and
        every schema they reach, in one document."""
        custom_schemas: dict[str, dict[str, Any]] = {}
        path_items: list[PathItem] = []
        for group_version, resources in group_versions:
            path_items += self._path_items(group_version, resources, custom_schemas, Dialect.SWAGGER_2)
        paths = v2_paths(path_items)
        return {
            "definitions": self._schemas(paths, custom_schemas, Dialect.SWAGGER_2),
            "info": {"title": "Kubernetes", "version": self._info_version},
            "paths": dict(sorted(paths.items())),
            "security": [{name: [] for name in _SECURITY_SCHEMES}],
            "securityDefinitions": {name: dict(scheme) for name, scheme in _SECURITY_SCHEMES.items()},
            "swagger": SWAGGER_VERSION,
        }

    def _path_items(
        self,
        group_version: GroupVersion,
        resources: Sequence[ResourceTypeSpec],
        custom_schemas: dict[str, dict[str, Any]],
        dialect: Dialect,
    ) -> list[PathItem]:
        """The model of one group version's paths; custom kinds' schemas go to `custom_schemas`."""
        path_items = [group_version_root_path(group_version)]
        for spec in resources:
            resource = spec.resource_type
            if resource.group_version != group_version:
                raise ValueError(f"{resource.gvk} is not served by group version {group_version}")
            path_items += resource_paths(resource, self._resource_schemas(spec, custom_schemas, dialect))
        return path_items

    def _schemas(
        self, paths: Mapping[str, Any], custom_schemas: Mapping[str, dict[str, Any]], dialect: Dialect
    ) -> dict[str, dict[str, Any]]:
        """The schemas `paths` reach, built-in ones converted, by name in sorted order."""
        roots = _referenced_names(paths) - custom_schemas.keys()
        if custom_schemas:
            roots |= {OBJECT_META, LIST_META}
        schemas = component_schemas(self._definitions, roots, dialect)
        schemas.update(custom_schemas)
        return dict(sorted(schemas.items()))

    def _resource_schemas(
        self, spec: ResourceTypeSpec, custom_schemas: dict[str, dict[str, Any]], dialect: Dialect
    ) -> ResourceSchemas:
        """The component names `spec`'s operations use; custom kinds' schemas go to `custom_schemas`."""
        resource = spec.resource_type
        list_gvk = GroupVersionKind(resource.group, resource.version, resource.list_kind_name)
        kind_name = None if spec.crd_schema is not None else self._by_gvk.get(resource.gvk)
        list_name = self._by_gvk.get(list_gvk)
        patch_types: tuple[str, ...]
        if kind_name is not None and list_name is not None:
            patch_types = BUILTIN_PATCH_TYPES
        else:
            patch_types = CUSTOM_PATCH_TYPES
            kind_name = custom_resource_schema_name(resource.gvk)
            list_name = custom_resource_schema_name(list_gvk)
            custom_schemas[kind_name] = custom_resource_schema(
                resource.gvk, spec.crd_schema, self._type_meta, dialect
            )
            custom_schemas[list_name] = custom_resource_list_schema(
                list_gvk, kind_name, resource.kind, resource.plural, self._type_meta, dialect
            )
        subresources: dict[str, tuple[GroupVersionKind, str]] = {}
        for subresource in resource.subresources:
            sub_gvk = subresource.kind or resource.gvk
            sub_name = kind_name if sub_gvk == resource.gvk else self._by_gvk.get(sub_gvk)
            if sub_name is None:
                raise ValueError(f"no schema for {sub_gvk}, the kind of {resource.plural}/{subresource.name}")
            subresources[subresource.name] = (sub_gvk, sub_name)
        returns_object = delete_returns_object(resource.group_resource, builtin=spec.crd_schema is None)
        return ResourceSchemas(kind_name, list_name, subresources, patch_types, returns_object)

    def _type_meta_properties(self) -> dict[str, dict[str, Any]]:
        """Published `apiVersion` and `kind` property schemas, for custom kinds."""
        source = self._definitions.get(_TYPE_META_SOURCE)
        if source is None:
            return {field: {"type": "string"} for field in ("apiVersion", "kind")}
        converted = convert_definition(_TYPE_META_SOURCE, source, set())
        properties: dict[str, dict[str, Any]] = converted.get("properties", {})
        return {field: properties.get(field, {"type": "string"}) for field in ("apiVersion", "kind")}


def group_version_key(group_version: GroupVersion) -> str:
    """The root document's key for a group version: `api/v1`, `apis/apps/v1`."""
    return group_version.path.removeprefix("/")


def root_document(paths: Mapping[str, str]) -> dict[str, Any]:
    """The `/openapi/v3` index; `paths` maps each group version key to its document's hash."""
    return {
        "paths": {
            key: {"serverRelativeURL": f"{ROOT_URL}/{key}?hash={document_hash}"}
            for key, document_hash in sorted(paths.items())
        }
    }


def serialize_document(document: Mapping[str, Any]) -> bytes:
    """The canonical JSON bytes of a document (sorted keys, compact): what to serve and hash."""
    return orjson.dumps(document, option=orjson.OPT_SORT_KEYS)


def document_hash(document: Mapping[str, Any]) -> str:
    """A stable content hash, like kube's: upper-case hex SHA-512 of the canonical JSON."""
    return hashlib.sha512(serialize_document(document)).hexdigest().upper()


def _referenced_names(paths: Mapping[str, Any]) -> set[str]:
    """The component names the operations refer to (paths hold no schema keywords besides `$ref`)."""
    names: set[str] = set()
    pending: list[Any] = [paths]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str):
                names.add(ref.rsplit("/", 1)[-1])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return names
