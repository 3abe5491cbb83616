"""The conditions the execution controller reports on a Work: `Applied` and `Dispatching`.

`Applied` says whether every manifest reached the member (reason `AppliedSuccessful`) or not
(`AppliedFailed`, with the errors); its `observedGeneration` is the Work generation that was
applied, which is how a restarted controller knows a Work needs nothing (`applied_up_to_date`)
without asking the member. `Dispatching` is `False` while the binding suspends dispatching.

A condition keeps its `lastTransitionTime` while its status stays the same, as Kubernetes'
`meta.SetStatusCondition` does, so rewriting an unchanged condition changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.conditions import set_status_condition
from flotilla.api.karmada import constants
from flotilla.api.times import format_time

REASON_APPLIED = "AppliedSuccessful"
MESSAGE_APPLIED = "Manifest has been successfully applied"
REASON_APPLY_FAILED = "AppliedFailed"
REASON_DISPATCHING = "Dispatching"
MESSAGE_DISPATCHING = "Work is being dispatched to member clusters."
REASON_SUSPENDED = "SuspendDispatching"
MESSAGE_SUSPENDED = "Work dispatching is in a suspended state."

Condition = dict[str, Any]


def conditions_of(work: Mapping[str, Any]) -> list[Condition]:
    status = work.get("status") or {}
    return [c for c in status.get("conditions") or [] if isinstance(c, dict)]


def find(conditions: Sequence[Mapping[str, Any]], condition_type: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions if c.get("type") == condition_type), None)


def applied_condition(generation: int, errors: Sequence[str], manifests: int) -> Condition:
    """`Applied` after an attempt on a Work of `generation` with `manifests` manifests."""
    if not errors:
        return {
            "type": constants.WORK_APPLIED,
            "status": "True",
            "reason": REASON_APPLIED,
            "message": MESSAGE_APPLIED,
            "observedGeneration": generation,
        }
    message = f"Failed to apply all manifests ({manifests - len(errors)}/{manifests}): {'; '.join(errors)}"
    return {
        "type": constants.WORK_APPLIED,
        "status": "False",
        "reason": REASON_APPLY_FAILED,
        "message": message,
        "observedGeneration": generation,
    }


def dispatching_condition(generation: int, *, suspended: bool) -> Condition:
    return {
        "type": constants.WORK_DISPATCHING,
        "status": "False" if suspended else "True",
        "reason": REASON_SUSPENDED if suspended else REASON_DISPATCHING,
        "message": MESSAGE_SUSPENDED if suspended else MESSAGE_DISPATCHING,
        "observedGeneration": generation,
    }


def set_conditions(
    current: Sequence[Mapping[str, Any]], updates: Sequence[Condition], now: datetime
) -> list[Condition]:
    """`current` with each update set by type (`meta.SetStatusCondition`, see `flotilla.api.conditions`)."""
    result = [dict(condition) for condition in current]
    stamp = format_time(now)
    for update in updates:
        result = set_status_condition(result, update, stamp)
    return result


def same_conditions(current: Sequence[Mapping[str, Any]], wanted: Sequence[Mapping[str, Any]]) -> bool:
    """Whether writing `wanted` would change nothing."""
    return [dict(c) for c in current] == [dict(c) for c in wanted]


def applied_up_to_date(work: Mapping[str, Any]) -> bool:
    """Whether the Work's current generation was applied successfully."""
    applied = find(conditions_of(work), constants.WORK_APPLIED)
    generation = (work.get("metadata") or {}).get("generation")
    return (
        applied is not None
        and applied.get("status") == "True"
        and generation is not None
        and applied.get("observedGeneration") == generation
    )
