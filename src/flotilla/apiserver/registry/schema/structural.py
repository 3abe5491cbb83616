"""Checks that a CRD's `openAPIV3Schema` is structural, as apiextensions.k8s.io/v1 requires.

A structural schema says what every field is: each node has a `type` (unless it is
int-or-string or keeps unknown fields), `properties` and `additionalProperties` are not combined,
value-validation keywords (`anyOf`, `allOf`, `oneOf`, `not`) carry no structure of their own — but
for kube's one exception, the `anyOf: [{type: integer}, {type: string}]` controller-gen writes for
int-or-string fields (`resource.Quantity`), directly or as `allOf[0]`'s —, and
`metadata` may constrain only `name` and `generateName`. A `pattern` must be a regular expression
Go's regexp compiles (no backreferences, no lookaround), anywhere in the schema. Violations are field
errors at the paths kube-apiserver reports them.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import fielderrors, regexes
from flotilla.api.fielderrors import FieldError

_TYPES = ("object", "array", "string", "integer", "number", "boolean")
INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
"""The one `anyOf` whose branches may carry a `type` (kube's `intOrStringAnyOf`)."""
_STRUCTURE_KEYS = (
    "type",
    "properties",
    "additionalProperties",
    "items",
    "nullable",
    "default",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
    "description",
)


def structural_errors(schema: Any, path: str) -> list[FieldError]:
    """Why `schema` (the openAPIV3Schema at `path`) is not structural; empty when it is."""
    found: list[FieldError] = []
    if not isinstance(schema, dict):
        return [fielderrors.required(path, "a structural schema object is required")]
    if schema.get("type") not in (None, "object"):
        found.append(
            fielderrors.invalid(
                fielderrors.child(path, "type"), schema.get("type"), "must be object at the root"
            )
        )
    _node(schema, path, found, root=True)
    metadata = (schema.get("properties") or {}).get("metadata")
    if isinstance(metadata, dict):
        meta_path = fielderrors.key(fielderrors.child(path, "properties"), "metadata")
        for name in metadata.get("properties") or {}:
            if name not in ("name", "generateName"):
                found.append(
                    fielderrors.forbidden(
                        fielderrors.key(fielderrors.child(meta_path, "properties"), name),
                        "must not be specified; metadata may only specify name and generateName",
                    )
                )
        for keyword in ("additionalProperties", "required", "x-kubernetes-preserve-unknown-fields"):
            if keyword in metadata:
                found.append(
                    fielderrors.forbidden(
                        fielderrors.child(meta_path, keyword), "must not be specified for metadata"
                    )
                )
    return found


def _node(node: dict[str, Any], path: str, found: list[FieldError], *, root: bool = False) -> None:
    _pattern(node, path, found)
    kind = node.get("type")
    keeps_unknown = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    if kind is None and not keeps_unknown and not int_or_string and not root:
        found.append(
            fielderrors.required(
                fielderrors.child(path, "type"), "must not be empty for specified object fields"
            )
        )
    elif kind is not None and kind not in _TYPES:
        found.append(fielderrors.not_supported(fielderrors.child(path, "type"), kind, _TYPES))
    if int_or_string and kind is not None:
        found.append(
            fielderrors.forbidden(
                fielderrors.child(path, "type"), "must be empty when x-kubernetes-int-or-string is true"
            )
        )
    properties = node.get("properties")
    additional = node.get("additionalProperties")
    if properties and isinstance(additional, dict):
        found.append(
            fielderrors.forbidden(
                fielderrors.child(path, "additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            )
        )
    if properties is not None and kind not in (None, "object"):
        found.append(
            fielderrors.invalid(
                fielderrors.child(path, "type"), kind, "must be object if properties are specified"
            )
        )
    if "$ref" in node:
        found.append(fielderrors.forbidden(fielderrors.child(path, "$ref"), "$ref is not supported"))
    if kind == "array" and not isinstance(node.get("items"), dict):
        found.append(fielderrors.required(fielderrors.child(path, "items"), "must be specified for arrays"))
    for name, sub in (properties or {}).items():
        sub_path = fielderrors.key(fielderrors.child(path, "properties"), name)
        if isinstance(sub, dict):
            _node(sub, sub_path, found)
        else:
            found.append(fielderrors.invalid(sub_path, sub, "must be a schema object"))
    if isinstance(additional, dict):
        _node(additional, fielderrors.child(path, "additionalProperties"), found)
    items = node.get("items")
    if isinstance(items, dict):
        _node(items, fielderrors.child(path, "items"), found)
    for keyword in ("allOf", "anyOf", "oneOf"):
        if keyword == "anyOf" and node.get("anyOf") == INT_OR_STRING_ANY_OF:
            continue
        for position, option in enumerate(node.get(keyword) or []):
            checked = option
            if keyword == "allOf" and position == 0 and _int_or_string_branches(option):
                checked = {key: value for key, value in option.items() if key != "anyOf"}
            _value_validation(checked, fielderrors.index(fielderrors.child(path, keyword), position), found)
    if isinstance(node.get("not"), dict):
        _value_validation(node["not"], fielderrors.child(path, "not"), found)
    list_type = node.get("x-kubernetes-list-type")
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        found.append(
            fielderrors.not_supported(
                fielderrors.child(path, "x-kubernetes-list-type"), list_type, ("atomic", "set", "map")
            )
        )
    if list_type == "map" and not node.get("x-kubernetes-list-map-keys"):
        found.append(
            fielderrors.required(
                fielderrors.child(path, "x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            )
        )


def _int_or_string_branches(option: Any) -> bool:
    return isinstance(option, dict) and option.get("anyOf") == INT_OR_STRING_ANY_OF


def _value_validation(node: Any, path: str, found: list[FieldError]) -> None:
    """Inside allOf/anyOf/oneOf/not only value rules may appear, never new structure or types."""
    if not isinstance(node, dict):
        return
    _pattern(node, path, found)
    for keyword in (
        "type",
        "additionalProperties",
        "default",
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
    ):
        if keyword in node:
            found.append(
                fielderrors.forbidden(fielderrors.child(path, keyword), "must be empty to be structural")
            )
    for name, sub in (node.get("properties") or {}).items():
        _value_validation(sub, fielderrors.key(fielderrors.child(path, "properties"), name), found)
    if isinstance(node.get("items"), dict):
        _value_validation(node["items"], fielderrors.child(path, "items"), found)
    for keyword in ("allOf", "anyOf", "oneOf"):
        for position, option in enumerate(node.get(keyword) or []):
            _value_validation(option, fielderrors.index(fielderrors.child(path, keyword), position), found)
    if isinstance(node.get("not"), dict):
        _value_validation(node["not"], fielderrors.child(path, "not"), found)


def _pattern(node: dict[str, Any], path: str, found: list[FieldError]) -> None:
    pattern = node.get("pattern")
    if isinstance(pattern, str) and pattern:
        problem = regexes.regex_error(pattern)
        if problem is not None:
            found.append(
                fielderrors.invalid(
                    fielderrors.child(path, "pattern"),
                    pattern,
                    f"must be a valid regular expression, but isn't: {problem}",
                )
            )
