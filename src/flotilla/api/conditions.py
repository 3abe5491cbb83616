"""Status conditions and the rules for when their timestamps move, as Kubernetes' controllers apply them.

A condition (`{type, status, reason, message, lastTransitionTime, …}`) is set by type in a status's
list. Almost every writer follows apimachinery's `meta.SetStatusCondition` — the API server's CRD
and pod-binding conditions, the kubelet's and the scheduler's pod conditions, node conditions, and
every Karmada condition the hub writes:

- `set_status_condition` replaces the condition of the same type where it stands (or appends it);
  its `lastTransitionTime` stays the existing one while the status is unchanged and otherwise
  becomes the new condition's own or now; reason, message and observedGeneration follow the new
  condition. (An existing condition without a transition time gets one: apimachinery would keep the
  zero time, which its validation does not let a stored condition have.)
- `stamped_condition` is that rule for one condition, for writers that send only their own
  conditions (a server-side apply patch) instead of the whole list.

Two families of kube controllers are older than `metav1.Condition` and keep their own rules, which
the simulated workloads and Karmada's aggregated statuses must reproduce to read the same:

- `set_workload_condition` is apps/v1's `SetDeploymentCondition` (and ReplicaSet's `SetCondition`):
  nothing changes while status and reason are the same — not even the message or lastUpdateTime —
  and a condition that is set moves to the end of the list.
- `kept_if_unchanged` is the rule of the namespace deleter and the Job controller (and Karmada's Job
  status aggregation, which copies it): the old condition stays as it is while status, reason and
  message are the same; any change makes it a new condition, stamped now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Condition = Mapping[str, Any]


def find_condition(conditions: Sequence[Condition] | None, condition_type: str) -> Condition | None:
    """The condition of `condition_type` in a status's list, if there is one."""
    for condition in conditions or ():
        if condition.get("type") == condition_type:
            return condition
    return None


def stamped_condition(condition: Condition, existing: Condition | None, stamp: str) -> dict[str, Any]:
    """`condition` with the `lastTransitionTime` `meta.SetStatusCondition` gives it over `existing`.

    `stamp` is now, formatted (`api.times.format_time`); it is used when the status changes and
    `condition` brings no transition time of its own."""
    if existing is not None and existing.get("status") == condition.get("status"):
        kept = existing.get("lastTransitionTime")
        if kept:
            return {**condition, "lastTransitionTime": kept}
    return {**condition, "lastTransitionTime": condition.get("lastTransitionTime") or stamp}


def set_status_condition(
    conditions: Sequence[Condition] | None, condition: Condition, stamp: str
) -> list[dict[str, Any]]:
    """The list with `condition` set by type (`meta.SetStatusCondition`); the others copied as they are."""
    result = [dict(current) for current in conditions or ()]
    for position, current in enumerate(result):
        if current.get("type") == condition.get("type"):
            result[position] = stamped_condition(condition, current, stamp)
            return result
    result.append(stamped_condition(condition, None, stamp))
    return result


def set_workload_condition(
    conditions: Sequence[Condition] | None, condition: Condition
) -> list[dict[str, Any]]:
    """The list with `condition` set as apps/v1's `SetDeploymentCondition` sets it.

    Unchanged if the condition of its type has the same status and reason; else the condition
    (keeping the old transition time when only the reason changed) moves to the end of the list."""
    current = find_condition(conditions, str(condition.get("type")))
    if current is not None and (current.get("status"), current.get("reason")) == (
        condition.get("status"),
        condition.get("reason"),
    ):
        return [dict(existing) for existing in conditions or ()]
    updated = dict(condition)
    if current is not None and current.get("status") == condition.get("status"):
        updated["lastTransitionTime"] = current.get("lastTransitionTime")
    others = [
        dict(existing) for existing in conditions or () if existing.get("type") != condition.get("type")
    ]
    return [*others, updated]


def kept_if_unchanged(condition: Condition, existing: Condition | None) -> dict[str, Any]:
    """`existing` while its status, reason and message equal `condition`'s, else `condition` (stamped now
    by its builder), as the namespace deleter and the Job controller decide."""
    if existing is not None and all(existing.get(field) == condition.get(field) for field in _COMPARED):
        return dict(existing)
    return dict(condition)


_COMPARED = ("status", "reason", "message")
