"""The eviction rate: a token bucket that lets a second's worth through at once, then paces."""

from __future__ import annotations

import pytest

from flotilla.controllers.failover.ratelimit import EvictionRate


class Ticks:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_up_to_the_rate_goes_at_once_then_evictions_are_paced() -> None:
    ticks = Ticks()
    rate = EvictionRate(100, monotonic=ticks)
    assert [rate.reserve() for _ in range(100)] == [0.0] * 100
    assert rate.reserve() == pytest.approx(0.01)
    assert rate.reserve() == pytest.approx(0.02)


def test_tokens_come_back_with_time_up_to_the_burst() -> None:
    ticks = Ticks()
    rate = EvictionRate(2, monotonic=ticks)
    assert [rate.reserve(), rate.reserve()] == [0.0, 0.0]
    ticks.now = 0.5
    assert rate.reserve() == 0.0
    ticks.now = 100.0
    assert [rate.reserve(), rate.reserve(), rate.reserve()] == [0.0, 0.0, pytest.approx(0.5)]


def test_a_rate_below_one_still_lets_one_eviction_through() -> None:
    """Karmada's 0.5/s: the first eviction at once, the next two seconds later."""
    rate = EvictionRate(0.5, monotonic=Ticks())
    assert rate.reserve() == 0.0
    assert rate.reserve() == pytest.approx(2.0)


def test_the_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="above 0"):
        EvictionRate(0)
