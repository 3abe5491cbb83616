"""When a binding is (re)scheduled."""

from __future__ import annotations

from dataclasses import replace

from flotilla.scheduler.core.placement import placement_from_object
from flotilla.scheduler.core.triggers import needs_scheduling, placement_changed
from tests.unit.scheduler.manifests import binding, dynamic_weights, static_weights

DIVIDED = static_weights({"a": 1, "b": 1})


def settled(**options: object) -> dict[str, object]:
    """A divided binding scheduled with its current placement and replicas."""
    return {
        "replicas": 2,
        "placement": DIVIDED,
        "applied_placement": DIVIDED,
        "clusters": {"a": 1, "b": 1},
    } | options


def test_never_scheduled_binding_needs_scheduling() -> None:
    """No applied-placement annotation means it was never placed."""
    assert needs_scheduling(binding(replicas=2, placement=DIVIDED))


def test_settled_divided_binding_does_not() -> None:
    """Same placement, replicas adding up, no reschedule asked: leave it."""
    assert not needs_scheduling(binding(**settled()))


def test_placement_change_triggers() -> None:
    """A different placement than the one applied reschedules."""
    assert needs_scheduling(binding(**settled(applied_placement=static_weights({"a": 2, "b": 1}))))


def test_scaling_triggers() -> None:
    """Replicas no longer adding up (a scale, or an eviction) reschedules."""
    assert needs_scheduling(binding(**settled(replicas=3)))
    assert needs_scheduling(binding(**settled(clusters={"a": 1})))


def test_duplicated_mismatch_and_duplicated_always_trigger() -> None:
    """Duplicated workloads always follow the fleet."""
    assert needs_scheduling(binding(replicas=2, placement={}, applied_placement={}, clusters={"a": 2}))


def test_non_workloads_always_trigger() -> None:
    """A binding without replicas is rescheduled on every event."""
    assert needs_scheduling(binding(placement=DIVIDED, applied_placement=DIVIDED, clusters={"a": 0}))


def test_reschedule_after_last_schedule_triggers() -> None:
    """rescheduleTriggeredAt later than lastScheduledTime asks for a fresh schedule."""
    later = settled(
        reschedule_triggered_at="2026-02-01T00:00:00Z", last_scheduled_time="2026-01-01T00:00:00Z"
    )
    earlier = settled(
        reschedule_triggered_at="2025-12-01T00:00:00Z", last_scheduled_time="2026-01-01T00:00:00Z"
    )
    never = settled(reschedule_triggered_at="2026-02-01T00:00:00Z")
    assert needs_scheduling(binding(**later))
    assert not needs_scheduling(binding(**earlier))
    assert not needs_scheduling(binding(**never))


def test_target_cluster_being_deleted_triggers() -> None:
    """A divided workload leaves a cluster that is going away."""
    assert needs_scheduling(binding(**settled()), deleting_clusters={"b"})
    assert not needs_scheduling(binding(**settled()), deleting_clusters={"c"})


def test_deleting_binding_is_left_alone() -> None:
    """A binding on its way out is not scheduled."""
    assert not needs_scheduling(replace(binding(replicas=2, placement=DIVIDED), deleting=True))


def test_change_in_an_unused_affinity_term_does_not_trigger() -> None:
    """Editing a term other than the observed one leaves the workload where it is."""
    before = {
        **dynamic_weights(),
        "clusterAffinities": [
            {"affinityName": "x", "clusterNames": ["a"]},
            {"affinityName": "y", "clusterNames": ["b"]},
        ],
    }
    after = {
        **dynamic_weights(),
        "clusterAffinities": [
            {"affinityName": "x", "clusterNames": ["a"]},
            {"affinityName": "y", "clusterNames": ["c"]},
        ],
    }
    assert not placement_changed(placement_from_object(after), placement_from_object(before), "x")
    assert placement_changed(placement_from_object(after), placement_from_object(before), "y")
    assert placement_changed(placement_from_object(after), placement_from_object(before), "")
