"""Leader election decisions (client-go's algorithm), the released record, durations and settings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flotilla.api.times import format_micro_time
from flotilla.runtime.leaderelection import (
    Action,
    LeaderElectionConfig,
    LeaderElectionRecord,
    Observation,
    decide,
    default_identity,
    released,
)

ME = "host-a_1111"
OTHER = "host-b_2222"
T1 = "2026-01-01T00:00:01.000000Z"
T2 = "2026-01-01T00:00:02.000000Z"


def held_by(
    holder: str, *, renewed: str = T1, transitions: int = 3, duration: int = 15
) -> LeaderElectionRecord:
    return LeaderElectionRecord(holder, duration, "2026-01-01T00:00:00.000000Z", renewed, transitions)


def test_no_lease_is_created_holding_it_with_no_transitions() -> None:
    """Without a Lease the candidate creates one naming itself, acquired and renewed now."""
    decision = decide(None, None, identity=ME, lease_duration=15, now=100.0, timestamp=T2)
    assert decision.action is Action.CREATE
    assert decision.record == LeaderElectionRecord(ME, 15, T2, T2, 0)


def test_a_lease_held_by_another_is_waited_for_while_its_record_keeps_changing() -> None:
    """A holder that renews (a new record) restarts the wait, however old its renewTime looks."""
    first = decide(held_by(OTHER), None, identity=ME, lease_duration=15, now=100.0, timestamp=T2)
    assert first.action is Action.WAIT and first.observation == Observation(held_by(OTHER), 100.0)
    renewed = held_by(OTHER, renewed=T2)
    later = decide(renewed, first.observation, identity=ME, lease_duration=15, now=114.0, timestamp=T2)
    assert later.action is Action.WAIT
    assert later.observation == Observation(renewed, 114.0)


def test_a_lease_unchanged_for_its_duration_on_our_clock_is_taken_over() -> None:
    """Expiry is counted from when we first saw the record, and taking over counts one more transition."""
    seen = Observation(held_by(OTHER), 100.0)
    waiting = decide(held_by(OTHER), seen, identity=ME, lease_duration=15, now=114.9, timestamp=T2)
    assert waiting.action is Action.WAIT
    taking = decide(held_by(OTHER), seen, identity=ME, lease_duration=15, now=115.0, timestamp=T2)
    assert taking.action is Action.ACQUIRE
    assert taking.record == LeaderElectionRecord(ME, 15, T2, T2, 4)


def test_expiry_uses_the_duration_the_holder_declared() -> None:
    """A record declaring one second expires after one second, whatever our own term is."""
    seen = Observation(held_by(OTHER, duration=1), 100.0)
    record = held_by(OTHER, duration=1)
    decision = decide(record, seen, identity=ME, lease_duration=15, now=101.0, timestamp=T2)
    assert decision.action is Action.ACQUIRE


def test_a_released_lease_is_taken_at_once() -> None:
    """A Lease without a holder needs no waiting, even the first time it is seen."""
    free = released(held_by(OTHER), T1)
    decision = decide(free, None, identity=ME, lease_duration=15, now=100.0, timestamp=T2)
    assert decision.action is Action.ACQUIRE
    assert decision.record is not None and decision.record.lease_transitions == 4


def test_our_own_lease_is_renewed_keeping_acquire_time_and_transitions() -> None:
    """Renewing moves only renewTime (and the declared duration)."""
    ours = held_by(ME, duration=10)
    decision = decide(ours, None, identity=ME, lease_duration=15, now=100.0, timestamp=T2)
    assert decision.action is Action.RENEW
    assert decision.record == LeaderElectionRecord(ME, 15, ours.acquire_time, T2, 3)


def test_releasing_clears_the_holder_and_shortens_the_term_to_one_second() -> None:
    """client-go's release: no holder, leaseDurationSeconds 1, transitions kept."""
    record = released(held_by(ME), T2)
    assert record == LeaderElectionRecord("", 1, T2, T2, 3)
    assert "holderIdentity" not in record.spec()


def test_the_record_reads_and_writes_a_lease_spec() -> None:
    """A Lease's spec round-trips through the record, `leaseTransitions` included."""
    record = held_by(OTHER)
    assert LeaderElectionRecord.from_lease({"spec": record.spec()}) == record
    assert LeaderElectionRecord.from_lease({}) == LeaderElectionRecord()


def test_terms_must_nest_as_client_go_requires() -> None:
    """lease duration > renew deadline > 1.2 times the retry period."""
    LeaderElectionConfig(identity=ME, lease_duration=3, renew_deadline=2, retry_period=0.5)
    with pytest.raises(ValueError, match="greater than the renew deadline"):
        LeaderElectionConfig(identity=ME, lease_duration=10, renew_deadline=10)
    with pytest.raises(ValueError, match="retry period"):
        LeaderElectionConfig(identity=ME, renew_deadline=2, retry_period=2)


def test_identities_are_hostname_and_a_fresh_uuid() -> None:
    """Two candidates on one host never share an identity."""
    first, second = default_identity(), default_identity()
    assert first != second
    assert first.rsplit("_", 1)[0] == second.rsplit("_", 1)[0]


def test_micro_times_are_utc_with_microseconds() -> None:
    """renewTime and acquireTime are metav1.MicroTime."""
    assert format_micro_time(datetime(2026, 1, 1, 0, 0, 1, 5, tzinfo=UTC)) == "2026-01-01T00:00:01.000005Z"
