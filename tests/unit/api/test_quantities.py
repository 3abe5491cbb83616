"""Quantities parse with kube's grammar, compare by amount and print in kube's canonical form.

The golden cases are apimachinery's own (`resource/quantity_test.go`: TestQuantityParse,
TestQuantityString, TestQuantityParseEmit and its invalid inputs), plus the cases of the copies this
module replaced (the API server's validation, the table printers, the scheduler, the interpreter),
which agreed with it on what each was used for before they were deleted.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.quantities import (
    FORMAT_ERROR,
    SUFFIX_ERROR,
    Format,
    Quantity,
    QuantityError,
    canonical,
    canonical_form,
    format_optional_quantity,
    format_quantity,
    milli_units,
    parse_quantity,
    parse_quantity_string,
    whole_units,
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
        # apimachinery's TestQuantityParseEmit
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        # and the parse table of TestQuantityParse
        ("100.035k", "100035"),
        ("0.0005k", "500m"),
        ("1.3E+6", "1300e3"),
        ("1.7E18", "1700e15"),
        ("7.123456M", "7123456"),
        ("1.01E", "1010P"),
        ("3.001n", "4n"),
        ("1.1E-9", "2e-9"),
        ("0.00000012345", "124n"),
        ("100.035Ki", "102435840m"),
        ("0.05Gi", "53687091200m"),
        ("9Ei", "9223372036854775807"),
        ("9223372036854775807Ki", "9223372036854775807"),
        ("12E", "12E"),
        ("1.", "1"),
        ("1.G", "1G"),
        (".", "0"),
        ("-.", "0"),
        ("0Ki", "0"),
        ("-0.000000000001Ki", "-2n"),
        # what the API server's JSON decoding trims, as `Quantity.UnmarshalJSON` does
        (" 2 ", "2"),
        ("1Gi\n", "1Gi"),
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
        (float("inf"), FORMAT_ERROR),
        # apimachinery's invalid inputs
        ("1.1.M", FORMAT_ERROR),
        ("1+1.0M", FORMAT_ERROR),
        ("0.1mi", SUFFIX_ERROR),
        ("0.1am", FORMAT_ERROR),
        ("aoeu", FORMAT_ERROR),
        (".5i", SUFFIX_ERROR),
        ("1i", SUFFIX_ERROR),
        ("-3.01i", SUFFIX_ERROR),
        ("-3.01e-", SUFFIX_ERROR),
        ("1e4294967297", SUFFIX_ERROR),
        ("1E-2147483648", SUFFIX_ERROR),
        ("\u0661", FORMAT_ERROR),
        ("1" * 5000, FORMAT_ERROR),
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


@pytest.mark.parametrize("text", [" 1", "1 "])
def test_parse_quantity_string_allows_no_whitespace(text: str) -> None:
    """`ParseQuantity` itself (CEL's `quantity()`, protobuf bodies) refuses what JSON decoding trims."""
    with pytest.raises(QuantityError, match="regular expression"):
        parse_quantity_string(text)
    assert str(parse_quantity(text)) == "1"


@pytest.mark.parametrize(
    ("amount", "notation", "expected"),
    [
        # apimachinery's TestQuantityString, TestBinarySIZeroExponentString, TestQuantityStringBelowNano
        (2**30, Format.BINARY_SI, "1Gi"),
        (300 * 2**20, Format.BINARY_SI, "300Mi"),
        (6 * 1024, Format.BINARY_SI, "6Ki"),
        (1001 * 2**30, Format.BINARY_SI, "1001Gi"),
        (2**40, Format.BINARY_SI, "1Ti"),
        (5, Format.BINARY_SI, "5"),
        (Fraction(1, 2), Format.BINARY_SI, "500m"),
        (10**9, Format.DECIMAL_SI, "1G"),
        (Fraction(1, 1000), Format.DECIMAL_SI, "1m"),
        (Fraction(108, 100), Format.DECIMAL_SI, "1080m"),
        (300 * 10**6, Format.DECIMAL_SI, "300M"),
        (10**18, Format.DECIMAL_SI, "1E"),
        (10**21, Format.DECIMAL_SI, "1e21"),
        (5 * 10**21, Format.DECIMAL_SI, "5e21"),
        (10**24, Format.DECIMAL_SI, "1e24"),
        (10**70, Format.BINARY_SI, "10e69"),
        (2 * 10**70, Format.BINARY_SI, "20e69"),
        (10**72, Format.BINARY_SI, "1e72"),
        (2**70, Format.BINARY_SI, "1180591620717411303424"),
        (1234567 * 10**6, Format.DECIMAL_SI, "1234567M"),
        (Fraction(1234567, 1000), Format.BINARY_SI, "1234567m"),
        (1025, Format.BINARY_SI, "1025"),
        (2000, Format.BINARY_SI, "2000"),
        (-2000, Format.BINARY_SI, "-2000"),
        (0, Format.BINARY_SI, "0"),
        (10**9, Format.DECIMAL_EXPONENT, "1e9"),
        (Fraction(1, 1000), Format.DECIMAL_EXPONENT, "1e-3"),
        (Fraction(80, 1000), Format.DECIMAL_EXPONENT, "80e-3"),
        (300 * 10**6, Format.DECIMAL_EXPONENT, "300e6"),
        (3000, Format.DECIMAL_EXPONENT, "3e3"),
        (0, Format.DECIMAL_EXPONENT, "0"),
        (Fraction(1080, 10**9), Format.DECIMAL_SI, "1080n"),
        (Fraction(1080, 10**6), Format.DECIMAL_SI, "1080u"),
        (Fraction(1, 10**12), Format.DECIMAL_SI, "1e-12"),
        (Fraction(1, 10**10), Format.DECIMAL_SI, "100e-12"),
        (Fraction(-901, 100), Format.DECIMAL_SI, "-9010m"),
    ],
)
def test_amounts_print_as_quantity_string_does(
    amount: Fraction | int, notation: Format, expected: str
) -> None:
    """An amount in a notation prints as Go's `Quantity.String()`; no magnitude is ever dropped."""
    assert canonical(Quantity(Fraction(amount), notation)) == expected


def test_a_large_exponent_prints_without_dividing_zero_by_zero() -> None:
    """`1e999` canonicalises quickly (counting its zeros by halves, not one division each)."""
    assert str(parse_quantity("1e999")) == "1e999"
    assert str(parse_quantity("1000e997")) == "10e999"


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        ("1.5Gi", "1536Mi"),
        ("2000Mi", "2000Mi"),
        ("1.5Ki", "1536"),
        ("5G", "5G"),
        ("1.5e3", "1500"),
        ("1E3", "1e3"),
        ("2E", "2E"),
        ("-1Gi", "-1Gi"),
        (2, "2"),
        (0.25, "250m"),
        (None, "0"),
        ("lots", "lots"),
        ("\u0661", "\u0661"),
    ],
)
def test_format_quantity_shows_stored_quantities_as_tables_print_them(stored: object, shown: str) -> None:
    """Printers show the canonical form, Go's zero Quantity `0` when absent, and garbage as stored."""
    assert format_quantity(stored) == shown


