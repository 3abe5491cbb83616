"""The one quantity implementation agrees with each copy it replaces, on what that copy was used for.

Written before the copies are deleted: each property states the use (validation and canonical
form, printing, scheduler arithmetic, interpreter rendering, protobuf checking) and the inputs where
the copy was not kube's are left out by name.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api import quantities
from flotilla.apiserver.encoding.protobuf import wellknown
from flotilla.apiserver.registry.tables import quantity as table_quantity
from flotilla.apiserver.registry.validation import quantity as validation_quantity
from flotilla.interpreter import requests as interpreter_requests
from flotilla.interpreter.kinds import InterpreterError
from flotilla.scheduler.core import quantities as scheduler_quantities

_SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_EXPONENTS = st.builds(
    lambda letter, sign, digits: f"{letter}{sign}{digits}",
    st.sampled_from("eE"),
    st.sampled_from(["", "+", "-"]),
    st.integers(min_value=0, max_value=40),
)


@st.composite
def quantity_texts(draw: st.DrawFn, *, digits_required: bool = False) -> str:
    """Strings of kube's quantity grammar, bare signs and points and odd suffixes included."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text("0123456789", min_size=1 if digits_required else 0, max_size=14))
    fraction = draw(st.one_of(st.just(None), st.text("0123456789", max_size=12)))
    suffix = draw(
        st.one_of(st.sampled_from(_SUFFIXES), _EXPONENTS, st.text("eEinumkKMGTP+-0123", max_size=3))
    )
    number = whole if fraction is None else f"{whole}.{fraction}"
    return f"{sign}{number}{suffix}"


_ANY_TEXT = st.one_of(quantity_texts(), st.text("0123456789.+-eEinumkKMGTPx ", max_size=8))


def _new(value: object) -> quantities.Quantity | None:
    try:
        return quantities.parse_quantity(value)
    except quantities.QuantityError:
        return None


def _beyond_exa(quantity: quantities.Quantity) -> bool:
    """A decimal SI amount kube prints without suffix (the old validation copy printed `e21`)."""
    return quantity.format is quantities.Format.DECIMAL_SI and abs(quantity.amount) >= 1000 * 10**18


def _over_int64_binary(text: str) -> bool:
    """A binary amount kube caps at 2^63-1 (the old copies kept it)."""
    old = _old_validation(text)
    return (
        old is not None and old.format is validation_quantity.Format.BINARY_SI and abs(old.amount) > 2**63 - 1
    )


def _old_validation(value: object) -> validation_quantity.Quantity | None:
    try:
        return validation_quantity.parse_quantity(value)
    except validation_quantity.QuantityError:
        return None


@given(_ANY_TEXT)
def test_agrees_with_validation_on_acceptance_amount_and_canonical_form(text: str) -> None:
    """The API server's copy: the same strings accepted, the same amounts, the same canonical form."""
    old, new = _old_validation(text), _new(text)
    if text != text.strip():
        return  # the old copy refused surrounding whitespace, which kube's JSON decoding trims
    assert (old is None) == (new is None)
    if old is None or new is None or _over_int64_binary(text):
        return
    assert old.amount == new.amount
    assert old.format.value == new.format.value
    if not _beyond_exa(new):
        assert str(old) == str(new)
    assert old.milli_value == new.milli_value
    assert old.value == new.value
    assert str(old.rounded_up_to_milli()) == str(new.rounded_up_to_milli()) or _beyond_exa(new)


@given(st.one_of(st.integers(min_value=-(10**20), max_value=10**20), st.floats(allow_nan=False)))
def test_agrees_with_validation_on_json_numbers(number: float) -> None:
    """A bare JSON number reads the same in both."""
    old, new = _old_validation(number), _new(number)
    assert (old is None) == (new is None)
    if old is not None and new is not None:
        assert old.amount == new.amount
        assert str(old) == str(new) or _beyond_exa(new)


@given(quantity_texts(digits_required=True))
def test_agrees_with_the_table_printer(text: str) -> None:
    """The printers' copy: the same canonical text for every quantity it could read.

    It refused digitless numbers (`-`, `.`, `e3`), which kube reads as 0, and printed them as stored;
    it failed on the exa suffix `E`, which it took for an exponent without digits."""
    if text.endswith("E") and not text.endswith("EE"):
        return
    old = table_quantity.format_quantity(text)
    new = quantities.format_quantity(text)
    if _over_int64_binary(text):
        return
    assert old == new


