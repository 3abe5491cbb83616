"""The node lifecycle controller's taints, computed from cordon and health."""

from __future__ import annotations

from datetime import UTC, datetime

from flotilla.sim.nodes.objects import NodeHealth
from flotilla.sim.nodes.taints import desired_taints

START = datetime(2026, 1, 1, tzinfo=UTC)


def test_desired_taints_keep_the_time_a_controller_taint_was_added() -> None:
    """Recomputing taints for an unchanged node changes nothing, timeAdded included."""
    node = {"spec": {"unschedulable": True}}
    first = desired_taints(node, NodeHealth.UNREACHABLE, START)
    later = desired_taints(
        {"spec": {"unschedulable": True, "taints": first}}, NodeHealth.UNREACHABLE, datetime.now(UTC)
    )
    assert later == first
    assert {(t["key"], t["effect"]) for t in first} == {
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoSchedule"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
    }
