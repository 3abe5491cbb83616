"""Quantities parse with kube's grammar, compare by amount and print in kube's canonical form."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.apiserver.registry.validation.quantity import (
    FORMAT_ERROR,
    SUFFIX_ERROR,
    Format,
    QuantityError,
    canonical_form,
    parse_quantity,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100m", "100m"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("1000m", "1"),
        ("2000", "2k"),
        ("1500", "1500"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1536Mi", "1536Mi"),
        ("0.5Gi", "512Mi"),
        ("512Ki", "512Ki"),
        ("100Ki", "100Ki"),
        ("0.1Ki", "102400m"),
        ("1e3", "1e3"),
        ("3e2", "300"),
        ("1e-3", "1e-3"),
        ("12e6", "12e6"),
        ("1k", "1k"),
        ("1M", "1M"),
        ("1E", "1E"),
        ("100n", "100n"),
        ("0.0000000001", "1n"),
        (".5", "500m"),
        ("5.", "5"),
        ("+1", "1"),
        ("-1", "-1"),
        ("0", "0"),
        (1, "1"),
        (0.25, "250m"),
    ],
)
def test_quantities_print_in_canonical_form(text: str | int | float, expected: str) -> None:
    """Each input reads back the way kube-apiserver writes it."""
    assert str(parse_quantity(text)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", FORMAT_ERROR),
        ("abc", FORMAT_ERROR),
        ("1.2.3", FORMAT_ERROR),
        ("1 Gi", FORMAT_ERROR),
        ("1Gix", FORMAT_ERROR),
        ("1K", SUFFIX_ERROR),
        ("1e", SUFFIX_ERROR),
        (True, FORMAT_ERROR),
        (None, FORMAT_ERROR),
    ],
)
def test_malformed_quantities_are_refused_with_kubes_message(text: object, message: str) -> None:
    """Strings outside the grammar raise QuantityError worded as apimachinery words it."""
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text)
    assert str(raised.value) == message


def test_quantities_compare_by_amount_across_notations() -> None:
    """`1` equals `1000m`, `1Gi` exceeds `1G`, and equal quantities hash alike."""
    assert parse_quantity("1") == parse_quantity("1000m")
    assert hash(parse_quantity("1")) == hash(parse_quantity("1000m"))
    assert parse_quantity("1Gi") > parse_quantity("1G")
    assert parse_quantity("500m") < parse_quantity("1")


def test_values_are_rounded_up_to_whole_nano_units() -> None:
    """Amounts finer than a nano unit round away from zero, as kube's parser does."""
    assert parse_quantity("0.0000000001").amount == Fraction(1, 10**9)
    assert parse_quantity("-0.0000000001").amount == Fraction(-1, 10**9)


def test_resource_lists_round_up_to_thousandths() -> None:
    """`rounded_up_to_milli` turns 100n into 1m and keeps whole thousandths untouched."""
    assert str(parse_quantity("100n").rounded_up_to_milli()) == "1m"
    assert str(parse_quantity("250m").rounded_up_to_milli()) == "250m"


def test_milli_value_and_value_round_up() -> None:
    """`milli_value` and `value` round fractional amounts up, like kube's accessors."""
    quantity = parse_quantity("1.0005")
    assert quantity.milli_value == 1001
    assert quantity.value == 2


def test_binary_values_below_one_switch_to_decimal_notation() -> None:
    """A binary-suffixed amount below one keeps no binary suffix (kube's parser rule)."""
    assert parse_quantity("0.0001Ki").format is Format.DECIMAL_SI


def test_canonical_form_leaves_non_quantities_alone() -> None:
    """`canonical_form` rewrites quantities and returns anything else unchanged."""
    assert canonical_form("2048Mi") == "2Gi"
    assert canonical_form("lots") == "lots"


@given(
    st.integers(min_value=0, max_value=10**12), st.sampled_from(["", "m", "k", "Ki", "Mi", "M", "G", "Gi"])
)
def test_canonical_form_reparses_to_the_same_amount(number: int, suffix: str) -> None:
    """Printing a quantity and parsing it back never changes its amount."""
    quantity = parse_quantity(f"{number}{suffix}")
    assert parse_quantity(str(quantity)) == quantity
