"""From Works to a binding's status: `aggregatedStatus[]` and the `FullyApplied` condition.

For every target cluster whose Work exists, one item, sorted by cluster name:

- the Work is not (yet) applied: `applied: false`, the `Applied` condition's message as
  `appliedMessage`, health `Unknown`;
- applied, with a manifest status for the template's object: `applied: true`, its reflected
  `status` and `health`;
- applied, but the member has not reported yet: `applied: true`, health `Unknown`.

`FullyApplied` is `True` when every target cluster has an item and every item is applied — the
binding's workload has reached all its clusters.

The template's own status is folded from the same items by `interpreter.aggregate_status`, with
one more for each target cluster whose Work does not exist yet (`scheduled_items`): a cluster the
workload is scheduled to but not yet delivered to holds the template back from looking Available or
Complete, as a copy that has not reported does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.conditions import find_condition, stamped_condition
from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ResourceHealth
from flotilla.api.scheme import GroupVersion
from flotilla.api.times import format_time

REASON_FULLY_APPLIED = "FullyAppliedSuccess"
MESSAGE_FULLY_APPLIED = "All works have been successfully applied"
REASON_NOT_FULLY_APPLIED = "FullyAppliedFailed"
MESSAGE_NOT_FULLY_APPLIED = "Failed to apply all works, see status.aggregatedStatus for details"

Item = dict[str, Any]


def _conditions(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in (obj.get("status") or {}).get("conditions") or [] if isinstance(c, Mapping)]


def _condition(obj: Mapping[str, Any], condition_type: str) -> Mapping[str, Any] | None:
    return find_condition(_conditions(obj), condition_type)


def _is_template(identifier: Mapping[str, Any], template: Mapping[str, Any]) -> bool:
    group = GroupVersion.parse(str(template.get("apiVersion") or "")).group
    metadata = template.get("metadata") or {}
    return (
        identifier.get("group", "") == group
        and identifier.get("kind") == template.get("kind")
        and (identifier.get("namespace") or "") == (metadata.get("namespace") or "")
        and identifier.get("name") == metadata.get("name")
    )


def status_item(cluster: str, work: Mapping[str, Any], template: Mapping[str, Any]) -> Item:
    """One cluster's entry of `aggregatedStatus`, from its Work."""
    applied = _condition(work, constants.WORK_APPLIED)
    if applied is None or applied.get("status") != "True":
        item: Item = {"clusterName": cluster, "applied": False}
        message = (applied or {}).get("message")
        if message:
            item["appliedMessage"] = message
        item["health"] = str(ResourceHealth.UNKNOWN)
        return item
    for entry in (work.get("status") or {}).get("manifestStatuses") or []:
        if isinstance(entry, Mapping) and _is_template(entry.get("identifier") or {}, template):
            found: Item = {"clusterName": cluster}
            if entry.get("status") is not None:
                found["status"] = entry["status"]
            found["applied"] = True
            found["health"] = entry.get("health") or str(ResourceHealth.UNKNOWN)
            return found
    return {"clusterName": cluster, "applied": True, "health": str(ResourceHealth.UNKNOWN)}


def aggregated_status(
    works: Mapping[str, Mapping[str, Any] | None], template: Mapping[str, Any]
) -> list[Item]:
    """Items for the clusters whose Work exists (`works`: cluster → Work or None), by cluster name."""
    return [
        status_item(cluster, work, template)
        for cluster, work in sorted(works.items())
        if work is not None and not (work.get("metadata") or {}).get("deletionTimestamp")
    ]


def scheduled_items(targets: Sequence[str], items: Sequence[Item]) -> list[Item]:
    """`items` plus a not-applied item for each target cluster that has none, by cluster name."""
    present = {str(item.get("clusterName")) for item in items}
    missing: list[Item] = [
        {"clusterName": cluster, "applied": False, "health": str(ResourceHealth.UNKNOWN)}
        for cluster in dict.fromkeys(targets)
        if cluster not in present
    ]
    return sorted([*items, *missing], key=lambda item: str(item.get("clusterName")))


def fully_applied(targets: Sequence[str], items: Sequence[Mapping[str, Any]]) -> bool:
    if not targets or len(items) != len(set(targets)):
        return False
    wanted = set(targets)
    return all(item.get("applied") is True and item.get("clusterName") in wanted for item in items)


def fully_applied_condition(
    binding: Mapping[str, Any], targets: Sequence[str], items: Sequence[Mapping[str, Any]], now: datetime
) -> dict[str, Any]:
    """The binding's `FullyApplied` condition (its transition time kept while the status is unchanged)."""
    applied = fully_applied(targets, items)
    condition = {
        "type": constants.CONDITION_FULLY_APPLIED,
        "status": "True" if applied else "False",
        "reason": REASON_FULLY_APPLIED if applied else REASON_NOT_FULLY_APPLIED,
        "message": MESSAGE_FULLY_APPLIED if applied else MESSAGE_NOT_FULLY_APPLIED,
    }
    existing = _condition(binding, constants.CONDITION_FULLY_APPLIED)
    return stamped_condition(condition, existing, format_time(now))
