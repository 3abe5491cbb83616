"""The NoSchedule taints that follow a Cluster's Ready condition, kept beside users' taints."""

from __future__ import annotations

from flotilla.api.karmada.model import Condition, Taint
from flotilla.api.times import format_time
from flotilla.controllers.cluster.taints import health_taints, terminating_taints
from flotilla.runtime.clock import ManualClock

NOW = ManualClock().now()
USER = Taint(key="maintenance", value="planned", effect="NoSchedule")
NOT_READY = Taint(key="cluster.karmada.io/not-ready", effect="NoSchedule", time_added="2025-12-31T00:00:00Z")
UNREACHABLE = Taint(
    key="cluster.karmada.io/unreachable", effect="NoSchedule", time_added="2025-12-31T00:00:00Z"
)


def ready(status: str) -> Condition:
    return Condition(type="Ready", status=status, reason="r", message="m")


def keys(taints: list[Taint] | None) -> list[tuple[str, str]]:
    assert taints is not None
    return [(t.key, t.effect) for t in taints]


def test_a_cluster_without_ready_condition_is_tainted_not_ready() -> None:
    """A new cluster is kept from scheduling until it has been probed Ready."""
    taints = health_taints([USER], None, NOW)
    assert keys(taints) == [("maintenance", "NoSchedule"), ("cluster.karmada.io/not-ready", "NoSchedule")]
    assert taints is not None
    assert taints[1].time_added == format_time(NOW)
    assert taints[0] == USER


def test_ready_false_swaps_unreachable_for_not_ready() -> None:
    """Ready=False adds the not-ready taint and drops the unreachable one."""
    taints = health_taints([UNREACHABLE, USER], ready("False"), NOW)
    assert keys(taints) == [("maintenance", "NoSchedule"), ("cluster.karmada.io/not-ready", "NoSchedule")]


def test_ready_unknown_swaps_not_ready_for_unreachable() -> None:
    """Ready=Unknown (no status posted in time) adds the unreachable taint and drops not-ready."""
    taints = health_taints([NOT_READY], ready("Unknown"), NOW)
    assert keys(taints) == [("cluster.karmada.io/unreachable", "NoSchedule")]


def test_ready_true_removes_both_health_taints_and_keeps_the_rest() -> None:
    """Recovery removes only the controller's NoSchedule taints, not a NoExecute one with the same key."""
    user_no_execute = Taint(
        key="cluster.karmada.io/not-ready", effect="NoExecute", time_added="2025-01-01T00:00:00Z"
    )
    taints = health_taints([NOT_READY, USER, UNREACHABLE, user_no_execute], ready("True"), NOW)
    assert taints == [USER, user_no_execute]


def test_taints_that_are_already_right_are_not_rewritten() -> None:
    """No change yields None, so the controller writes nothing and keeps the original timeAdded."""
    assert health_taints([USER, NOT_READY], ready("False"), NOW) is None
    assert health_taints([USER], ready("True"), NOW) is None


def test_matching_ignores_the_taint_value() -> None:
    """A not-ready taint with some value counts as present, as Taint.MatchTaint compares key and effect."""
    with_value = Taint(key="cluster.karmada.io/not-ready", value="x", effect="NoSchedule")
    assert health_taints([with_value], ready("False"), NOW) is None
    assert health_taints([with_value], ready("True"), NOW) == []


def test_a_deleting_cluster_gets_the_terminating_taint_once() -> None:
    """Deletion adds cluster.karmada.io/terminating:NoExecute, and only once."""
    taints = terminating_taints([USER], NOW)
    assert keys(taints) == [("maintenance", "NoSchedule"), ("cluster.karmada.io/terminating", "NoExecute")]
    assert taints is not None
    assert terminating_taints(taints, NOW) is None
