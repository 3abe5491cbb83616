"""Conditions are set with kube's rules for when their timestamps move (apimachinery's conditions_test.go)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.conditions import (
    find_condition,
    kept_if_unchanged,
    set_status_condition,
    set_workload_condition,
    stamped_condition,
)

EARLIER = "2024-05-01T10:00:00Z"
NOW = "2024-05-01T11:00:00Z"


def condition(kind: str, status: str, reason: str = "R", message: str = "", **more: Any) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": message, **more}


def test_a_new_condition_is_appended_stamped_now() -> None:
    """SetStatusCondition on a list without the type appends it with a transition time of now."""
    assert set_status_condition(
        [condition("A", "True", lastTransitionTime=EARLIER)], condition("B", "True"), NOW
    ) == [
        condition("A", "True", lastTransitionTime=EARLIER),
        condition("B", "True", lastTransitionTime=NOW),
    ]


def test_a_new_condition_keeps_a_transition_time_it_brings() -> None:
    """A caller that knows when the transition happened is believed."""
    assert set_status_condition([], condition("A", "True", lastTransitionTime=EARLIER), NOW) == [
        condition("A", "True", lastTransitionTime=EARLIER)
    ]


def test_the_same_status_keeps_the_transition_time_while_reason_message_and_generation_follow() -> None:
    """Reason, message and observedGeneration change; lastTransitionTime does not, and the place is kept."""
    current = [condition("A", "True", "Old", "old", lastTransitionTime=EARLIER, observedGeneration=1)]
    current.append(condition("B", "False", lastTransitionTime=EARLIER))
    updated = set_status_condition(current, condition("A", "True", "New", "new", observedGeneration=2), NOW)
    assert updated == [
        condition("A", "True", "New", "new", lastTransitionTime=EARLIER, observedGeneration=2),
        condition("B", "False", lastTransitionTime=EARLIER),
    ]


def test_a_status_change_moves_the_transition_time() -> None:
    """True to False is a transition: now, or the time the new condition brings."""
    current = [condition("A", "True", lastTransitionTime=EARLIER)]
    assert set_status_condition(current, condition("A", "False"), NOW) == [
        condition("A", "False", lastTransitionTime=NOW)
    ]
    brought = condition("A", "False", lastTransitionTime="2024-05-01T10:30:00Z")
    assert set_status_condition(current, brought, NOW) == [brought]


def test_an_existing_condition_without_a_transition_time_gets_one() -> None:
    """apimachinery would keep the zero time; a stored metav1.Condition may not have one, so it is filled."""
    assert stamped_condition(condition("A", "True"), condition("A", "True"), NOW)["lastTransitionTime"] == NOW


def test_setting_does_not_change_the_list_it_was_given() -> None:
    """The result is a new list of new dicts."""
    current = [condition("A", "True", lastTransitionTime=EARLIER)]
    set_status_condition(current, condition("A", "False"), NOW)
    assert current == [condition("A", "True", lastTransitionTime=EARLIER)]


@given(
    st.lists(st.sampled_from(["A", "B", "C"]), unique=True),
    st.sampled_from(["A", "B", "C", "D"]),
    st.sampled_from(["True", "False", "Unknown"]),
)
def test_setting_twice_changes_nothing_the_second_time(kinds: list[str], kind: str, status: str) -> None:
    """SetStatusCondition is idempotent: one condition per type, order kept, the second write a no-op."""
    current = [condition(k, "True", lastTransitionTime=EARLIER) for k in kinds]
    once = set_status_condition(current, condition(kind, status), NOW)
    assert set_status_condition(once, condition(kind, status), "2024-05-01T12:00:00Z") == once
    assert [c["type"] for c in once] == (kinds if kind in kinds else [*kinds, kind])
    assert find_condition(once, kind) == condition(
        kind, status, lastTransitionTime=EARLIER if kind in kinds and status == "True" else NOW
    )


def test_a_workload_condition_with_the_same_status_and_reason_changes_nothing() -> None:
    """SetDeploymentCondition returns early: not even the message or lastUpdateTime move."""
    current = [condition("Progressing", "True", "NewReplicaSetAvailable", "old", lastUpdateTime=EARLIER)]
    wanted = condition("Progressing", "True", "NewReplicaSetAvailable", "new", lastUpdateTime=NOW)
    assert set_workload_condition(current, wanted) == current


def test_a_workload_condition_moves_to_the_end_keeping_its_transition_time_when_only_the_reason_changes() -> (
    None
):
    """A new reason with the same status keeps lastTransitionTime; the condition set last is last."""
    current = [
        condition("Progressing", "True", "ReplicaSetUpdated", lastTransitionTime=EARLIER),
        condition("Available", "True", lastTransitionTime=EARLIER),
    ]
    wanted = condition("Progressing", "True", "NewReplicaSetAvailable", lastTransitionTime=NOW)
    assert set_workload_condition(current, wanted) == [
        condition("Available", "True", lastTransitionTime=EARLIER),
        condition("Progressing", "True", "NewReplicaSetAvailable", lastTransitionTime=EARLIER),
    ]
    flipped = condition("Available", "False", lastTransitionTime=NOW)
    assert set_workload_condition(current, flipped)[-1] == flipped


def test_the_namespace_and_job_rule_restamps_any_change() -> None:
    """The old condition stays while status, reason and message are equal; a new message restamps it."""
    old = condition(
        "NamespaceContentRemaining", "True", "SomeResourcesRemain", "pods: 2", lastTransitionTime=EARLIER
    )
    same = condition(
        "NamespaceContentRemaining", "True", "SomeResourcesRemain", "pods: 2", lastTransitionTime=NOW
    )
    changed = condition(
        "NamespaceContentRemaining", "True", "SomeResourcesRemain", "pods: 1", lastTransitionTime=NOW
    )
    assert kept_if_unchanged(same, old) == old
    assert kept_if_unchanged(changed, old) == changed
    assert kept_if_unchanged(same, None) == same
