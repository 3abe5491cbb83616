"""The built-in kinds' schemas, loaded from the `kubernetes-validate` package.

kubernetes-validate bundles the JSON-schema form of Kubernetes' OpenAPI definitions per release,
with the extensions the server needs (`x-kubernetes-group-version-kind`, patch strategies and merge
keys, list and map types). We load one release — the one `/version` reports — once per process and
share it between every API server instance in it (the simulator runs many).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from typing import Any

import orjson

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter

KUBERNETES_VERSION = "1.32"
_SCHEMA_DIR = f"v{KUBERNETES_VERSION}.0-local"


class BuiltinSchemas:
    """Schemas of the built-in kinds, by group/version/kind or by definition name."""

    def __init__(self, definitions: Mapping[str, Mapping[str, Any]]) -> None:
        self.definitions = definitions
        self._converter = SchemaConverter(definitions)
        self._by_gvk: dict[GroupVersionKind, str] = {}
        for name, raw in definitions.items():
            for gvk in raw.get("x-kubernetes-group-version-kind", ()):
                self._by_gvk.setdefault(
                    GroupVersionKind(gvk.get("group", ""), gvk["version"], gvk["kind"]), name
                )

    def definition_name(self, gvk: GroupVersionKind) -> str | None:
        return self._by_gvk.get(gvk)

    def for_kind(self, gvk: GroupVersionKind) -> Schema | None:
        name = self._by_gvk.get(gvk)
        return self._converter.definition(name) if name else None

    def definition(self, name: str) -> Schema:
        return self._converter.definition(name)


@functools.cache
def builtin_schemas() -> BuiltinSchemas:
    """The process-wide built-in schemas (loaded on first use, about 1.3 MB of JSON)."""
    root = resources.files("kubernetes_validate").joinpath("kubernetes-json-schema", _SCHEMA_DIR)
    data = orjson.loads(root.joinpath("_definitions.json").read_bytes())
    return BuiltinSchemas(data["$defs"])
