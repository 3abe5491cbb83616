"""Quantities: exact amounts from kube's notations, rounded up as Value() and MilliValue() do."""

from __future__ import annotations

from fractions import Fraction

import pytest

from flotilla.scheduler.core.quantities import milli_units, parse_quantity, whole_units


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("100m", Fraction(1, 10)),
        ("1.5", Fraction(3, 2)),
        ("2Gi", Fraction(2 * 1024**3)),
        ("128Mi", Fraction(128 * 1024**2)),
        ("1k", Fraction(1000)),
        ("1e3", Fraction(1000)),
        ("5E-1", Fraction(1, 2)),
        ("250u", Fraction(1, 4000)),
        (".5", Fraction(1, 2)),
        (110, Fraction(110)),
        (0.25, Fraction(1, 4)),
    ],
)
def test_parses_kube_notations(text: object, amount: Fraction) -> None:
    """Decimal and binary suffixes, exponents and JSON numbers give exact amounts."""
    assert parse_quantity(text) == amount


@pytest.mark.parametrize("text", ["", "abc", "1Zi", "1.2.3", "--1", "1 Gi"])
def test_rejects_what_is_not_a_quantity(text: str) -> None:
    """Malformed strings raise ValueError."""
    with pytest.raises(ValueError, match="not a quantity"):
        parse_quantity(text)


def test_rejects_other_types() -> None:
    """Booleans and objects are not quantities."""
    with pytest.raises(TypeError):
        parse_quantity(True)


def test_rounding_goes_up() -> None:
    """1.5 whole units is 2; 0.1m of CPU is 1 millicore."""
    assert whole_units(Fraction(3, 2)) == 2
    assert milli_units(Fraction(1, 10000)) == 1
    assert milli_units(Fraction(1, 4)) == 250
