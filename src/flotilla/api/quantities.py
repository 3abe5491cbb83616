"""Kubernetes resource quantities (`100m`, `1Gi`, `2.5`, `1e3`): parse once, compute exactly, print as kube.

Requests, limits, quotas, capacities and a cluster's resource summary are quantities, and every
component reads them: the API server validates and canonicalises them, tables print them, CEL
compares them, the scheduler and the simulated kube-scheduler add and divide them, the interpreter
writes them. They all do it here, with apimachinery's `resource` package rules:

- the grammar is `parseQuantityString`'s: an optional sign, digits with an optional fraction (`5.`,
  `.5`; a bare sign or point reads as 0), then one suffix — decimal SI (`n u m k M G T P E`),
  binary (`Ki Mi Gi Ti Pi Ei`) or a decimal exponent (`e3`, `E-2`); the messages are kube's;
- `parse_quantity` reads a field of decoded JSON the way `Quantity.UnmarshalJSON` does (a string,
  surrounding whitespace ignored, or a bare JSON number); `parse_quantity_string` is
  `ParseQuantity` itself, which CEL's `quantity()` uses and which allows no whitespace;
- amounts are exact (`Fraction`), and every non-zero amount is rounded away from zero to whole nano
  units, as kube's parser does; binary amounts are capped at 2^63-1, and a binary amount below one
  is decimal from then on;
- `str()` is `Quantity.String()`: binary suffixes only for whole multiples of 1024 (from 1024 up),
  otherwise the largest decimal SI suffix keeping an integer mantissa, exponent notation staying
  exponent notation. An amount no suffix can spell (past `E` or `Ei`, below `n`) is written in
  exponent notation (`1e21`), as apimachinery does since it stopped dropping the magnitude. (Go
  also echoes an input it already deems canonical — `+1`, `0100m` — verbatim; here the computed
  form is always written.)
- `value`/`milli_value` (and `whole_units`/`milli_units` on a bare amount) round away from zero
  as `Value()` and `MilliValue()` do, which is what the estimators compare.

Parsing is remembered per string: the same few quantities (`100m`, `64Mi`, a node's capacity) are
read for every pod, binding and cluster, and a `Quantity` is immutable.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {0: "", **{exponent: suffix for suffix, exponent in _BINARY_SUFFIXES.items()}}
_SUFFIX_CHARACTERS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_NANO = Fraction(1, 10**9)
_MILLI = Fraction(1, 1000)
_MAX_BINARY = Fraction(2**63 - 1)
_MAX_INT32 = 2**31 - 1
MAX_DECIMAL_EXPONENT = 1000
"""Amounts are exact fractions, so `1e9999999` would be a number of ten million digits: computing it
held the API server for good. kube keeps such exponents symbolic and accepts up to int32; no real
amount comes near 10^1000, so past it a quantity is refused — a deliberate difference."""
_GO_SPACES = " \t\n\v\f\r\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
_GO_WHITESPACE = _GO_SPACES + "".join(map(chr, range(0x2000, 0x200B)))
"""What Go's `strings.TrimSpace` removes (`unicode.IsSpace`); Python's `str.strip()` removes more."""


class QuantityError(ValueError):
    """A value that is not a quantity; the message is kube's."""


