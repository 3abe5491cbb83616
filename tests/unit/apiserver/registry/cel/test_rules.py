"""A schema's rules over objects: kube's messages, reasons, fieldPath, transition rules, ratcheting, budgets."""

# ruff: noqa: E501 - kube messages and CEL rules are quoted whole: unbroken they read as kube prints them

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.cel.budget import Bound, CostExceeded
from flotilla.apiserver.registry.cel.rules import RuleNode, compile_rules, validate
from flotilla.apiserver.registry.cel.schemachecks import rule_errors
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter

ROOT = "spec.versions[0].schema.openAPIV3Schema"


def _rules(spec: dict[str, Any]) -> RuleNode:
    root = compile_rules(SchemaConverter().convert({"type": "object", "properties": {"spec": spec}}))
    assert root is not None
    return root


def _messages(root: RuleNode, spec: Any, old: Any = None) -> list[str]:
    return [str(e) for e in validate(root, {"spec": spec}, None if old is None else {"spec": old}).errors]


SPEC = {
    "type": "object",
    "properties": {
        "x": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'y'"}]},
        "ratio": {"type": "number", "x-kubernetes-validations": [{"rule": "self / 2.0 < 1.0"}]},
        "n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "n may not shrink"}]},
        "items": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "v": {"type": "integer"}},
                "x-kubernetes-validations": [{"rule": "self.v > 0", "reason": "FieldValueForbidden", "fieldPath": ".v"}],
            },
        },
        "when": {"type": "string", "format": "date-time",
                 "x-kubernetes-validations": [{"rule": "self > timestamp('2000-01-01T00:00:00Z')"}]},
    },
    "x-kubernetes-validations": [
        {"rule": "!has(self.n) || self.n < 100", "messageExpression": "'n is ' + string(self.n)"},
        {"rule": "has(self.x)", "reason": "FieldValueRequired", "message": "x is required"},
        {"rule": "oldSelf.hasValue() || has(self.x)", "optionalOldSelf": True},
    ],
}  # fmt: skip


def test_a_valid_object_passes() -> None:
    assert _messages(_rules(SPEC), {"x": "y", "ratio": 1, "n": 1, "when": "2024-01-01T00:00:00Z"}) == []


def test_failures_are_worded_as_kube_words_them_and_reported_together() -> None:
    found = _messages(_rules(SPEC), {"x": "z", "ratio": 3, "n": 500, "items": [{"name": "a", "v": 0}]})
    assert found == [
        'spec: Invalid value: "object": n is 500',
        "spec.x: Invalid value: \"string\": failed rule: self == 'y'",
        'spec.ratio: Invalid value: "number": failed rule: self / 2.0 < 1.0',
        "spec.items[0].v: Forbidden: failed rule: self.v > 0",
    ]


def test_a_required_reason_a_message_and_an_optional_old_self() -> None:
    """Without an old object `oldSelf` is `optional.none()`: the rule runs on create, too."""
    assert _messages(_rules(SPEC), {"n": 1}) == [
        "spec: Required value: x is required",
        'spec: Invalid value: "object": failed rule: oldSelf.hasValue() || has(self.x)',
    ]
    assert _messages(_rules(SPEC), {"n": 1}, {"n": 1, "x": "y"}) == ["spec: Required value: x is required"]


def test_a_number_field_holding_an_integer_is_a_double() -> None:
    """`1` in a `number` field is 1.0 in CEL: `self / 2.0` is no overload error."""
    assert _messages(_rules(SPEC), {"x": "y", "ratio": 1}) == []


def test_a_date_time_string_is_a_timestamp() -> None:
    assert _messages(_rules(SPEC), {"x": "y", "when": "1999-01-01T00:00:00Z"}) == [
        "spec.when: Invalid value: \"string\": failed rule: self > timestamp('2000-01-01T00:00:00Z')"
    ]