def test_table_printer_differences_are_kubes() -> None:
    """Where the printers' copy was wrong: Unicode digits are no quantity, a bare sign is 0."""
    arabic_one = "\u0661"
    assert table_quantity.format_quantity(arabic_one) == "1"
    assert quantities.format_quantity(arabic_one) == arabic_one
    assert table_quantity.format_quantity("-") == "-"
    with pytest.raises(ValueError, match="invalid literal"):
        table_quantity.format_quantity("2E")
    assert quantities.format_quantity("2E") == "2E"
    assert quantities.format_quantity("-") == "0"
    assert quantities.format_optional_quantity(None) == table_quantity.format_optional_quantity(None)


def _old_scheduler(value: object) -> Fraction | None:
    try:
        return scheduler_quantities.parse_quantity(value)
    except (TypeError, ValueError):
        return None


@given(quantity_texts(digits_required=True).filter(lambda text: not text.startswith("-")))
def test_agrees_with_the_scheduler_on_whole_and_milli_units(text: str) -> None:
    """The scheduler's copy kept exact amounts finer than a nano unit; it only ever rounded them up
    to whole units or thousandths, where kube's nano rounding changes nothing."""
    old, new = _old_scheduler(text), _new(text)
    assert (old is None) == (new is None)
    if old is None or new is None or _over_int64_binary(text):
        return
    assert scheduler_quantities.whole_units(old) == new.value == quantities.whole_units(new.amount)
    assert scheduler_quantities.milli_units(old) == new.milli_value == quantities.milli_units(new.amount)
    assert abs(old - new.amount) < Fraction(1, 10**9)


@given(st.fractions(min_value=-(10**6), max_value=10**6))
def test_agrees_with_the_scheduler_on_rounding_amounts(amount: Fraction) -> None:
    """`whole_units` and `milli_units` of a computed amount (free capacity) round up as before."""
    assert quantities.whole_units(amount) == scheduler_quantities.whole_units(amount)
    assert quantities.milli_units(amount) == scheduler_quantities.milli_units(amount)


def _old_interpreter(value: object) -> Fraction | None:
    try:
        return interpreter_requests.parse_amount(value)
    except InterpreterError:
        return None


@given(quantity_texts(digits_required=True).filter(lambda text: not text.startswith("-")))
def test_agrees_with_the_interpreter_on_amounts(text: str) -> None:
    """The interpreter's copy read requests (never negative) with nano rounding, as kube does."""
    old, new = _old_interpreter(text), _new(text)
    assert (old is None) == (new is None)
    if old is not None and new is not None and not _over_int64_binary(text):
        assert old == new.amount


@given(st.integers(min_value=0, max_value=10**20), st.sampled_from([1, 1000]))
def test_agrees_with_the_interpreter_on_decimal_rendering(units: int, per_unit: int) -> None:
    """Whole units and millicores written with the largest decimal suffix."""
    amount = Fraction(units, per_unit)
    written = quantities.canonical(quantities.Quantity(amount, quantities.Format.DECIMAL_SI))
    assert interpreter_requests.decimal_quantity(amount) == written


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_agrees_with_the_interpreter_on_binary_rendering(amount: int) -> None:
    """Byte counts written with a binary suffix when 1024 divides them."""
    written = quantities.canonical(quantities.Quantity(Fraction(amount), quantities.Format.BINARY_SI))
    assert interpreter_requests.binary_quantity(amount) == written


@given(_ANY_TEXT)
def test_agrees_with_the_protobuf_check_where_the_number_has_digits(text: str) -> None:
    """The protobuf decoder's pattern refused digitless numbers kube reads as 0; elsewhere they agree."""
    try:
        wellknown.render_quantity(_string_field(text))
        old = True
    except wellknown.ProtobufError:
        old = False
    try:
        quantities.parse_quantity_string(text)
        new = True
    except quantities.QuantityError:
        new = False
    if re.match(r"[+-]?\.?[0-9]", text):
        assert old == new
    else:
        assert not old


def _string_field(text: str) -> bytes:
    payload = text.encode()
    return bytes([0x0A, len(payload)]) + payload
