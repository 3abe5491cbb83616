"""The CronFederatedHPA's test clock: real time, moving N times faster from its start."""

from __future__ import annotations

from datetime import timedelta

import pytest

from flotilla.controllers.autoscaling.cronclock import ScaledClock
from flotilla.runtime.clock import ManualClock


def test_time_moves_rate_times_faster_from_the_start() -> None:
    """Ten real seconds at rate 60 are ten minutes of the clock."""
    base = ManualClock()
    clock = ScaledClock(base, 60)
    start = clock.now()
    assert start == base.now()
    base.advance(10)
    assert clock.now() - start == timedelta(minutes=10)
    assert clock.real_seconds(120) == 2


def test_rate_one_is_the_given_clock() -> None:
    base = ManualClock()
    clock = ScaledClock(base, 1)
    base.advance(3.5)
    assert clock.now() == base.now()


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        ScaledClock(ManualClock(), 0)