def test_format_optional_quantity_prints_nil_for_absent_pointer() -> None:
    """A nil *Quantity prints `<nil>`, as in the HPA TARGETS column."""
    assert format_optional_quantity(None) == "<nil>"
    assert format_optional_quantity("200Mi") == "200Mi"


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("100m", Fraction(1, 10)),
        ("2Gi", Fraction(2 * 1024**3)),
        ("5E-1", Fraction(1, 2)),
        ("250u", Fraction(1, 4000)),
        (110, Fraction(110)),
        (0.25, Fraction(1, 4)),
    ],
)
def test_amounts_are_exact(text: object, amount: Fraction) -> None:
    """Suffixes, exponents and JSON numbers give exact amounts (what the scheduler adds up)."""
    assert parse_quantity(text).amount == amount


def test_whole_and_milli_units_round_up() -> None:
    """1.5 whole units is 2; 0.1m of CPU is 1 millicore; -1.5 is -2 (Go rounds away from zero)."""
    assert whole_units(Fraction(3, 2)) == 2
    assert milli_units(Fraction(1, 10000)) == 1
    assert milli_units(Fraction(1, 4)) == 250
    assert whole_units(Fraction(-3, 2)) == -2
    assert milli_units(Fraction(-1, 10000)) == -1
    assert whole_units(Fraction(-2)) == -2


