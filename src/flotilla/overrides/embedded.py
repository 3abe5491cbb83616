"""Editing a JSON or YAML document that is stored as a string inside a manifest.

A fieldOverrider changes one value inside, say, the `db-config.yaml` key of a ConfigMap, rather
than replacing the whole string. The string is parsed, the overrider's operations are applied to
it as an RFC 6902 JSON patch (`subPath` is the pointer inside the document), and the document is
written back the way Karmada writes it: JSON compact as Go prints it, YAML in block style with
sorted keys (`sigs.k8s.io/yaml`'s output).

YAML is read as `sigs.k8s.io/yaml` reads it into JSON: timestamps stay strings (PyYAML's safe loader
would turn `2024-01-01` into a date), so a value the overrider does not touch is written back as it
was.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import jsonpatch
import yaml

from flotilla.overrides import gojson


class _JSONCompatibleLoader(yaml.SafeLoader):
    """PyYAML's safe loader without the timestamp type, which JSON does not have."""


_JSONCompatibleLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class EmbeddedDocumentError(ValueError):
    """A document that does not parse, or an operation that does not apply to it."""


def _patch(operations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "op": operation.get("operator"),
            "path": operation.get("subPath", ""),
            "value": operation.get("value"),
        }
        for operation in operations
    ]


def _apply(document: Any, operations: Sequence[Mapping[str, Any]]) -> Any:
    try:
        return jsonpatch.apply_patch(document, _patch(operations))
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as error:
        raise EmbeddedDocumentError(str(error)) from error


def patch_json_document(text: str, operations: Sequence[Mapping[str, Any]]) -> str:
    """The JSON document `text` with the operations applied, written compactly."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise EmbeddedDocumentError(f"not a JSON document: {error}") from error
    return gojson.dumps(_apply(document, operations))


def patch_yaml_document(text: str, operations: Sequence[Mapping[str, Any]]) -> str:
    """The YAML document `text` with the operations applied, written in block style with sorted keys."""
    try:
        document = yaml.load(text, Loader=_JSONCompatibleLoader)  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as error:
        raise EmbeddedDocumentError(f"not a YAML document: {error}") from error
    patched = _apply(document, operations)
    return yaml.safe_dump(patched, sort_keys=True, default_flow_style=False, allow_unicode=True)
