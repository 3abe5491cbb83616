"""The `/openapi/v3` documents: one OpenAPI 3.0 document per group version, and the root index.

kubectl fetches `/openapi/v3` (the root: group version → `serverRelativeURL` with a content hash),
then the document of the group version it is working with. `OpenAPIBuilder` builds the latter from
the scheme's resource types: the paths and operations of each resource (`operations`) and the
component schemas they reach (`components`). Built-in kinds take their schemas from
kubernetes-validate's definitions; custom resources from their CRD's `openAPIV3Schema`.

Building is pure and deterministic: the same resources give the same document, hence the same
hash, which is what lets clients cache documents on disk (`?hash=` URLs are immutable). The caller
builds built-in documents once per process and rebuilds a group version's document when its CRDs
change; `serialize_document` gives the exact bytes to serve and hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
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
    component_schemas,
    convert_definition,
    custom_resource_list_schema,
    custom_resource_schema,
    custom_resource_schema_name,
)
from .operations import (
    BUILTIN_PATCH_TYPES,
    CUSTOM_PATCH_TYPES,
    ResourceSchemas,
    group_version_root_path,
    resource_paths,
)

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
        paths = group_version_root_path(group_version)
        custom_schemas: dict[str, dict[str, Any]] = {}
        for spec in resources:
            resource = spec.resource_type
            if resource.group_version != group_version:
                raise ValueError(f"{resource.gvk} is not served by group version {group_version}")
            paths.update(resource_paths(resource, self._resource_schemas(spec, custom_schemas)))
        roots = _referenced_names(paths) - custom_schemas.keys()
        if custom_schemas:
            roots |= {OBJECT_META, LIST_META}
        schemas = component_schemas(self._definitions, roots)
        schemas.update(custom_schemas)
        return {
            "components": {
                "schemas": dict(sorted(schemas.items())),
                "securitySchemes": {name: dict(scheme) for name, scheme in _SECURITY_SCHEMES.items()},
            },
            "info": {"title": "Kubernetes", "version": self._info_version},
            "openapi": OPENAPI_VERSION,
            "paths": dict(sorted(paths.items())),
        }

    def _resource_schemas(
        self, spec: ResourceTypeSpec, custom_schemas: dict[str, dict[str, Any]]
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
            custom_schemas[kind_name] = custom_resource_schema(resource.gvk, spec.crd_schema, self._type_meta)
            custom_schemas[list_name] = custom_resource_list_schema(
                list_gvk, kind_name, resource.kind, resource.plural, self._type_meta
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
