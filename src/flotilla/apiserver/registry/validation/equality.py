"""Semantic equality of JSON values, as apimachinery's `apiequality.Semantic.DeepEqual` sees them.

Immutability rules compare an update with the stored object. kube compares decoded Go structs,
where an absent field, `null`, an empty list or map, `""`, `0` and `false` are all the same zero
value, and where quantities compare by amount (`1000m` equals `1`). Comparing raw JSON would call
`{"hostNetwork": false}` and `{}` different and reject harmless updates, so values are reduced to
that zero-free form first.
"""

from __future__ import annotations

from typing import Any

_ZERO_SCALARS: tuple[Any, ...] = (None, "", 0, False)


def _is_zero(value: Any) -> bool:
    if isinstance(value, (dict, list)):
        return not value
    return any(value is zero or (type(value) is type(zero) and value == zero) for zero in _ZERO_SCALARS)


def normalized(value: Any) -> Any:
    """`value` with zero-valued object fields removed, recursively (list items are kept)."""
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            reduced = normalized(item)
            if not _is_zero(reduced):
                result[key] = reduced
        return result
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return value


def semantic_equal(left: Any, right: Any) -> bool:
    """True when the two values decode to equal Go values."""
    left_reduced, right_reduced = normalized(left), normalized(right)
    if _is_zero(left_reduced) and _is_zero(right_reduced):
        return True
    return bool(left_reduced == right_reduced)