_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_QUANTITY_TEXTS = st.builds(
    lambda sign, whole, fraction, suffix: f"{sign}{whole}{fraction}{suffix}",
    st.sampled_from(["", "+", "-"]),
    st.text("0123456789", max_size=14),
    st.one_of(st.just(""), st.text("0123456789", max_size=12).map(lambda digits: f".{digits}")),
    st.one_of(
        st.sampled_from(
            ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
        ),
        st.builds(lambda e, exponent: f"{e}{exponent}", st.sampled_from("eE"), st.integers(-30, 30)),
    ),
).filter(bool)


@given(_QUANTITY_TEXTS)
def test_every_quantity_reads_back_from_its_canonical_form(text: str) -> None:
    """Printing a quantity and parsing the print gives the same amount and the same print again."""
    quantity = parse_quantity(text)
    printed = str(quantity)
    again = parse_quantity(printed)
    assert again == quantity
    assert str(again) == printed


@given(_QUANTITY_TEXTS)
def test_amounts_are_whole_nano_units_rounded_away_from_zero(text: str) -> None:
    """Every amount is a multiple of 1n, at most 1n further from zero than the text says (binary capped)."""
    quantity = parse_quantity(text)
    assert (quantity.amount * 10**9).denominator == 1
    negative = text.startswith("-")
    written = _exact(text)
    if quantity.format is not Format.BINARY_SI or abs(written) <= 2**63 - 1:
        assert abs(quantity.amount) >= abs(written)
        assert abs(quantity.amount) - abs(written) < Fraction(1, 10**9)
    assert quantity.amount == 0 or (quantity.amount < 0) == negative


@given(_QUANTITY_TEXTS, _QUANTITY_TEXTS)
def test_quantities_order_as_their_amounts(first: str, second: str) -> None:
    """Comparison is by amount, whatever the notations."""
    a, b = parse_quantity(first), parse_quantity(second)
    assert (a < b) == (a.amount < b.amount)
    assert (a == b) == (a.amount == b.amount)
    assert a.value == whole_units(a.amount)
    assert a.milli_value == milli_units(a.amount)


def _exact(text: str) -> Fraction:
    """The exact amount a text spells, without kube's rounding (a reference for the property)."""
    body = text.lstrip("+-")
    for suffix, power in _BINARY.items():
        if body.endswith(suffix):
            return _number(body[: -len(suffix)]) * 2**power
    if body and body[-1] in _DECIMAL:
        return _number(body[:-1]) * Fraction(10) ** _DECIMAL[body[-1]]
    for position, character in enumerate(body):
        if character in "eE":
            return _number(body[:position]) * Fraction(10) ** int(body[position + 1 :])
    return _number(body)


def _number(text: str) -> Fraction:
    whole, _, fraction = text.partition(".")
    return Fraction(int(whole or "0") * 10 ** len(fraction) + int(fraction or "0"), 10 ** len(fraction))


@pytest.mark.parametrize("text", ["1e9999999", "1e-9999999", "5E1001", "1e-1001"])
def test_an_exponent_past_a_thousand_is_refused_at_once(text: str) -> None:
    """Exact amounts of ten million digits would hold the server for good: refused, with the reason."""
    with pytest.raises(QuantityError, match="out of range"):
        parse_quantity(text)


def test_an_exponent_of_a_thousand_is_still_an_amount() -> None:
    """The bound is far past any real amount, and the largest allowed one is exact."""
    assert canonical(parse_quantity("1e1000")) == "10e999"
