"""Resource quantities as exact numbers, just enough for the scheduler's replica arithmetic.

The scheduler reads quantities in two places: a binding's per-replica resource request
(`cpu: 250m`, `memory: 64Mi`) and a cluster's resource summary (`allocatable`, `allocated`,
`allocating`). It only needs their amounts, never their canonical spelling, so this is a small
parser rather than the API server's full quantity module (which `scheduler/core` may not import:
the core stays pure and below the API server in the layering).

Amounts are `Fraction`s so `0.1 + 0.2` CPUs is exactly `300m`. `whole_units` and `milli_units`
round up as apimachinery's `Quantity.Value()` and `MilliValue()` do, which is what Karmada's
general estimator compares: CPU in millicores, everything else in whole units.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|[A-Za-z]*)$")


def parse_quantity(value: object) -> Fraction:
    """The exact amount of a quantity written as a string (`"1.5Gi"`) or a JSON number.

    Raises `ValueError` for a string that is not a quantity and `TypeError` for other types.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise TypeError(f"not a quantity: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a quantity: {value!r}")
    return _amount_of(value.strip() if isinstance(value, str) else repr(value))


@functools.lru_cache(maxsize=4096)
def _amount_of(text: str) -> Fraction:
    """The parse of a quantity's text, remembered (a Fraction is immutable; the same few requests
    and capacities are read for every binding and cluster)."""
    match = _QUANTITY.match(text)
    if match is None:
        raise ValueError(f"not a quantity: {text!r}")
    number, suffix = match.groups()
    amount = Fraction(number)
    if suffix in _BINARY_SUFFIXES:
        return amount * (1 << _BINARY_SUFFIXES[suffix])
    if suffix in _DECIMAL_SUFFIXES:
        return amount * _power_of_ten(_DECIMAL_SUFFIXES[suffix])
    if suffix[:1] in ("e", "E"):
        return amount * _power_of_ten(int(suffix[1:]))
    raise ValueError(f"not a quantity: {text!r}")


def _power_of_ten(exponent: int) -> Fraction:
    return Fraction(10**exponent) if exponent >= 0 else Fraction(1, 10**-exponent)


def whole_units(amount: Fraction) -> int:
    """The amount rounded up to a whole unit (`Quantity.Value()`)."""
    return math.ceil(amount)


def milli_units(amount: Fraction) -> int:
    """The amount in thousandths, rounded up (`Quantity.MilliValue()`)."""
    return math.ceil(amount * 1000)
