"""Int-or-percent values: integers as they are, percentages of a total rounded as asked."""

from __future__ import annotations

import pytest

from flotilla.sim.controllers.podowners.intorpercent import InvalidIntOrPercent, scaled_value


@pytest.mark.parametrize(
    ("value", "total", "round_up", "expected"),
    [
        ("25%", 10, True, 3),
        ("25%", 10, False, 2),
        ("25%", 4, True, 1),
        ("25%", 3, False, 0),
        ("100%", 7, False, 7),
        (2, 10, True, 2),
        ("0%", 10, True, 0),
        ("33%", 1, True, 1),
    ],
)
def test_percentages_round_up_for_surge_and_down_for_unavailable(
    value: int | str, total: int, round_up: bool, expected: int
) -> None:
    """kube rounds maxSurge up and maxUnavailable down."""
    assert scaled_value(value, total, round_up=round_up) == expected


def test_a_string_that_is_not_a_percentage_is_rejected() -> None:
    """Only `N%` strings scale with the total."""
    with pytest.raises(InvalidIntOrPercent):
        scaled_value("3", 10, round_up=True)
