"""The `x-kubernetes-validations` of one schema version, compiled once, and their evaluation.

`compile_rules` builds a `RuleNode` tree that mirrors the schema only where rules are (None when a
schema has none). `validate` walks an object along it: at each node it binds `self` to the value
there (and `oldSelf` to the stored value at the same place, when the update has one), runs the
node's rules, and reports each failure as kube-apiserver does — `Invalid value: "<type>": <message>`
at the node's path or the rule's `fieldPath`, or the error type the rule's `reason` names.

Ratcheting (CRDValidationRatcheting): a value equal to the stored value at the same place — same
property, same map key, same key of a `list-type: map` list — was valid when stored and is not
checked again, as the schema walk does for the OpenAPI rules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.cel.budget import (
    PER_CALL_LIMIT,
    PER_OBJECT_LIMIT,
    Bound,
    Budget,
    CostExceeded,
)
from flotilla.apiserver.registry.cel.evaluator import (
    RULE_VARIABLES,
    Evaluate,
    compile_text,
)
from flotilla.apiserver.registry.cel.fieldpaths import normalize_field_path
from flotilla.apiserver.registry.cel.syntax import CompileError, parse
from flotilla.apiserver.registry.cel.values import NONE, EvalError, Optional, typed
from flotilla.apiserver.registry.schema.model import Schema

MAX_MESSAGE_BYTES = 5 * 1024
"""A messageExpression's result longer than this is not used (MaxEvaluatedMessageExpressionSizeBytes)."""
REASONS = ("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate")


@dataclass(frozen=True, slots=True)
class CompiledRule:
    rule: str
    message: str
    reason: str
    field_path: str
    optional_old_self: bool
    uses_old_self: bool
    program: Evaluate | None
    message_program: Evaluate | None = None
    error: str = ""
    """Why the rule did not compile (refused at CRD create/update; kept for CRDs stored before)."""

    @property
    def error_string(self) -> str:
        """How kube names the rule in messages: its message when it has one, else its text."""
        return self.message.strip() or self.rule.strip()


@dataclass(slots=True)
class RuleNode:
    schema: Schema
    rules: list[CompiledRule] = field(default_factory=list)
    properties: dict[str, RuleNode] = field(default_factory=dict)
    additional: RuleNode | None = None
    items: RuleNode | None = None


def compile_rule(raw: Any, schema: Schema) -> CompiledRule:
    """One `x-kubernetes-validations` entry under `schema`; compile failures are kept in `error`."""
    entry = raw if isinstance(raw, Mapping) else {}
    text = str(entry.get("rule") or "")
    message_expression = str(entry.get("messageExpression") or "")
    optional = bool(entry.get("optionalOldSelf"))
    field_path = normalize_field_path(str(entry.get("fieldPath") or ""), schema)[0] or ""
    common: dict[str, Any] = {
        "rule": text,
        "message": str(entry.get("message") or ""),
        "reason": str(entry.get("reason") or "FieldValueInvalid"),
        "field_path": field_path,
        "optional_old_self": optional,
    }
    try:
        uses_old_self = _mentions(parse(text), "oldSelf")
        program = compile_text(text, RULE_VARIABLES)
        message_program = compile_text(message_expression, RULE_VARIABLES) if message_expression else None
    except CompileError as error:
        return CompiledRule(**common, uses_old_self=False, program=None, error=f"compilation failed: {error}")
    return CompiledRule(
        **common, uses_old_self=uses_old_self, program=program, message_program=message_program
    )


def _mentions(tree: Any, name: str) -> bool:
    from flotilla.apiserver.registry.cel.syntax import Ident  # noqa: PLC0415 - local: only this walk needs it

    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Ident) and node.name == name:
            return True
        for value in getattr(node, "__dataclass_fields__", {}):
            child = getattr(node, value)
            if isinstance(child, tuple):
                for part in child:
                    stack.extend(part if isinstance(part, tuple) else (part,))
            elif hasattr(child, "__dataclass_fields__"):
                stack.append(child)
    return False


