"""The record of which overrides were applied, as Karmada writes it into annotations.

The binding controller notes on each Work which override policies shaped its manifest:
`policy.karmada.io/applied-cluster-overrides` for ClusterOverridePolicies and
`policy.karmada.io/applied-overrides` for OverridePolicies. Each value is a JSON list of
`{"policyName": ..., "overriders": {...}}`, one item per applied rule, sorted by policy name
(a policy with several matching rules appears once per rule, in rule order). Tools diff these
strings, so they are written as Karmada's Go encoder writes them: the overrider fields in the
order of Karmada's structs, empty optional fields left out, JSON values (`plaintext[].value`) with
their keys sorted as the API server stores them, compact text with Go's escaping.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.overrides import gojson

APPLIED_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-overrides"
APPLIED_CLUSTER_OVERRIDES_ANNOTATION = "policy.karmada.io/applied-cluster-overrides"


def _list(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _sorted_json(value: Any) -> Any:
    """A JSON value with object keys sorted at every level, as a Go map round trip leaves it."""
    if isinstance(value, Mapping):
        return {key: _sorted_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_json(item) for item in value]
    return value


def _patch_operations(operations: Any) -> list[dict[str, Any]]:
    return [
        {
            "subPath": operation.get("subPath", ""),
            "operator": operation.get("operator", ""),
            "value": _sorted_json(operation.get("value")),
        }
        for operation in _list(operations)
    ]


def _image_overrider(overrider: Mapping[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = {}
    predicate = overrider.get("predicate")
    if isinstance(predicate, Mapping):
        written["predicate"] = {"path": predicate.get("path", "")}
    written["component"] = overrider.get("component", "")
    written["operator"] = overrider.get("operator", "")
    if overrider.get("value"):
        written["value"] = overrider["value"]
    return written


def _command_args_overrider(overrider: Mapping[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = {
        "containerName": overrider.get("containerName", ""),
        "operator": overrider.get("operator", ""),
    }
    if overrider.get("value"):
        written["value"] = list(overrider["value"])
    return written


def _string_map_overrider(overrider: Mapping[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = {"operator": overrider.get("operator", "")}
    value = overrider.get("value")
    if isinstance(value, Mapping) and value:
        written["value"] = {key: value[key] for key in sorted(value)}
    return written


def _field_overrider(overrider: Mapping[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = {"fieldPath": overrider.get("fieldPath", "")}
    for field in ("json", "yaml"):
        if _list(overrider.get(field)):
            written[field] = _patch_operations(overrider[field])
    return written


def _plaintext_overrider(overrider: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "path": overrider.get("path", ""),
        "operator": overrider.get("operator", ""),
        "value": _sorted_json(overrider.get("value")),
    }


_WRITERS = (
    ("plaintext", _plaintext_overrider),
    ("imageOverrider", _image_overrider),
    ("commandOverrider", _command_args_overrider),
    ("argsOverrider", _command_args_overrider),
    ("labelsOverrider", _string_map_overrider),
    ("annotationsOverrider", _string_map_overrider),
    ("fieldOverrider", _field_overrider),
)


def overriders_as_written(overriders: Mapping[str, Any]) -> dict[str, Any]:
    """An `Overriders` object with Karmada's field order and empty fields left out."""
    written = {}
    for field, writer in _WRITERS:
        entries = _list(overriders.get(field))
        if entries:
            written[field] = [writer(entry) for entry in entries]
    return written


def applied_overrides_value(applied: Iterable[tuple[str, Mapping[str, Any]]]) -> str | None:
    """The annotation value for `(policy name, overriders)` pairs in application order; None when empty."""
    items = [
        {"policyName": name, "overriders": overriders_as_written(overriders)}
        for name, overriders in sorted(applied, key=lambda pair: pair[0])
    ]
    return gojson.dumps(items) if items else None
