"""Resource quantities in Kubernetes' canonical form (`1Gi`, `500m`, `1536Mi`), as printers show them.

A real API server parses every `resource.Quantity` on the way in, so tables always show the
canonical string (`Quantity.String()`): `1024Mi` reads back as `1Gi`, `0.5` as `500m`. Flotilla
stores what the client sent, so printers canonicalise when rendering.

The rules, from apimachinery's `resource` package: the suffix family the value was written in is
kept (binary `Ki..Ei`, decimal `n..E`, or exponent `e3`); values are rounded up to nano precision;
binary values that are smaller than 1024 or fractional are shown in decimal; decimal mantissas
carry no trailing zeros and an exponent that is a multiple of three.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {exponent: suffix for suffix, exponent in _BINARY.items()}
_QUANTITY = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))((?:[eE][+-]?\d+)|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?")
_NANO = Fraction(1, 10**9)


class InvalidQuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(value: str) -> tuple[Fraction, str]:
    """The exact value of a quantity and its format: `binary`, `decimal` or `exponent`."""
    match = _QUANTITY.fullmatch(value.strip())
    if match is None:
        raise InvalidQuantityError(value)
    number, suffix = match.group(1), match.group(2) or ""
    amount = Fraction(number)
    if suffix in _BINARY:
        amount *= 1024 ** _BINARY[suffix]
        form = "binary"
    elif suffix[:1] in ("e", "E"):
        amount *= Fraction(10) ** int(suffix[1:])
        form = "exponent"
    else:
        amount *= Fraction(10) ** _DECIMAL[suffix]
        form = "decimal"
    # Kubernetes keeps nano precision and rounds anything finer away from zero.
    scaled = amount / _NANO
    rounded = math.ceil(scaled) if scaled >= 0 else math.floor(scaled)
    return rounded * _NANO, form


def _decimal(amount: Fraction, form: str) -> str:
    # Nano rounding guarantees amount * 10**9 is a whole number.
    mantissa, exponent = int(amount / _NANO), -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    if exponent % 3 == 1:
        mantissa, exponent = mantissa * 10, exponent - 1
    elif exponent % 3 == 2:
        mantissa, exponent = mantissa * 100, exponent - 2
    if form == "exponent":
        return f"{mantissa}" if exponent == 0 else f"{mantissa}e{exponent}"
    # Beyond `E` Go finds no suffix and prints the bare mantissa; mirror it.
    return f"{mantissa}{_DECIMAL_SUFFIX.get(exponent, '')}"


def canonical(amount: Fraction, form: str) -> str:
    """`Quantity.String()` for a parsed value."""
    if amount == 0:
        return "0"
    if form == "binary" and (abs(amount) < 1024 or amount.denominator != 1):
        form = "decimal"
    if form != "binary":
        return _decimal(amount, form)
    mantissa, exponent = amount.numerator, 0
    while mantissa % 1024 == 0:
        mantissa //= 1024
        exponent += 1
    return f"{mantissa}{_BINARY_SUFFIX.get(exponent, '')}"


def format_quantity(value: object) -> str:
    """A stored quantity (string or number) in canonical form; `0` when absent.

    Unparseable strings are returned unchanged: a real server would have rejected them on write.
    """
    if value is None:
        return "0"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        value = repr(value) if isinstance(value, float) else str(value)
    if not isinstance(value, str):
        return str(value)
    try:
        amount, form = parse_quantity(value)
    except InvalidQuantityError:
        return value
    return canonical(amount, form)


def format_optional_quantity(value: object) -> str:
    """A quantity behind a Go pointer: `<nil>` when absent, as `(*Quantity)(nil).String()` prints."""
    return "<nil>" if value is None else format_quantity(value)
