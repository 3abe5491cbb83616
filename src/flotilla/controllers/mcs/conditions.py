"""The conditions the MCS controller writes: a ServiceExport's Valid, Ready and Conflict, and a
ServiceImport's Ready (pure).

Transition times follow `meta.SetStatusCondition` (`api.conditions.stamped_condition`): they move
only when a condition's status does. An export that is not valid is not exported (`Ready=False`,
reason `Failed`) and has no Conflict condition; a valid one is `Ready=True`/`Exported` once its
service is imported, `Ready=False`/`Pending` until then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api.conditions import find_condition, stamped_condition
from flotilla.api.multicluster import ExportCondition, ExportReason, ImportCondition, ImportReason
from flotilla.controllers.mcs.exports import MergedImport, Validity

Condition = dict[str, Any]


def _condition(kind: str, status: bool, reason: str, message: str, generation: int) -> Condition:
    condition: Condition = {
        "type": kind,
        "status": "True" if status else "False",
        "reason": reason,
        "message": message,
    }
    if generation:
        condition["observedGeneration"] = generation
    return condition


def export_conditions(
    validity: Validity, merged: MergedImport | None, cluster: str, *, imported: bool, generation: int = 0
) -> list[Condition]:
    """A ServiceExport's conditions (without transition times) in `cluster`."""
    conditions = [
        _condition(ExportCondition.VALID, validity.valid, validity.reason, validity.message, generation)
    ]
    if not validity.valid or merged is None:
        conditions.append(
            _condition(
                ExportCondition.READY, False, "Failed", f"not exported: {validity.message}", generation
            )
        )
        return conditions
    if imported:
        conditions.append(
            _condition(
                ExportCondition.READY, True, ExportReason.EXPORTED, "the service is exported", generation
            )
        )
    else:
        conditions.append(
            _condition(
                ExportCondition.READY,
                False,
                ExportReason.PENDING,
                "the service is being imported",
                generation,
            )
        )
    if merged.conflicts:
        reasons = ",".join(merged.conflicts)
        others = ", ".join(merged.conflicting_clusters) or "none"
        message = (
            f"the exports of this service conflict ({reasons}); the oldest export's values are used "
            f"(clusters differing from it: {others})"
        )
        conditions.append(_condition(ExportCondition.CONFLICT, True, reasons, message, generation))
    else:
        conditions.append(
            _condition(ExportCondition.CONFLICT, False, ExportReason.NO_CONFLICTS, "no conflicts", generation)
        )
    return conditions


def import_conditions() -> list[Condition]:
    return [_condition(ImportCondition.READY, True, ImportReason.READY, "the service is imported", 0)]


def stamped(
    conditions: Sequence[Condition], existing: Sequence[Mapping[str, Any]] | None, now: str
) -> list[Condition]:
    """`conditions` with the transition times they get over the `existing` ones."""
    return [stamped_condition(c, find_condition(existing, str(c["type"])), now) for c in conditions]


def same_conditions(
    wanted: Sequence[Mapping[str, Any]], existing: Sequence[Mapping[str, Any]] | None
) -> bool:
    """Whether `existing` already says what `wanted` says (types, statuses, reasons, messages)."""

    def facts(conditions: Sequence[Mapping[str, Any]] | None) -> set[tuple[Any, ...]]:
        return {
            (c.get("type"), c.get("status"), c.get("reason"), c.get("message"), c.get("observedGeneration"))
            for c in conditions or ()
        }

    return facts(wanted) == facts(existing)
