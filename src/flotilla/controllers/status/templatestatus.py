"""The change to a template's status, as a JSON merge patch (RFC 7386).

The binding-status controller writes the status it folded from the members onto the template.
Sending only the difference — changed fields, and `null` for fields that went away (a counter
dropping to zero is omitted, as kube omits it) — needs no resourceVersion: it cannot undo another
writer's change to a field it does not touch, and it does not fail with a conflict every time the
template changed since the informer last saw it, which a full update of a busy template would.

The informer's copy of the template may not show the controller's own last write yet. A patch
computed against that stale copy would leave behind a field the last write added (a counter set
just before it dropped back to zero). So when the controller knows what it wrote last
(`written`), the patch sets every field of the new status and nulls every field that either the
template or that last write had and the new status lacks: right whichever of the two is current.
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


def status_patch(
    template: Mapping[str, Any],
    aggregated: Mapping[str, Any],
    written: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """`{"status": …}` taking the template's status to the aggregated one; None when nothing changes.

    `written` is the status this writer last wrote to the template, when it knows it: the same
    again needs no write, and another one is written in full (see the module's docstring).
    """
    old = template.get("status") or {}
    new = aggregated.get("status") or {}
    if written is None:
        return None if old == new else {"status": merge_patch(old, new)}
    if written == new:
        return None
    gone = (old.keys() | written.keys()) - new.keys()
    return {"status": {**dict.fromkeys(sorted(gone)), **new}}
