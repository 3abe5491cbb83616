"""What kube-apiserver refuses in a CRD's `x-kubernetes-validations`, at create and update.

Each rule must compile (`...x-kubernetes-validations[0].rule: Invalid value: apiextensions.
ValidationRule{...}: compilation failed: ERROR: <input>:1:6: ...`), as must its messageExpression; its
`reason` must be one kube knows, its `fieldPath` must name a field of the schema it sits on, its
estimated cost must stay within the per-rule budget, and all rules of the schema, each times how
often it may run, within the per-schema budget.
"""

from __future__ import annotations

import json
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.cel.budget import ESTIMATED_RULE_LIMIT, ESTIMATED_SCHEMA_LIMIT
from flotilla.apiserver.registry.cel.estimate import cardinality, estimate_rule, exceeds_message
from flotilla.apiserver.registry.cel.evaluator import RULE_VARIABLES, compile_text
from flotilla.apiserver.registry.cel.fieldpaths import normalize_field_path
from flotilla.apiserver.registry.cel.rules import REASONS
from flotilla.apiserver.registry.cel.syntax import CompileError, parse
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.openapi_convert import SchemaConverter

_CONTRIBUTED = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
MAX_RULE_LENGTH = 64 * 1024
"""Longer rule text is refused before parsing (the parser's time grows with it)."""


def rule_errors(raw_schema: Any, path: str) -> list[FieldError]:
    """Every refused rule of an `openAPIV3Schema` at `path`."""
    if not isinstance(raw_schema, dict) or "x-kubernetes-validations" not in json.dumps(raw_schema):
        return []
    schema = SchemaConverter().convert(raw_schema)
    found: list[FieldError] = []
    costs: list[tuple[str, int]] = []
    _walk(raw_schema, schema, path, [schema], found, costs)
    total = sum(cost for _, cost in costs)
    if total > ESTIMATED_SCHEMA_LIMIT:
        for rule_path, cost in costs:
            if cost > ESTIMATED_SCHEMA_LIMIT // 100:
                found.append(
                    fielderrors.forbidden(
                        rule_path,
                        _CONTRIBUTED,
                    )
                )
        found.append(
            fielderrors.forbidden(
                path,
                exceeds_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    total,
                    ESTIMATED_SCHEMA_LIMIT,
                ),
            )
        )
    return found


def _walk(
    raw: dict[str, Any],
    schema: Schema,
    path: str,
    lineage: list[Schema],
    found: list[FieldError],
    costs: list[tuple[str, int]],
) -> None:
    rules = raw.get("x-kubernetes-validations")
    if isinstance(rules, list):
        for position, entry in enumerate(rules):
            rule_path = fielderrors.index(fielderrors.child(path, "x-kubernetes-validations"), position)
            found.extend(_rule(entry, schema, rule_path, lineage, costs))
    for name, sub in (raw.get("properties") or {}).items():
        child = schema.properties.get(name)
        if isinstance(sub, dict) and child is not None:
            sub_path = fielderrors.key(fielderrors.child(path, "properties"), name)
            _walk(sub, child, sub_path, [*lineage, child], found, costs)
    additional = raw.get("additionalProperties")
    if isinstance(additional, dict) and schema.additional_properties is not None:
        child = schema.additional_properties
        _walk(
            additional,
            child,
            fielderrors.child(path, "additionalProperties"),
            [*lineage, child],
            found,
            costs,
        )
    items = raw.get("items")
    if isinstance(items, dict) and schema.items is not None:
        _walk(items, schema.items, fielderrors.child(path, "items"), [*lineage, schema.items], found, costs)


def _rule(
    entry: Any, schema: Schema, path: str, lineage: list[Schema], costs: list[tuple[str, int]]
) -> list[FieldError]:
    if not isinstance(entry, dict):
        return [fielderrors.invalid(path, entry, "must be an object with a rule")]
    text = entry.get("rule")
    rule_path = fielderrors.child(path, "rule")
    if not isinstance(text, str) or not text.strip():
        return [fielderrors.required(rule_path, "rule is not specified")]
    found: list[FieldError] = []
    shown = _shown(entry)
    if len(text) > MAX_RULE_LENGTH:
        return [fielderrors.too_long(rule_path, MAX_RULE_LENGTH)]
    try:
        tree = parse(text)
        compile_text(text, RULE_VARIABLES)
    except CompileError as error:
        found.append(_invalid_rule(rule_path, shown, f"compilation failed: {error}"))
    else:
        cost = estimate_rule(tree, schema)
        if cost > ESTIMATED_RULE_LIMIT:
            found.append(
                fielderrors.forbidden(
                    rule_path, exceeds_message("estimated rule cost", cost, ESTIMATED_RULE_LIMIT)
                )
            )
        costs.append((rule_path, min(cost * cardinality(lineage), 2**62)))
        if entry.get("optionalOldSelf") and "oldSelf" not in text:
            found.append(
                fielderrors.invalid(
                    fielderrors.child(path, "optionalOldSelf"),
                    True,
                    "may not be set if oldSelf is not used in rule",
                )
            )
    message_expression = entry.get("messageExpression")
    if isinstance(message_expression, str) and message_expression.strip():
        try:
            compile_text(message_expression, RULE_VARIABLES)
        except CompileError as error:
            found.append(
                _invalid_rule(
                    fielderrors.child(path, "messageExpression"),
                    shown,
                    f"messageExpression compilation failed: {error}",
                )
            )
    message = entry.get("message")
    if isinstance(message, str) and ("\n" in message or "\r" in message):
        found.append(
            fielderrors.invalid(
                fielderrors.child(path, "message"), message, "message must not contain line breaks"
            )
        )
    reason = entry.get("reason")
    if reason is not None and reason not in REASONS:
        found.append(fielderrors.not_supported(fielderrors.child(path, "reason"), reason, REASONS))
    field_path = entry.get("fieldPath")
    if isinstance(field_path, str) and field_path:
        _, problem = normalize_field_path(field_path, schema)
        if problem is not None:
            found.append(fielderrors.invalid(fielderrors.child(path, "fieldPath"), field_path, problem))
    return found


def _shown(entry: dict[str, Any]) -> _GoValue:
    return _GoValue(entry)


def _invalid_rule(path: str, shown: _GoValue, detail: str) -> FieldError:
    """`Invalid value: apiextensions.ValidationRule{...}: detail`: kube prints the rule as a Go struct,
    unquoted, so it goes into the detail rather than the (quoted) value."""
    return FieldError(fielderrors.ErrorType.INVALID, path, fielderrors.OMIT, f"{shown}: {detail}")


_NIL_REASON = "(*apiextensions.FieldValueErrorReason)(nil)"


class _GoValue:
    """A rule as Go's %#v prints `apiextensions.ValidationRule` in kube's message."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.entry = entry

    def __str__(self) -> str:
        entry = self.entry
        reason = entry.get("reason")
        optional = entry.get("optionalOldSelf")
        return (
            f"apiextensions.ValidationRule{{Rule:{json.dumps(str(entry.get('rule') or ''))}, "
            f"Message:{json.dumps(str(entry.get('message') or ''))}, "
            f"MessageExpression:{json.dumps(str(entry.get('messageExpression') or ''))}, "
            f"Reason:{_NIL_REASON if reason is None else json.dumps(str(reason))}, "
            f"FieldPath:{json.dumps(str(entry.get('fieldPath') or ''))}, "
            f"OptionalOldSelf:{'(*bool)(nil)' if optional is None else str(bool(optional)).lower()}}}"
        )
