"""The walk skips scalars only when no rule applies: every constrained or mistyped value is still found."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.walk import WalkOptions, walk_object

CHECK = WalkOptions(apply_defaults=False, check_values=True, drop_nulls=False)
DECODE = WalkOptions(apply_defaults=False, check_values=False, drop_nulls=False)
METADATA = Schema(types=frozenset({"object"}), any_properties=True, preserve_unknown_fields=True)

STRING = frozenset({"string"})
INTEGER = frozenset({"integer"})
RULES: dict[str, Schema] = {
    "plain": Schema(types=STRING),
    "enum": Schema(types=STRING, enum=("a", "b")),
    "pattern": Schema(types=STRING, pattern="^x+$"),
    "short": Schema(types=STRING, max_length=2),
    "long": Schema(types=STRING, min_length=3),
    "when": Schema(types=STRING, format="date-time"),
    "count": Schema(types=INTEGER),
    "small": Schema(types=INTEGER, format="int32"),
    "positive": Schema(types=INTEGER, minimum=1),
    "ratio": Schema(types=frozenset({"number"}), maximum=1.0),
    "flag": Schema(types=frozenset({"boolean"})),
    "names": Schema(types=frozenset({"array"}), items=Schema(types=STRING, pattern="^[a-z]+$")),
}
SCHEMA = Schema(types=frozenset({"object"}), properties=RULES)


def _walk(spec: dict[str, Any], options: WalkOptions = CHECK) -> tuple[list[str], list[str]]:
    result = walk_object({"spec": spec}, Schema(properties={"spec": SCHEMA}), METADATA, options)
    return sorted(e.field for e in result.errors), sorted(e.field for e in result.type_errors)


def test_values_within_every_rule_pass() -> None:
    """Valid values of every kind give no finding."""
    spec = {
        "plain": "anything",
        "enum": "a",
        "pattern": "xx",
        "short": "ab",
        "long": "abc",
        "when": "2026-11-29T00:00:00Z",
        "count": 7,
        "small": 5,
        "positive": 1,
        "ratio": 0.5,
        "flag": True,
        "names": ["a", "b"],
    }
    assert _walk(spec) == ([], [])


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("enum", "c"),
        ("pattern", "y"),
        ("short", "abc"),
        ("long", "ab"),
        ("when", "yesterday"),
        ("small", 2**31),
        ("positive", 0),
        ("ratio", 2.0),
    ],
)
def test_a_value_breaking_its_rule_is_reported(name: str, value: Any) -> None:
    """A scalar with a rule is checked even though plain scalars are skipped."""
    assert _walk({name: value}) == ([f"spec.{name}"], [])


@pytest.mark.parametrize(
    ("name", "value"),
    [("plain", 1), ("count", "7"), ("count", True), ("count", 1.5), ("flag", "yes"), ("ratio", "x")],
)
def test_a_value_of_the_wrong_type_is_reported(name: str, value: Any) -> None:
    """Booleans are not integers, strings not numbers: the type check still runs."""
    assert _walk({name: value}) == ([], [f"spec.{name}"])


def test_list_items_are_checked_by_their_rules_and_types() -> None:
    """Items of a list of constrained strings are each checked."""
    assert _walk({"names": ["ok", "Bad", 3]}) == (["spec.names[1]"], ["spec.names[2]"])


def test_decoding_checks_types_but_not_rules() -> None:
    """Without value checks only the types matter."""
    assert _walk({"enum": "c", "pattern": "y", "count": "7"}, DECODE) == ([], ["spec.count"])


def test_a_pattern_with_nested_quantifiers_is_matched_in_linear_time() -> None:
    """`^(a+)+$` over 40 a's and a b froze Python's backtracking re for minutes; RE2 answers at once."""
    schema = Schema(types=frozenset({"object"}), properties={"x": Schema(types=STRING, pattern="^(a+)+$")})
    result = walk_object(
        {"spec": {"x": "a" * 40 + "b"}}, Schema(properties={"spec": schema}), METADATA, CHECK
    )
    assert [str(e) for e in result.errors] == [
        f"spec.x: Invalid value: \"{'a' * 40}b\": should match '^(a+)+$'"
    ]
