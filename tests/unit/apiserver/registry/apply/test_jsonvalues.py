"""JSON text, equality and order as Kubernetes' Go code has them."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.apply.jsonvalues import (
    describe_value,
    go_json,
    json_copy,
    json_equal,
    value_order,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"protocol": "TCP", "containerPort": 80}, '{"containerPort":80,"protocol":"TCP"}'),
        ("a<b>&c", '"a\\u003cb\\u003e\\u0026c"'),
        ("line\nbreak\ttab", '"line\\nbreak\\ttab"'),
        ("\x01", '"\\u0001"'),
        ("\u2028", '"\\u2028"'),
        ("naïve", '"naïve"'),
        ([1, "x", None, True], '[1,"x",null,true]'),
    ],
)
def test_go_json_writes_what_gos_encoder_writes(value: Any, text: str) -> None:
    """Keys are sorted, nothing is spaced, and HTML characters are escaped as Go escapes them."""
    assert go_json(value) == text


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (100.0, "100"),
        (0.5, "0.5"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (123456.789, "123456.789"),
        (-2.0, "-2"),
    ],
)
def test_floats_are_printed_in_gos_shortest_form(number: float, text: str) -> None:
    """Integral floats lose their `.0` and exponents lose leading zeros."""
    assert go_json(number) == text


def test_go_json_rejects_values_json_cannot_hold() -> None:
    """NaN is not JSON, so it cannot name a list item."""
    with pytest.raises(ValueError, match="unsupported JSON number"):
        go_json(float("nan"))


def test_booleans_are_not_numbers() -> None:
    """`true` and `1` differ, although Python says they are equal."""
    assert not json_equal(True, 1)
    assert not json_equal([0], [False])
    assert json_equal(1, 1.0)
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


def test_values_order_numbers_strings_booleans_lists_objects_null() -> None:
    """The type order is structured-merge-diff's, and numbers compare numerically across int and float."""
    values: list[Any] = [None, {"a": 1}, [1], True, "b", 2.5, 1]
    assert sorted(values, key=value_order) == [1, 2.5, "b", True, [1], {"a": 1}, None]


def test_values_in_paths_are_described_like_structured_merge_diff() -> None:
    """Strings are quoted, numbers and booleans bare."""
    assert describe_value("nginx") == '"nginx"'
    assert describe_value(80) == "80"
    assert describe_value(False) == "false"


def test_containers_python_finds_equal_may_differ_as_json() -> None:
    """`[1]` and `[true]` differ, `{"a": 1}` and `{"a": 1.0}` do not, whatever the key order."""
    assert not json_equal([1], [True])
    assert not json_equal({"a": {"b": 0}}, {"a": {"b": False}})
    assert json_equal({"a": 1, "b": [2]}, {"b": [2.0], "a": 1.0})


def test_json_copy_shares_nothing_with_the_original() -> None:
    """Changing the copy at any depth leaves the original alone."""
    original = {"a": [{"b": 1}], "c": "d"}
    copied = json_copy(original)
    copied["a"][0]["b"] = 2
    assert copied == {"a": [{"b": 2}], "c": "d"}
    assert original == {"a": [{"b": 1}], "c": "d"}


@pytest.mark.parametrize(
    "original",
    [
        {"ratio": float("nan"), "list": [1]},
        {"limit": float("inf")},
        {"pair": (1, 2), "list": [1]},
        {1: "a key that is no string"},
        {"huge": 2**70, "list": [1]},
        {"flag": True, "one": 1, "float": 1.0, "negative zero": -0.0},
    ],
)
def test_json_copy_keeps_what_json_cannot_say_the_same_way(original: dict[Any, Any]) -> None:
    """Values orjson would write otherwise, or refuses, are copied as they are, types included."""
    copied = json_copy(original)
    assert copied is not original
    assert [type(value) for value in copied.values()] == [type(value) for value in original.values()]
    assert repr(copied) == repr(original)
