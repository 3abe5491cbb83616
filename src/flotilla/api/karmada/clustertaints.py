"""A Cluster's `spec.taints`: one list that several writers edit, each only its own entries.

The cluster controller keeps the NoSchedule health taints there, the ClusterTaintPolicy controller
the taints its policies describe, and users theirs (`karmadactl taint`, `cordon`, `kubectl
patch`). None of them owns the list, so each computes the new list from the current one: it drops
only the taints it wants gone and appends only the missing ones it wants, each stamped with
`timeAdded`, matching by key and effect with the value ignored (core/v1 `Taint.MatchTaint`, which
Karmada uses for both). The writer then sends that list with the resourceVersion it was computed
from (`taints_patch`), so a concurrent edit by anyone else is answered 409 and recomputed, never
overwritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from flotilla.api.karmada.model import Taint
from flotilla.api.times import format_time


def matches(taint: Taint, other: Taint) -> bool:
    """The same taint for adding and removing: same key and effect."""
    return taint.key == other.key and taint.effect == other.effect


def updated_taints(
    current: Sequence[Taint], add: Sequence[Taint], remove: Sequence[Taint], now: datetime
) -> list[Taint] | None:
    """`current` with `remove` dropped and missing `add` appended; None when nothing changes."""
    to_add = [t for t in add if not any(matches(t, c) for c in current)]
    to_remove = [t for t in remove if any(matches(t, c) for c in current)]
    if not to_add and not to_remove:
        return None
    kept = [c for c in current if not any(matches(c, t) for t in to_remove)]
    stamp = format_time(now)
    return kept + [t.model_copy(update={"time_added": stamp}) for t in to_add]


def taints_patch(resource_version: str, taints: Sequence[Taint]) -> dict[str, Any]:
    """A merge patch setting a Cluster's taints, refused with 409 if it changed since `resource_version`."""
    wire = [taint.to_object() for taint in taints]
    return {"metadata": {"resourceVersion": resource_version}, "spec": {"taints": wire or None}}


def describe_taints(taints: Sequence[Taint]) -> str:
    """Taints as Karmada's events list them: `{Key:k,Value:v,Effect:e},…`."""
    if not taints:
        return "cluster now does not have taints"
    parts = []
    for taint in taints:
        value = f"Value:{taint.value}," if taint.value else ""
        parts.append(f"{{Key:{taint.key},{value}Effect:{taint.effect}}}")
    return ",".join(parts)
