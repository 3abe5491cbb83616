"""Kubernetes resource quantities (`100m`, `1Gi`, `2.5`, `1e3`): parse, compare, print canonically.

Resource requests, limits, quotas and capacities are quantities. kube-apiserver parses them with
apimachinery's `resource.ParseQuantity` and always writes them back in a canonical form, so a
client that sends `cpu: 0.5` reads back `500m` and `memory: 1024Mi` reads back `1Gi`. This module
does both the same way:

- the grammar is kube's: an optional sign, digits with an optional fraction, then one suffix —
  a decimal SI suffix (`n u m k M G T P E`), a binary one (`Ki Mi Gi Ti Pi Ei`) or a decimal
  exponent (`e3`, `E-2`);
- values are exact (a `Fraction`), rounded up to nano units as kube does, so comparisons never
  suffer from binary floating point;
- `str()` is kube's canonical form: binary suffixes are kept only for whole multiples of 1024,
  everything else becomes the largest decimal SI suffix that keeps an integer mantissa, and
  exponent-style input stays exponent-style.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {exponent: suffix for suffix, exponent in _BINARY_SUFFIXES.items()}
_SUFFIX_CHARACTERS = frozenset("eEinumkKMGTP")
_NANO = Fraction(1, 10**9)
_MILLI = Fraction(1, 1000)


class QuantityError(ValueError):
    """A string that is not a quantity; the message is kube's."""


class Format(enum.Enum):
    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


@dataclass(frozen=True, slots=True)
class Quantity:
    """An exact amount and the notation it was written in (which decides how it prints)."""

    amount: Fraction
    format: Format = Format.DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self)

    def __lt__(self, other: Quantity) -> bool:
        return self.amount < other.amount

    def __le__(self, other: Quantity) -> bool:
        return self.amount <= other.amount

    def __gt__(self, other: Quantity) -> bool:
        return self.amount > other.amount

    def __ge__(self, other: Quantity) -> bool:
        return self.amount >= other.amount

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.amount == other.amount

    def __hash__(self) -> int:
        return hash(self.amount)

    @property
    def milli_value(self) -> int:
        """The amount in thousandths, rounded up (kube's `MilliValue`)."""
        return -((-self.amount.numerator * 1000) // self.amount.denominator)

    @property
    def value(self) -> int:
        """The amount rounded up to a whole number (kube's `Value`)."""
        return -(-self.amount.numerator // self.amount.denominator)

    def rounded_up_to_milli(self) -> Quantity:
        """The amount rounded up to thousandths, as kube defaults every resource list."""
        thousandths = self.amount / _MILLI
        if thousandths.denominator == 1:
            return self
        # Away from zero, like kube's `RoundUp`.
        rounded = math.ceil(abs(thousandths)) * (1 if thousandths > 0 else -1)
        return Quantity(Fraction(rounded) * _MILLI, self.format)

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.amount + other.amount, self.format)


ZERO = Quantity(Fraction(0))


def parse_quantity(value: Any) -> Quantity:
    """A quantity from its JSON form: a string, or a bare JSON number as kube also accepts."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise QuantityError(FORMAT_ERROR)
    return _parse_text(value if isinstance(value, str) else _number_text(value))


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    """The parse itself, remembered: the same few quantities (`10m`, `64Mi`, a node's capacity) are
    parsed over and over by defaulting, validation and the simulated scheduler, and `Quantity` is
    immutable. (Failures raise, so they are not remembered.)"""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return ZERO
    negative, whole, fraction, suffix = _split(text)
    base, exponent, notation = _interpret(suffix)
    digits = Fraction(int(whole + fraction)) / Fraction(10 ** len(fraction))
    amount = digits * Fraction(base) ** exponent
    if amount:
        # kube rounds every non-zero value up (away from zero) to whole nano units.
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if notation is Format.BINARY_SI and 0 < amount < 1:
        notation = Format.DECIMAL_SI
    return Quantity(-amount if negative else amount, notation)


def _number_text(number: int | float) -> str:
    if isinstance(number, int):
        return str(number)
    if number.is_integer() and abs(number) < 1e16:
        return str(int(number))
    return repr(number)


def _split(text: str) -> tuple[bool, str, str, str]:
    """Sign, integer digits, fraction digits and suffix, following `parseQuantityString`."""
    position = 0
    negative = False
    if text[0] in "+-":
        negative = text[0] == "-"
        position = 1
    start = position
    while position < len(text) and text[position].isdigit() and text[position].isascii():
        position += 1
    whole = text[start:position] or "0"
    fraction = ""
    if position < len(text) and text[position] == ".":
        position += 1
        start = position
        while position < len(text) and text[position].isdigit() and text[position].isascii():
            position += 1
        fraction = text[start:position]
    suffix_start = position
    while position < len(text) and text[position] in _SUFFIX_CHARACTERS:
        position += 1
    if position < len(text) and text[position] in "+-":
        position += 1
    while position < len(text) and text[position].isdigit() and text[position].isascii():
        position += 1
    if position != len(text):
        raise QuantityError(FORMAT_ERROR)
    return negative, whole, fraction, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """Base, exponent and notation of a suffix, as kube's `suffixer.interpret`."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent_text = suffix[1:]
        digits = exponent_text.lstrip("+-")
        if len(exponent_text) - len(digits) <= 1 and digits.isdigit() and digits.isascii():
            return 10, int(exponent_text), Format.DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


def canonical(quantity: Quantity) -> str:
    """The form kube writes a quantity back in (`Quantity.String()`)."""
    return _canonical(quantity.amount, quantity.format)


@functools.lru_cache(maxsize=4096)
def _canonical(amount: Fraction, notation: Format) -> str:
    """`canonical` of an amount in a notation, remembered like `_parse_text` (a `Quantity` itself is
    no cache key: equal amounts in different notations compare equal but print differently)."""
    if amount == 0:
        return "0"
    if notation is Format.BINARY_SI and (abs(amount) < 1024 or amount.denominator != 1):
        notation = Format.DECIMAL_SI
    sign = "-" if amount < 0 else ""
    magnitude = abs(amount)
    if notation is Format.BINARY_SI:
        mantissa, power = int(magnitude), 0
        while mantissa % 1024 == 0 and power < 60:
            mantissa //= 1024
            power += 10
        return f"{sign}{mantissa}{_BINARY_BY_EXPONENT.get(power, '')}"
    mantissa, exponent = _decimal_mantissa(magnitude)
    if notation is Format.DECIMAL_SI and exponent in _DECIMAL_BY_EXPONENT:
        return f"{sign}{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"
    return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")


def _decimal_mantissa(magnitude: Fraction) -> tuple[int, int]:
    """An integer mantissa and an exponent that is a multiple of three, with the fewest digits."""
    exponent = 0
    # Values are whole nano units, so the denominator only holds factors 2 and 5.
    while magnitude.denominator != 1:
        magnitude *= 10
        exponent -= 1
    mantissa = int(magnitude)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    remainder = exponent % 3
    return mantissa * 10**remainder, exponent - remainder


def canonical_form(value: Any) -> Any:
    """`value` written canonically when it is a quantity; anything else comes back unchanged."""
    try:
        return canonical(parse_quantity(value))
    except QuantityError:
        return value
