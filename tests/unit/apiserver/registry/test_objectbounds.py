"""The bounds on bodies and objects: nesting depth measured without recursion, size when stored."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.registry.objectbounds import (
    MAX_DEPTH,
    MAX_OBJECT_BYTES,
    check_depth,
    encode_for_storage,
    may_exceed_depth,
    nesting_depth,
)


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for index in range(levels):
        value = {"a": value} if index % 2 else [value]
    return value


@pytest.mark.parametrize("levels", [0, 1, 2, 50, MAX_DEPTH])
def test_nesting_depth_counts_objects_and_lists(levels: int) -> None:
    assert nesting_depth(nested(levels)) == levels


def test_nesting_depth_stops_counting_past_the_limit_and_never_recurses() -> None:
    """100,000 levels would overflow any recursive walk; this one stops at limit + 1."""
    assert nesting_depth(nested(100_000)) == MAX_DEPTH + 1
    with pytest.raises(errors.BadRequest, match=f"at most {MAX_DEPTH} levels"):
        check_depth(nested(MAX_DEPTH + 1))


def test_a_body_with_fewer_brackets_than_the_limit_cannot_exceed_it() -> None:
    assert not may_exceed_depth(b'{"a": [1, 2, {"b": 3}]}')
    assert may_exceed_depth(b"[" * (MAX_DEPTH + 1))


def test_an_object_over_the_limit_is_413_when_stored() -> None:
    assert encode_for_storage({"data": {"k": "x" * 100}}).startswith(b'{"data"')
    with pytest.raises(errors.RequestEntityTooLarge, match=str(MAX_OBJECT_BYTES)):
        encode_for_storage({"data": {"k": "x" * MAX_OBJECT_BYTES}})


def test_a_value_json_cannot_hold_is_400_not_500_when_stored() -> None:
    with pytest.raises(errors.BadRequest, match="cannot be stored"):
        encode_for_storage({"n": 2**70})