def test_a_transition_rule_runs_only_when_there_is_an_old_value() -> None:
    root = _rules(SPEC)
    assert _messages(root, {"x": "y", "n": 1}) == []
    assert _messages(root, {"x": "y", "n": 1}, {"x": "y", "n": 2}) == [
        'spec.n: Invalid value: "integer": n may not shrink'
    ]
    assert _messages(root, {"x": "y", "n": 3}, {"x": "y", "n": 2}) == []


def test_unchanged_values_are_not_checked_again() -> None:
    """Ratcheting: an item stored before a rule existed may stay while others change."""
    root = _rules(SPEC)
    stored = {"x": "y", "items": [{"name": "old", "v": 0}]}
    assert (
        _messages(root, {"x": "y", "items": [{"name": "new", "v": 1}, {"name": "old", "v": 0}]}, stored) == []
    )
    assert _messages(root, {"x": "y", "items": [{"name": "old", "v": -1}]}, stored) == [
        "spec.items[0].v: Forbidden: failed rule: self.v > 0"
    ]


def test_the_per_call_limit_stops_the_rule_and_further_rules() -> None:
    root = _rules(
        {
            "type": "object",
            "properties": {"l": {"type": "array", "maxItems": 2000, "items": {"type": "integer"}}},
            "x-kubernetes-validations": [
                {"rule": "self.l.all(a, self.l.all(b, a + b >= 0))"},
                {"rule": "false"},
            ],
        }
    )
    found = _messages(root, {"l": list(range(2000))})
    assert found == [
        "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation "
        "rules will be run due to call cost exceeds limit for rule: self.l.all(a, self.l.all(b, a + b >= 0))"
    ]


def test_the_per_object_budget_stops_evaluation() -> None:
    root = _rules(
        {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object",
         "x-kubernetes-validations": [{"rule": "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(i, i > 0)"}]}}}}
    )  # fmt: skip
    outcome = validate(root, {"spec": {"l": [{}] * 1000}}, None, object_limit=5_000)
    assert [str(e) for e in outcome.errors][-1].endswith(
        "validation failed due to running out of cost budget, no further validation rules will be run"
    )


def test_a_slice_limit_hands_the_evaluation_over() -> None:
    root = _rules(
        {"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
         "x-kubernetes-validations": [{"rule": "self.l.all(i, i >= 0)"}]}
    )  # fmt: skip
    with pytest.raises(CostExceeded) as caught:
        validate(root, {"spec": {"l": list(range(10_000))}}, None, slice_limit=1_000)
    assert caught.value.bound is Bound.SLICE


def test_crd_checks_refuse_bad_rules_with_kubes_paths() -> None:
    schema = {"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "string"}}, "x": {"type": "string"}},
        "x-kubernetes-validations": [
            {"rule": "self.x =="},
            {"rule": "self.l.all(a, self.l.all(b, a == b))"},
            {"rule": "true", "reason": "Nope", "fieldPath": ".nope"},
            {"rule": "true", "messageExpression": "1 +"},
        ],
    }}}  # fmt: skip
    found = [str(e) for e in rule_errors(schema, ROOT)]
    rules = f"{ROOT}.properties[spec].x-kubernetes-validations"
    assert found[0].startswith(
        f'{rules}[0].rule: Invalid value: apiextensions.ValidationRule{{Rule:"self.x ==", Message:""'
    )
    assert "compilation failed: ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>'" in found[0]
    assert (
        f"{rules}[1].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"
        in found[1]
    )
    assert found[2].startswith(f'{rules}[2].reason: Unsupported value: "Nope"')
    assert found[3] == f'{rules}[2].fieldPath: Invalid value: ".nope": does not refer to a valid field'
    assert found[4].startswith(f"{rules}[3].messageExpression: Invalid value: apiextensions.ValidationRule{{")
    assert found[-1].startswith(f"{ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total")


def test_bounded_rules_pass_the_crd_checks() -> None:
    schema = {"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"l": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 10}}},
        "x-kubernetes-validations": [{"rule": "self.l.all(a, self.l.all(b, a == b))"}],
    }}}  # fmt: skip
    assert rule_errors(schema, ROOT) == []
