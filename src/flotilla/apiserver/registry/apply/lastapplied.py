"""The client-side-apply annotation, seen from server-side apply (kube's last-applied managers).

Objects managed with `kubectl apply` (client-side) carry `kubectl.kubernetes.io/last-applied-configuration`
and their fields are owned by `kubectl-client-side-apply` as `Update`. When the same user switches
to `kubectl apply --server-side` (field manager `kubectl`), kube lets that first apply take over
without a conflict every field the annotation says was applied and that still has the applied
value: those were the user's own, not another controller's. Any other conflict still fails.

After an apply by `kubectl`, kube also rewrites the annotation, when the object has one, to the
configuration just applied, so a later client-side apply computes its three-way diff from it.
Other field managers opt out of both behaviours.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from flotilla.apiserver.registry.apply.fieldpath import FieldSet
from flotilla.apiserver.registry.apply.fieldsets import compare, raw_fields_of
from flotilla.apiserver.registry.apply.jsonvalues import go_json, json_copy
from flotilla.apiserver.registry.schema.model import Schema

LAST_APPLIED_ANNOTATION: Final = "kubectl.kubernetes.io/last-applied-configuration"
UPGRADING_MANAGER: Final = "kubectl"
"""The only field manager whose applies upgrade from, and maintain, client-side apply."""


def _last_applied(obj: dict[str, Any] | None) -> str | None:
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    value = annotations.get(LAST_APPLIED_ANNOTATION) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) and value else None


def fields_allowed_from_last_applied(
    live: dict[str, Any] | None, schema: Schema | None, api_version: str
) -> FieldSet | None:
    """The fields `kubectl` may take over while upgrading from client-side apply; None if none.

    They are the fields the annotation sets with the same value the live object has.
    """
    text = _last_applied(live)
    if text is None or live is None:
        return None
    try:
        last_applied = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(last_applied, dict) or last_applied.get("apiVersion") != api_version:
        return None
    comparison = compare(last_applied, live, schema)
    return (
        raw_fields_of(last_applied, schema)
        .difference(comparison.modified)
        .difference(comparison.added)
        .difference(comparison.removed)
    )


def refresh_last_applied(result: dict[str, Any], applied: dict[str, Any]) -> dict[str, Any]:
    """`result` with the annotation set to `applied` (minus the annotation), if it has one."""
    if _last_applied(result) is None:
        return result
    configuration = json_copy(applied)
    metadata = configuration.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict):
        metadata["annotations"].pop(LAST_APPLIED_ANNOTATION, None)
    refreshed: dict[str, Any] = json_copy(result)
    refreshed["metadata"]["annotations"][LAST_APPLIED_ANNOTATION] = go_json(configuration) + "\n"
    return refreshed