def compile_rules(schema: Schema) -> RuleNode | None:
    """The rule tree of a schema version; None when it declares no rules."""
    node = RuleNode(schema, [compile_rule(raw, schema) for raw in schema.validations])
    for name, sub in schema.properties.items():
        child = compile_rules(sub)
        if child is not None:
            node.properties[name] = child
    if schema.additional_properties is not None:
        node.additional = compile_rules(schema.additional_properties)
    if schema.items is not None:
        node.items = compile_rules(schema.items)
    if node.rules or node.properties or node.additional is not None or node.items is not None:
        return node
    return None


@dataclass(slots=True)
class Outcome:
    errors: list[FieldError] = field(default_factory=list)
    spent: int = 0


class _Stop(Exception):
    pass


def validate(
    root: RuleNode,
    obj: Any,
    old: Any,
    *,
    slice_limit: int | None = None,
    object_limit: int = PER_OBJECT_LIMIT,
) -> Outcome:
    """Run every rule of `root` over `obj` (`old`: the stored object an update replaces).

    With `slice_limit`, raises CostExceeded(Bound.SLICE) once that much cost is spent, so a caller on
    the event loop can hand the evaluation to a worker thread instead."""
    run = _Run(object_limit, slice_limit)
    with contextlib.suppress(_Stop):
        run.node(root, obj, old, "")
    return Outcome(run.errors, run.spent)


