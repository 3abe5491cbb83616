"""The change to a template's status, as a JSON merge patch (RFC 7386).

The binding-status controller writes the status it folded from the members onto the template.
Sending only the difference — changed fields, and `null` for fields that went away (a counter
dropping to zero is omitted, as kube omits it) — needs no resourceVersion: it cannot undo another
writer's change to a field it does not touch, and it does not fail with a conflict every time the
template changed since the informer last saw it, which a full update of a busy template would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def merge_patch(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The merge patch turning `old` into `new` (empty when they are equal)."""
    patch: dict[str, Any] = {}
    for key in old.keys() - new.keys():
        patch[key] = None
    for key, value in new.items():
        previous = old.get(key)
        if key in old and previous == value:
            continue
        if isinstance(previous, Mapping) and isinstance(value, Mapping) and value:
            patch[key] = merge_patch(previous, value)
        else:
            patch[key] = value
    return patch


def status_patch(template: Mapping[str, Any], aggregated: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{"status": …}` taking the template's status to the aggregated one; None when nothing changes."""
    old = template.get("status") or {}
    new = aggregated.get("status") or {}
    if old == new:
        return None
    return {"status": merge_patch(old, new)}
