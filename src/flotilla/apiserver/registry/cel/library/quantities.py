"""Kubernetes' quantity library: `quantity('1.5Gi')` and its comparisons and arithmetic.

Quantities are `flotilla.api.quantities`, the code that validates them in built-in kinds, so
`isQuantity` agrees with what a Pod's resources accept; like kube's `resource.ParseQuantity`, the
string is taken as it stands (no surrounding whitespace).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flotilla.api.quantities import Quantity, QuantityError, parse_quantity_string
from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import EvalError, no_overload


class CelQuantity:
    __slots__ = ("quantity",)
    cel_type = "kubernetes.Quantity"

    def __init__(self, quantity: Quantity) -> None:
        self.quantity = quantity

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelQuantity) and other.quantity.amount == self.quantity.amount

    def __hash__(self) -> int:
        return hash(self.quantity.amount)

    def compare_to(self, other: CelQuantity) -> int:
        a, b = self.quantity.amount, other.quantity.amount
        return (a > b) - (a < b)

    def cel_string(self) -> str:
        return str(self.quantity)


def _parse(value: Any) -> CelQuantity:
    if not isinstance(value, str):
        raise no_overload("quantity", value)
    try:
        return CelQuantity(parse_quantity_string(value))
    except QuantityError as error:
        raise EvalError(str(error)) from None


def _quantity(budget: Budget, value: Any) -> CelQuantity:
    return _parse(value)


def _is_quantity(budget: Budget, value: Any) -> bool:
    if not isinstance(value, str):
        raise no_overload("isQuantity", value)
    try:
        parse_quantity_string(value)
    except QuantityError:
        return False
    return True


def _operand(function: str, target: Any, other: Any) -> tuple[CelQuantity, CelQuantity]:
    if not isinstance(target, CelQuantity):
        raise no_overload(function, target, other)
    if isinstance(other, int) and not isinstance(other, bool):
        return target, CelQuantity(Quantity(Fraction(other), target.quantity.format))
    if not isinstance(other, CelQuantity):
        raise no_overload(function, target, other)
    return target, other


def _add(budget: Budget, target: Any, other: Any) -> CelQuantity:
    a, b = _operand("add", target, other)
    return CelQuantity(a.quantity + b.quantity)


def _sub(budget: Budget, target: Any, other: Any) -> CelQuantity:
    a, b = _operand("sub", target, other)
    return CelQuantity(a.quantity - b.quantity)


def _compare_to(budget: Budget, target: Any, other: Any) -> int:
    a, b = _operand("compareTo", target, other)
    return a.compare_to(b)


def _is_less_than(budget: Budget, target: Any, other: Any) -> bool:
    return _compare_to(budget, target, other) < 0


def _is_greater_than(budget: Budget, target: Any, other: Any) -> bool:
    return _compare_to(budget, target, other) > 0


def _own(function: str, target: Any) -> Fraction:
    if not isinstance(target, CelQuantity):
        raise no_overload(function, target)
    return target.quantity.amount


def _sign(budget: Budget, target: Any) -> int:
    amount = _own("sign", target)
    return (amount > 0) - (amount < 0)


def _is_integer(budget: Budget, target: Any) -> bool:
    amount = _own("isInteger", target)
    return amount.denominator == 1 and -(2**63) <= amount < 2**63


def _as_integer(budget: Budget, target: Any) -> int:
    amount = _own("asInteger", target)
    if amount.denominator != 1 or not -(2**63) <= amount < 2**63:
        raise EvalError("cannot convert value to integer")
    return int(amount)


def _as_approximate_float(budget: Budget, target: Any) -> float:
    amount = _own("asApproximateFloat", target)
    value = float(amount)
    if math.isinf(value):
        raise EvalError("quantity out of range of double")
    return value


register("quantity", _quantity, global_arities=(1,))
register("isQuantity", _is_quantity, global_arities=(1,))
_BINARY: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("add", _add),
    ("sub", _sub),
    ("compareTo", _compare_to),
    ("isLessThan", _is_less_than),
    ("isGreaterThan", _is_greater_than),
)
_UNARY: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("sign", _sign),
    ("isInteger", _is_integer),
    ("asInteger", _as_integer),
    ("asApproximateFloat", _as_approximate_float),
)
for _name, _function in _BINARY:
    register(_name, _function, member_arities=(2,))
for _name, _function in _UNARY:
    register(_name, _function, member_arities=(1,))
