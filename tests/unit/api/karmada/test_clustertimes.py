"""Cluster → time annotations: the failover records' format, and the failed clusters the scheduler avoids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flotilla.api.karmada.clustertimes import encode_times, failed_clusters, parse_failback_after, read_times
from flotilla.api.karmada.constants import APPLICATION_FAILED_ON_ANNOTATION

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
KEY = "failover.flotilla.io/application-unhealthy-since"


def test_records_round_trip_through_an_annotation() -> None:
    times = {"member2": NOW, "member1": NOW - timedelta(microseconds=1500)}
    encoded = encode_times(times)
    assert encoded == '{"member1":"2026-03-01T11:59:59.998500Z","member2":"2026-03-01T12:00:00.000000Z"}'
    assert read_times({KEY: encoded}, KEY) == times
    assert encode_times({}) is None


def test_unreadable_records_count_as_empty() -> None:
    for value in ("not json", "[1]", '{"member1": "yesterday", "member2": 3}', ""):
        assert read_times({KEY: value}, KEY) == {}


def test_failed_clusters_are_the_recorded_ones() -> None:
    annotations = {APPLICATION_FAILED_ON_ANNOTATION: encode_times({"member1": NOW, "member3": NOW})}
    assert failed_clusters(annotations, None) == {"member1", "member3"}
    assert failed_clusters({}, None) == frozenset()


def test_a_reschedule_asked_after_a_failure_forgets_it() -> None:
    """As the controller's `still_failed`: a WorkloadRebalancer's trigger after a failure clears it,
    one before it (or at the same moment) does not."""
    earlier, later = NOW - timedelta(seconds=5), NOW + timedelta(seconds=5)
    annotations = {APPLICATION_FAILED_ON_ANNOTATION: encode_times({"old": earlier, "new": later})}
    assert failed_clusters(annotations, NOW) == {"new"}
    assert failed_clusters(annotations, later) == {"new"}


def test_failback_after_is_a_go_duration_that_is_not_negative() -> None:
    assert parse_failback_after("10m") == 600
    assert parse_failback_after("1h30s") == 3630
    assert parse_failback_after("0") == 0
    for bad in ("-5s", "10", "ten minutes", "", " 3s"):
        with pytest.raises(ValueError, match=r"failback-after|invalid duration"):
            parse_failback_after(bad)
