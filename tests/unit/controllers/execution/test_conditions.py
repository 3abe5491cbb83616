"""The Work conditions the execution controller writes, and when a Work needs nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.controllers.execution.conditions import (
    applied_condition,
    applied_up_to_date,
    dispatching_condition,
    same_conditions,
    set_conditions,
)

EARLIER = datetime(2026, 1, 1, tzinfo=UTC)
LATER = datetime(2026, 1, 2, tzinfo=UTC)


def test_success_and_failure_carry_karmadas_reasons_and_the_generation() -> None:
    """Applied is True/AppliedSuccessful, or False/AppliedFailed with the count and errors."""
    ok = applied_condition(4, [], 1)
    failed = applied_condition(4, ["Deployment default/web: conflict"], 1)
    assert (ok["status"], ok["reason"], ok["observedGeneration"]) == ("True", "AppliedSuccessful", 4)
    assert (failed["status"], failed["reason"]) == ("False", "AppliedFailed")
    assert failed["message"] == "Failed to apply all manifests (0/1): Deployment default/web: conflict"


def test_an_unchanged_status_keeps_its_transition_time() -> None:
    """Rewriting a condition with the same status keeps lastTransitionTime, so nothing changes."""
    first = set_conditions([], [applied_condition(1, [], 1)], EARLIER)
    again = set_conditions(first, [applied_condition(1, [], 1)], LATER)
    assert again[0]["lastTransitionTime"] == "2026-01-01T00:00:00Z"
    assert same_conditions(first, again)


def test_a_status_flip_moves_the_transition_time_and_keeps_other_conditions() -> None:
    """Applied turning False is stamped now; Dispatching stays where it was."""
    first = set_conditions(
        [], [applied_condition(1, [], 1), dispatching_condition(1, suspended=False)], EARLIER
    )
    flipped = set_conditions(first, [applied_condition(2, ["boom"], 1)], LATER)
    assert [c["type"] for c in flipped] == ["Applied", "Dispatching"]
    assert flipped[0]["lastTransitionTime"] == "2026-01-02T00:00:00Z"
    assert flipped[1] == first[1]
    assert not same_conditions(first, flipped)


def test_suspended_dispatching_is_false() -> None:
    """A suspended Work reports Dispatching False with reason SuspendDispatching."""
    condition = dispatching_condition(1, suspended=True)
    assert (condition["status"], condition["reason"]) == ("False", "SuspendDispatching")


def test_a_work_is_up_to_date_only_when_its_generation_was_applied() -> None:
    """A newer generation, a failure or no condition at all all need an apply."""
    applied = {"metadata": {"generation": 3}, "status": {"conditions": [applied_condition(3, [], 1)]}}
    newer = {"metadata": {"generation": 4}, "status": applied["status"]}
    failed = {"metadata": {"generation": 3}, "status": {"conditions": [applied_condition(3, ["x"], 1)]}}
    assert applied_up_to_date(applied)
    assert not applied_up_to_date(newer)
    assert not applied_up_to_date(failed)
    assert not applied_up_to_date({"metadata": {"generation": 1}})
