"""The worst-case cost of a rule, estimated from its schema before any object exists.

kube-apiserver refuses, at CRD create/update, a rule whose estimated cost exceeds 10,000,000 and a
schema whose rules, each times the number of times it may run, exceed 100,000,000. Sizes come from
`maxLength`, `maxItems` and `maxProperties`; where a schema sets none, the largest the request body
allows (3 MiB, divided by the smallest serialized element). So a rule iterating an unbounded list
inside another iteration of it is refused, and the author is told to add bounds. This follows
cel-go's estimator closely enough for those outcomes, not to the unit.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from flotilla.apiserver.registry.cel.syntax import (
    Call,
    Comprehension,
    Ident,
    Index,
    ListLiteral,
    Literal,
    MapLiteral,
    Node,
    Operator,
    Select,
)
from flotilla.apiserver.registry.schema.model import Schema

MAX_REQUEST_BYTES = 3 * 1024 * 1024
_SCANS_TEXT = frozenset(
    {"contains", "startsWith", "endsWith", "matches", "find", "findAll", "indexOf", "lastIndexOf",
     "lowerAscii",
     "upperAscii", "replace", "split", "trim", "join", "reverse", "format", "string", "validate", "url",
     "isURL", "quantity", "isQuantity"}
)  # fmt: skip
_SCANS_PAIR = frozenset({"contains", "matches", "find", "findAll"})
_SCANS_LIST = frozenset({"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "join"})


@dataclass(frozen=True, slots=True)
class _Value:
    cost: int
    size: int
    schema: Schema | None = None


def max_size(schema: Schema | None) -> int:
    """The most elements (or characters) a value under `schema` can hold in one request."""
    if schema is None:
        return MAX_REQUEST_BYTES
    if "string" in schema.types:
        return schema.max_length if schema.max_length is not None else MAX_REQUEST_BYTES
    if "array" in schema.types:
        if schema.max_items is not None:
            return schema.max_items
        return MAX_REQUEST_BYTES // (_min_serialized(schema.items) + 1)
    if "object" in schema.types and (schema.additional_properties is not None or schema.any_properties):
        if schema.max_properties is not None:
            return schema.max_properties
        return MAX_REQUEST_BYTES // (_min_serialized(schema.additional_properties) + 4)
    return 1


def _min_serialized(schema: Schema | None) -> int:
    if schema is None or not schema.types:
        return 1
    if "string" in schema.types:
        return 2 + (schema.min_length or 0)
    if "object" in schema.types or "array" in schema.types:
        return 2
    if "boolean" in schema.types:
        return 4
    return 1


def cardinality(path: list[Schema]) -> int:
    """How many times a rule on the last schema of `path` (root first) may run for one object."""
    count = 1
    for parent, child in itertools.pairwise(path):
        if child is parent.items or (
            child is parent.additional_properties and child not in parent.properties.values()
        ):
            count = min(count * max_size(parent), 2**62)
    return count


def estimate_rule(node: Node, schema: Schema) -> int:
    """The estimated worst-case cost of a rule whose `self` (and `oldSelf`) follow `schema`."""
    value = _Estimator().visit(
        node, {"self": (schema, max_size(schema)), "oldSelf": (schema, max_size(schema))}
    )
    return value.cost


class _Estimator:
    def visit(self, node: Node, scope: dict[str, tuple[Schema | None, int]]) -> _Value:
        if isinstance(node, Literal):
            size = len(node.value) if isinstance(node.value, (str, bytes)) else 1
            return _Value(0, size)
        if isinstance(node, Ident):
            schema, size = scope.get(node.name, (None, 1))
            return _Value(1, size, schema)
        if isinstance(node, Select):
            operand = self.visit(node.operand, scope)
            child = _child(operand.schema, node.field)
            return _Value(operand.cost + 1, max_size(child) if child is not None else 1, child)
        if isinstance(node, Index):
            operand, index = self.visit(node.operand, scope), self.visit(node.index, scope)
            child = _element(operand.schema)
            return _Value(operand.cost + index.cost + 1, max_size(child) if child is not None else 1, child)
        if isinstance(node, ListLiteral):
            parts = [self.visit(item, scope) for item in node.items]
            return _Value(sum(p.cost for p in parts) + len(parts) + 1, len(parts))
        if isinstance(node, MapLiteral):
            parts = [self.visit(part, scope) for entry in node.entries for part in entry]
            return _Value(sum(p.cost for p in parts) + len(node.entries) + 1, len(node.entries))
        if isinstance(node, Operator):
            return self._operator(node, scope)
        if isinstance(node, Comprehension):
            source = self.visit(node.range, scope)
            element = _element(source.schema)
            inner = {**scope, node.variable: (element, max_size(element) if element is not None else 1)}
            body = self.visit(node.predicate, inner).cost
            if node.transform is not None:
                body += self.visit(node.transform, inner).cost
            cost = source.cost + 1 + source.size * (body + 2)
            return _Value(cost, source.size if node.macro in ("map", "filter") else 1)
        if isinstance(node, Call):
            parts = [self.visit(part, scope) for part in ((node.target,) if node.target else ()) + node.args]
            cost = sum(p.cost for p in parts) + 1
            first = parts[0].size if parts else 1
            if node.function in _SCANS_PAIR and len(parts) > 1:
                cost += first * max(parts[1].size, 1) // 10
            elif node.function in _SCANS_TEXT:
                cost += first // 10
            if node.function in _SCANS_LIST:
                cost += first
            size = first if node.function in ("split", "findAll", "lowerAscii", "upperAscii", "trim") else 1
            return _Value(cost, size)
        return _Value(1, 1)

    def _operator(self, node: Operator, scope: dict[str, tuple[Schema | None, int]]) -> _Value:
        parts = [self.visit(arg, scope) for arg in node.args]
        cost = sum(p.cost for p in parts) + 1
        if node.name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"):
            cost += min(parts[0].size, parts[1].size) // 10
            return _Value(cost, 1)
        if node.name == "_+_":
            size = parts[0].size + parts[1].size
            return _Value(cost + size // 10, size)
        if node.name == "@in":
            return _Value(cost + parts[1].size, 1)
        if node.name == "_?_:_":
            return _Value(
                parts[0].cost + max(parts[1].cost, parts[2].cost) + 1, max(parts[1].size, parts[2].size)
            )
        return _Value(cost, 1)


def _child(schema: Schema | None, name: str) -> Schema | None:
    if schema is None:
        return None
    return schema.properties.get(name) or schema.additional_properties


def _element(schema: Schema | None) -> Schema | None:
    if schema is None:
        return None
    if schema.items is not None:
        return schema.items
    if schema.additional_properties is not None:
        return Schema(types=frozenset({"string"}))  # a map's comprehension ranges over its keys
    return None


def exceeds_message(cost_name: str, cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100:
        text = "more than 100x"
    elif factor < 1.5:
        text = f"{factor:f}x"
    else:
        text = f"{factor:.1f}x"
    return (
        f"{cost_name} exceeds budget by factor of {text} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