class _Run:
    def __init__(self, object_limit: int, slice_limit: int | None) -> None:
        self.remaining = object_limit
        self.slice_limit = slice_limit
        self.spent = 0
        self.errors: list[FieldError] = []

    def node(self, node: RuleNode, value: Any, old: Any, path: str) -> None:
        if value is None:
            return
        if old is not None and type(value) is type(old) and value == old:
            return  # unchanged since stored (ratcheting)
        if node.rules:
            self.rules(node, value, old, path)
        if isinstance(value, dict):
            old_map = old if isinstance(old, dict) and node.schema.map_type != "atomic" else None
            for name, child in node.properties.items():
                if name in value:
                    below = old_map.get(name) if old_map is not None else None
                    self.node(child, value[name], below, fielderrors.child(path, name))
            if node.additional is not None:
                for key, item in value.items():
                    if key in node.schema.properties:
                        continue
                    below = old_map.get(key) if old_map is not None else None
                    self.node(node.additional, item, below, fielderrors.key(path, key))
        elif isinstance(value, list) and node.items is not None:
            correlated = _correlate(node.schema, value, old)
            for position, item in enumerate(value):
                self.node(node.items, item, correlated[position], fielderrors.index(path, position))

    def rules(self, node: RuleNode, value: Any, old: Any, path: str) -> None:
        schema = node.schema
        kind = _type_name(schema)
        if self.remaining <= 0:
            self.errors.append(fielderrors.invalid(path, kind, _OUT_OF_BUDGET))
            raise _Stop
        self_value = typed(value, schema)
        old_value = typed(old, schema) if old is not None else None
        for rule in node.rules:
            if rule.program is None:
                self.errors.append(fielderrors.invalid(path, kind, f"rule compile error: {rule.error}"))
                continue
            if rule.uses_old_self and old is None and not rule.optional_old_self:
                continue  # a transition rule runs only on updates that have an old value here
            frame: dict[str, Any] = {"self": self_value}
            if rule.optional_old_self:
                frame["oldSelf"] = Optional(old_value, present=True) if old is not None else NONE
            elif old is not None:
                frame["oldSelf"] = old_value
            result = self.evaluate(rule.program, frame, rule, path, kind)
            if result is True:
                continue
            if result is _FAILED:
                continue
            target = fielderrors.child(path, rule.field_path) if rule.field_path else path
            detail = self.message(rule, frame) or (
                rule.message.strip() or f"failed rule: {rule.error_string}"
            )
            self.errors.append(_error_for_reason(rule.reason, target, kind, detail))

    def evaluate(
        self, program: Evaluate, frame: dict[str, Any], rule: CompiledRule, path: str, kind: str
    ) -> Any:
        limit, bound = min(PER_CALL_LIMIT, self.remaining), Bound.CALL
        if self.remaining < PER_CALL_LIMIT:
            bound = Bound.OBJECT
        if self.slice_limit is not None and self.slice_limit - self.spent < limit:
            limit, bound = self.slice_limit - self.spent, Bound.SLICE
        budget = Budget(limit, bound)
        try:
            result = program(frame, budget)
            budget.check()
        except CostExceeded as exceeded:
            if exceeded.bound is Bound.SLICE:
                raise
            if exceeded.bound is Bound.OBJECT:
                self.errors.append(fielderrors.invalid(path, kind, _OUT_OF_BUDGET))
            else:
                self.errors.append(
                    fielderrors.invalid(
                        path,
                        kind,
                        "'operation cancelled: actual cost limit exceeded': no further validation rules will "
                        f"be run due to call cost exceeds limit for rule: {rule.error_string}",
                    )
                )
            raise _Stop from None
        except EvalError as error:
            self._charge(budget)
            text = str(error)
            if text.startswith("no such overload"):
                detail = (
                    f"'{text}': call arguments did not match a supported operator, function or macro "
                    f"signature for rule: {rule.error_string}"
                )
            else:
                detail = f"{text} evaluating rule: {rule.error_string}"
            self.errors.append(fielderrors.invalid(path, kind, detail))
            return _FAILED
        except RecursionError:
            self._charge(budget)
            self.errors.append(
                fielderrors.invalid(path, kind, f"rule too deep evaluating rule: {rule.error_string}")
            )
            return _FAILED
        self._charge(budget)
        if result is not True and result is not False:
            self.errors.append(
                fielderrors.invalid(path, kind, f"rule did not evaluate to a bool: {rule.error_string}")
            )
            return _FAILED
        return result

    def message(self, rule: CompiledRule, frame: dict[str, Any]) -> str:
        if rule.message_program is None:
            return ""
        budget = Budget(min(PER_CALL_LIMIT, self.remaining))
        try:
            text = rule.message_program(frame, budget)
            budget.check()
        except (EvalError, CostExceeded, RecursionError):
            return ""
        finally:
            self._charge(budget)
        if not isinstance(text, str):
            return ""
        text = text.strip()
        if not text or "\n" in text or "\r" in text or len(text.encode()) > MAX_MESSAGE_BYTES:
            return ""
        return text

    def _charge(self, budget: Budget) -> None:
        self.spent += budget.spent
        self.remaining -= budget.spent


_FAILED: Any = object()
_OUT_OF_BUDGET = (
    "validation failed due to running out of cost budget, no further validation rules will be run"
)


def _type_name(schema: Schema) -> str:
    """The schema's `type` as kube shows it in a failed rule's message (empty for int-or-string)."""
    if schema.int_or_string:
        return ""
    for kind in ("object", "array", "string", "integer", "number", "boolean"):
        if kind in schema.types:
            return kind
    return ""


def _error_for_reason(reason: str, path: str, kind: str, detail: str) -> FieldError:
    if reason == "FieldValueForbidden":
        return fielderrors.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return fielderrors.required(path, detail)
    if reason == "FieldValueDuplicate":
        return fielderrors.duplicate(path, kind)
    return fielderrors.invalid(path, kind, detail)


def _correlate(schema: Schema, items: list[Any], old: Any) -> list[Any]:
    """The stored item each new item corresponds to: by key for `list-type: map`, else none."""
    if schema.list_type != "map" or not schema.list_map_keys or not isinstance(old, list):
        return [None] * len(items)
    keys = schema.list_map_keys

    def identity(item: Any) -> Any:
        return tuple(repr(item.get(k)) for k in keys) if isinstance(item, dict) else None

    stored = {identity(item): item for item in old if isinstance(item, dict)}
    return [stored.get(identity(item)) if isinstance(item, dict) else None for item in items]
