"""Kubernetes' lists library: isSorted, sum, min, max (indexOf and lastIndexOf live with strings').

Each walks the list once and charges one per element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import EvalError, Uint, compare, is_number, no_overload


def _items(function: str, value: Any) -> Sequence[Any]:
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise no_overload(function, value)
    return value


def _is_sorted(budget: Budget, target: Any) -> bool:
    items = _items("isSorted", target)
    budget.charge(len(items))
    return all(compare("isSorted", items[i], items[i + 1]) <= 0 for i in range(len(items) - 1))


def _sum(budget: Budget, target: Any) -> Any:
    items = _items("sum", target)
    budget.charge(len(items))
    if not items:
        return 0
    if not all(is_number(item) and type(item) is type(items[0]) for item in items):
        raise no_overload("sum", target)
    if isinstance(items[0], Uint):
        return Uint(sum(item.value for item in items))
    total = sum(items)
    if isinstance(total, int) and not -(2**63) <= total < 2**63:
        raise EvalError("integer overflow")
    return total


def _extreme(function: str, sign: int) -> Any:
    def pick(budget: Budget, target: Any) -> Any:
        items = _items(function, target)
        budget.charge(len(items))
        if not items:
            raise EvalError(f"{function} called on empty list")
        best = items[0]
        for item in items[1:]:
            if compare(function, item, best) * sign > 0:
                best = item
        return best

    return pick


register("isSorted", _is_sorted, member_arities=(1,))
register("sum", _sum, member_arities=(1,))
register("min", _extreme("min", -1), member_arities=(1,))
register("max", _extreme("max", 1), member_arities=(1,))
