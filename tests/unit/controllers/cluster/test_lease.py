"""A Pull cluster's Lease: when the hub counts its agent as silent, and the Ready condition it then writes."""

from __future__ import annotations

from flotilla.api.karmada.model import Condition
from flotilla.controllers.cluster.lease import (
    LeaseObservation,
    lease_expired_condition,
    observe_lease,
    renew_time,
    silence_left,
)
from flotilla.runtime.clock import ManualClock

GRACE = 40.0


def test_a_renewal_restarts_the_silence_clock() -> None:
    """A Lease whose renewTime changed is observed afresh: its silence starts now."""
    clock = ManualClock()
    first = observe_lease(None, "2026-01-01T00:00:00.000000Z", clock.now())
    clock.advance(30)
    same = observe_lease(first, "2026-01-01T00:00:00.000000Z", clock.now())
    assert same == first
    renewed = observe_lease(same, "2026-01-01T00:00:30.000000Z", clock.now())
    assert renewed.since == clock.now()
    assert silence_left(renewed, clock.now(), GRACE) == GRACE


def test_silence_is_measured_on_the_hubs_clock_not_the_renew_time() -> None:
    """A renewTime far in the past (a member clock behind) still counts from when the hub saw it change."""
    clock = ManualClock()
    observation = observe_lease(None, "1999-01-01T00:00:00.000000Z", clock.now())
    assert silence_left(observation, clock.now(), GRACE) == GRACE
    clock.advance(GRACE - 1)
    assert silence_left(observation, clock.now(), GRACE) == 1
    clock.advance(2)
    assert silence_left(observation, clock.now(), GRACE) < 0


def test_a_missing_lease_is_silent_from_the_first_look() -> None:
    """Without a Lease the observation is of "" since the first reconcile, and ages like any other."""
    clock = ManualClock()
    observation = observe_lease(None, renew_time(None), clock.now())
    assert observation == LeaseObservation("", clock.now())
    clock.advance(GRACE + 1)
    assert observe_lease(observation, renew_time({"spec": {}}), clock.now()) == observation


def test_a_silent_ready_cluster_turns_unknown_with_karmadas_reason() -> None:
    """Ready=True (or False) becomes Unknown, reason ClusterStatusUnknown."""
    for status in ("True", "False"):
        current = Condition(type="Ready", status=status, reason="ClusterReady")
        condition = lease_expired_condition(current)
        assert condition is not None
        assert (condition.status, condition.reason) == ("Unknown", "ClusterStatusUnknown")
        assert condition.message == "Cluster status controller stopped posting cluster status."


def test_a_cluster_never_reported_on_turns_unknown_as_never_updated() -> None:
    """Without any Ready condition the reason is ClusterStatusNeverUpdated."""
    condition = lease_expired_condition(None)
    assert condition is not None
    assert (condition.status, condition.reason) == ("Unknown", "ClusterStatusNeverUpdated")


def test_an_unknown_cluster_is_left_as_it_is() -> None:
    """A cluster already Unknown needs no new write."""
    assert lease_expired_condition(Condition(type="Ready", status="Unknown", reason="X")) is None