class Format(enum.Enum):
    """The notation a quantity was written in, which decides how it prints."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


def whole_units(amount: Fraction) -> int:
    """An amount in whole units, rounded away from zero (`Quantity.Value()`)."""
    return _away_from_zero(amount.numerator, amount.denominator)


def milli_units(amount: Fraction) -> int:
    """An amount in thousandths, rounded away from zero (`Quantity.MilliValue()`)."""
    return _away_from_zero(amount.numerator * 1000, amount.denominator)


def _away_from_zero(numerator: int, denominator: int) -> int:
    """`numerator / denominator` rounded up in magnitude, as apimachinery's `negativeScaleInt64`."""
    magnitude = -(-abs(numerator) // denominator)
    return magnitude if numerator >= 0 else -magnitude


@dataclass(frozen=True, slots=True)
class Quantity:
    """An exact amount and the notation it was written in. Equal amounts are equal quantities."""

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

    def __add__(self, other: Quantity) -> Quantity:
        """The sum, in this quantity's notation (kube's `Add`)."""
        return Quantity(self.amount + other.amount, self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        """The difference, in this quantity's notation (kube's `Sub`)."""
        return Quantity(self.amount - other.amount, self.format)

    @property
    def milli_value(self) -> int:
        """The amount in thousandths, rounded away from zero (kube's `MilliValue`)."""
        return milli_units(self.amount)

    @property
    def value(self) -> int:
        """The amount in whole units, rounded away from zero (kube's `Value`)."""
        return whole_units(self.amount)

    def rounded_up_to_milli(self) -> Quantity:
        """The amount rounded up to thousandths, as kube defaults every resource list."""
        thousandths = self.amount / _MILLI
        if thousandths.denominator == 1:
            return self
        # Away from zero, like kube's `RoundUp`.
        rounded = math.ceil(abs(thousandths)) * (1 if thousandths > 0 else -1)
        return Quantity(Fraction(rounded) * _MILLI, self.format)


ZERO = Quantity(Fraction(0))


def parse_quantity(value: object) -> Quantity:
    """A quantity field of decoded JSON (`Quantity.UnmarshalJSON`): a string or a bare JSON number.

    Whitespace around a string is ignored; anything else that is not a quantity raises
    `QuantityError` with kube's message.
    """
    if isinstance(value, str):
        return _parse_text(value.strip(_GO_WHITESPACE))
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise QuantityError(FORMAT_ERROR)
    return _parse_text(_number_text(value))


def parse_quantity_string(text: str) -> Quantity:
    """`resource.ParseQuantity`: the text must be a quantity as it stands (no whitespace)."""
    return _parse_text(text)


def _number_text(number: int | float) -> str:
    """A decoded JSON number written back as the text kube would have parsed."""
    if isinstance(number, int):
        return str(number)
    if not math.isfinite(number):
        raise QuantityError(FORMAT_ERROR)
    if number.is_integer() and abs(number) < 1e16:
        return str(int(number))
    return repr(number)


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    """The parse itself, remembered. (Failures raise, so they are not remembered.)"""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return ZERO
    negative, whole, fraction, suffix = _split(text)
    base, exponent, notation = _interpret(suffix)
    try:
        digits = int(whole + fraction)
    except ValueError:  # past Python's 4,300-digit conversion limit: refused, not a crash
        raise QuantityError(FORMAT_ERROR) from None
    if not digits:
        return Quantity(Fraction(0), notation)
    if base == 2:
        amount = Fraction(digits << exponent, 10 ** len(fraction))
    else:
        amount = _times_power_of_ten(Fraction(digits), exponent - len(fraction))
    # kube rounds every non-zero value up (away from zero) to whole nano units.
    if (amount / _NANO).denominator != 1:
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if notation is Format.BINARY_SI:
        amount = min(amount, _MAX_BINARY)
        if amount < 1:
            notation = Format.DECIMAL_SI
    return Quantity(-amount if negative else amount, notation)


def _times_power_of_ten(amount: Fraction, exponent: int) -> Fraction:
    if exponent >= 0:
        return amount * int(10**exponent)
    return amount / int(10**-exponent)


def _split(text: str) -> tuple[bool, str, str, str]:
    """Sign, integer digits, fraction digits and suffix, following `parseQuantityString`."""
    position = 0
    negative = False
    if text[0] in "+-":
        negative = text[0] == "-"
        position = 1
    start = position
    while position < len(text) and text[position] in _DIGITS:
        position += 1
    whole = text[start:position] or "0"
    fraction = ""
    if position < len(text) and text[position] == ".":
        position += 1
        start = position
        while position < len(text) and text[position] in _DIGITS:
            position += 1
        fraction = text[start:position]
    suffix_start = position
    while position < len(text) and text[position] in _SUFFIX_CHARACTERS:
        position += 1
    if position < len(text) and text[position] in "+-":
        position += 1
    while position < len(text) and text[position] in _DIGITS:
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
        if len(exponent_text) - len(digits) <= 1 and digits and set(digits) <= _DIGITS:
            exponent = int(exponent_text)
            # kube keeps the exponent in an int32 scale it negates, and refuses what does not fit.
            if abs(exponent) <= _MAX_INT32:
                if abs(exponent) > MAX_DECIMAL_EXPONENT:
                    raise QuantityError(
                        f"unable to parse numeric part of quantity: the exponent {exponent} is out of "
                        f"range (at most {MAX_DECIMAL_EXPONENT} either way)"
                    )
                return 10, exponent, Format.DECIMAL_EXPONENT
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
        while mantissa % 1024 == 0:
            mantissa //= 1024
            power += 10
        if power in _BINARY_BY_EXPONENT:
            return f"{sign}{mantissa}{_BINARY_BY_EXPONENT[power]}"
        # Past `Ei` (arithmetic only: parsing caps binary amounts) no binary suffix is left.
        notation = Format.DECIMAL_EXPONENT
    mantissa, exponent = _decimal_mantissa(magnitude)
    if notation is Format.DECIMAL_SI and exponent in _DECIMAL_BY_EXPONENT:
        return f"{sign}{mantissa}{_DECIMAL_BY_EXPONENT[exponent]}"
    return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")


def _decimal_mantissa(magnitude: Fraction) -> tuple[int, int]:
    """An integer mantissa and an exponent that is a multiple of three, with the fewest digits."""
    exponent = 0
    # Amounts are mostly whole nano units, so the denominator rarely holds more than factors 2 and 5.
    while magnitude.denominator != 1:
        magnitude *= 10
        exponent -= 1
    mantissa, zeros = _without_trailing_zeros(int(magnitude))
    exponent += zeros
    remainder = exponent % 3
    return mantissa * 10**remainder, exponent - remainder


def _without_trailing_zeros(number: int) -> tuple[int, int]:
    """`number` without its trailing decimal zeros, and how many there were.

    Galloping over 10, 10^2, 10^4… keeps this fast for the huge amounts an exponent can spell
    (`1e99999`), where dividing by ten once per zero takes seconds."""
    powers = [10]
    while number % powers[-1] == 0:
        powers.append(powers[-1] * powers[-1])
    zeros = 0
    for position in range(len(powers) - 2, -1, -1):
        if number % powers[position] == 0:
            number //= powers[position]
            zeros += 1 << position
    return number, zeros


def canonical_form(value: object) -> object:
    """`value` written canonically when it is a quantity; anything else comes back unchanged."""
    try:
        return canonical(parse_quantity(value))
    except QuantityError:
        return value


def format_quantity(value: object) -> str:
    """A stored quantity as printers show it: canonical, `0` (Go's zero Quantity) when absent.

    Something that does not parse is shown as stored: a real server would have refused it."""
    if value is None:
        return "0"
    try:
        return canonical(parse_quantity(value))
    except QuantityError:
        return str(value)


def format_optional_quantity(value: object) -> str:
    """A quantity behind a Go pointer: `<nil>` when absent, as `(*Quantity)(nil).String()` prints."""
    return "<nil>" if value is None else format_quantity(value)
