"""One pass over an object guided by its schema: type checks, pruning, defaults and value rules.

What kube-apiserver does in several places — JSON decoding into Go structs (unknown fields, types),
structural pruning and defaulting of custom resources, and OpenAPI value validation — happens here in
a single walk that edits the object in place:

* unknown fields are removed and their paths reported (the caller decides, by `fieldValidation`,
  whether they are an error, a warning or silently dropped);
* `null` for a field that is not nullable is dropped, as Go decoding and CRD pruning both do;
* values of the wrong JSON type are reported as type errors;
* defaults are filled in where the schema declares them, when asked;
* enum, required, length, range, pattern and format rules are checked and reported as field errors.

`metadata` is always walked with the built-in ObjectMeta schema, whatever the kind's schema says.

Given the stored object an update replaces, the walk skips every value equal to the stored one at
the same place, at any depth: it was pruned, defaulted and checked when it was stored, so walking it
again would only find what was found then (kube's validation ratcheting). Most writes change a few
fields of a large object — a status condition, a replica count — so this is most of the walk's work.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from flotilla.api import fielderrors, regexes
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.schema.model import NO_DEFAULT, Schema

_ABSENT: Any = object()
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_TYPE_NAMES = {
    "object": "object",
    "array": "array",
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
}


@dataclass(slots=True)
class WalkResult:
    unknown_fields: list[str] = field(default_factory=list)
    """Paths of fields the schema does not know; already removed from the object."""
    type_errors: list[FieldError] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class WalkOptions:
    apply_defaults: bool = False
    check_values: bool = True
    """Check enum/range/length/pattern/required rules (built-ins leave most of these to kind validation)."""
    drop_nulls: bool = False
    """Treat every `null` field as absent, as Go decoding of built-in kinds does."""


def walk_object(
    obj: dict[str, Any],
    schema: Schema,
    metadata_schema: Schema,
    options: WalkOptions,
    old: dict[str, Any] | None = None,
    *,
    deep: bool = True,
) -> WalkResult:
    """Normalise a whole API object in place against its kind's schema.

    With `old` (the stored object an update replaces), values equal to their stored counterpart at
    the same place are not walked again — they were checked when stored (validation ratcheting):
    a status write does not re-validate the spec, nor a changed replica count the rest of it.
    With `deep=False` only whole top-level fields are compared (and metadata is walked whole): for
    an `old` that may have been stored under another schema, whose changed fields are then brought
    to this one all through.
    """
    result = WalkResult()
    walker = _Walker(result, options, deep=deep)
    for name in ("apiVersion", "kind"):
        if name in obj and not isinstance(obj[name], str):
            result.type_errors.append(_type_error(name, obj[name], frozenset({"string"})))
    if "metadata" in obj:
        metadata = obj["metadata"]
        if metadata is None:
            del obj["metadata"]
        elif isinstance(metadata, dict):
            old_metadata = old.get("metadata") if old is not None and deep else None
            walker.walk_fields(
                metadata,
                metadata_schema,
                "metadata",
                options.check_values,
                old=old_metadata if isinstance(old_metadata, dict) else None,
            )
        else:
            result.type_errors.append(_type_error("metadata", metadata, frozenset({"object"})))
    walker.walk_fields(
        obj, schema, "", options.check_values, skip=("apiVersion", "kind", "metadata"), old=old
    )
    return result


def walk_value(value: Any, schema: Schema, path: str, options: WalkOptions) -> tuple[Any, WalkResult]:
    """Normalise one value (not a whole object); returns the possibly replaced value."""
    result = WalkResult()
    return _Walker(result, options).walk(value, schema, path), result


class _Walker:
    def __init__(self, result: WalkResult, options: WalkOptions, *, deep: bool = True) -> None:
        self.result = result
        self.options = options
        self.deep = deep

    def walk(self, value: Any, schema: Schema, path: str, old: Any = None) -> Any:
        """Normalise `value`; `old` is its stored counterpart (or None), whose equal parts are skipped."""
        if schema.preserve_unknown_fields and not schema.properties and schema.items is None:
            if schema.types and not _type_ok(value, schema):
                self.result.type_errors.append(_type_error(path, value, schema.types))
            return value
        untyped = not schema.types and not schema.properties and schema.items is None
        if untyped and not schema.int_or_string and schema.additional_properties is None:
            return value  # untyped: anything goes (e.g. JSON, RawExtension)
        if not _type_ok(value, schema):
            self.result.type_errors.append(_type_error(path, value, schema.types))
            return value
        if isinstance(value, dict):
            self.walk_fields(
                value, schema, path, self.options.check_values, old=old if isinstance(old, dict) else None
            )
        elif isinstance(value, list):
            self._walk_items(value, schema, path, old if isinstance(old, list) else None)
        elif self.options.check_values:
            self._check_scalar(value, schema, path)
        if self.options.check_values and schema.enum is not None and value not in schema.enum:
            allowed = [str(e) for e in schema.enum]
            self.result.errors.append(fielderrors.not_supported(path, value, allowed))
        return value

    def walk_fields(
        self,
        obj: dict[str, Any],
        schema: Schema,
        path: str,
        check: bool,
        skip: tuple[str, ...] = (),
        old: dict[str, Any] | None = None,
    ) -> None:
        embedded = schema.embedded_resource
        for name in list(obj):
            if name in skip or (embedded and name in ("apiVersion", "kind", "metadata")):
                continue
            value = obj[name]
            old_value = old.get(name, _ABSENT) if old is not None else _ABSENT
            if old_value is not _ABSENT and _same(value, old_value):
                continue  # stored as is: checked then
            sub = schema.properties.get(name)
            is_property = sub is not None
            if sub is None:
                sub = schema.additional_properties
            if sub is None:
                if not schema.any_properties:
                    del obj[name]
                    self.result.unknown_fields.append(fielderrors.child(path, name))
                continue
            if value is None and (self.options.drop_nulls or not sub.nullable):
                del obj[name]
                continue
            if type(value) in _plain_scalars(sub, self.options.check_values):
                continue  # the right type, and no rule to check
            sub_path = fielderrors.child(path, name) if is_property else fielderrors.key(path, name)
            below = old_value if self.deep and old_value is not _ABSENT else None
            obj[name] = self.walk(value, sub, sub_path, below)
        if self.options.apply_defaults:
            for name, sub in schema.properties.items():
                if name not in obj and sub.default is not NO_DEFAULT:
                    obj[name] = copy.deepcopy(sub.default)
                    self.walk(obj[name], sub, fielderrors.child(path, name))
        if check:
            for name in sorted(schema.required):
                if name not in obj and name not in ("apiVersion", "kind", "metadata"):
                    self.result.errors.append(fielderrors.required(fielderrors.child(path, name)))
            self._check_object_size(obj, schema, path)

    def _walk_items(self, items: list[Any], schema: Schema, path: str, old: list[Any] | None = None) -> None:
        item_schema = schema.items
        if item_schema is not None:
            stored = len(old) if old is not None else 0
            plain = _plain_scalars(item_schema, self.options.check_values)
            for position, item in enumerate(items):
                if type(item) in plain:
                    continue  # the right type, and no rule to check
                old_item = old[position] if old is not None and position < stored else _ABSENT
                if old_item is not _ABSENT and _same(item, old_item):
                    continue  # the same item at the same place was checked when stored
                items[position] = self.walk(
                    item,
                    item_schema,
                    fielderrors.index(path, position),
                    None if old_item is _ABSENT else old_item,
                )
        if not self.options.check_values:
            return
        if schema.max_items is not None and len(items) > schema.max_items:
            self.result.errors.append(fielderrors.too_many(path, len(items), schema.max_items))
        if schema.min_items is not None and len(items) < schema.min_items:
            self.result.errors.append(
                fielderrors.invalid(path, len(items), f"should have at least {schema.min_items} items")
            )
        if schema.list_type == "set" or schema.unique_items:
            self._check_unique(items, path)
        elif schema.list_type == "map" and schema.list_map_keys:
            self._check_unique_keys(items, schema.list_map_keys, path)

    def _check_unique(self, items: list[Any], path: str) -> None:
        seen: list[Any] = []
        for position, item in enumerate(items):
            if item in seen:
                self.result.errors.append(fielderrors.duplicate(fielderrors.index(path, position), item))
            else:
                seen.append(item)

    def _check_unique_keys(self, items: list[Any], keys: tuple[str, ...], path: str) -> None:
        seen: set[tuple[Any, ...]] = set()
        for position, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            identity = tuple(_hashable(item.get(k)) for k in keys)
            if identity in seen:
                value = {k: item.get(k) for k in keys if k in item}
                self.result.errors.append(fielderrors.duplicate(fielderrors.index(path, position), value))
            seen.add(identity)

    def _check_object_size(self, obj: dict[str, Any], schema: Schema, path: str) -> None:
        if schema.max_properties is not None and len(obj) > schema.max_properties:
            self.result.errors.append(fielderrors.too_many(path, len(obj), schema.max_properties))
        if schema.min_properties is not None and len(obj) < schema.min_properties:
            self.result.errors.append(
                fielderrors.invalid(
                    path, len(obj), f"should have at least {schema.min_properties} properties"
                )
            )

    def _check_scalar(self, value: Any, schema: Schema, path: str) -> None:
        errors = self.result.errors
        if isinstance(value, str):
            if schema.max_length is not None and len(value) > schema.max_length:
                errors.append(fielderrors.too_long(path, schema.max_length, "chars"))
            if schema.min_length is not None and len(value) < schema.min_length:
                errors.append(
                    fielderrors.invalid(path, value, f"should be at least {schema.min_length} chars long")
                )
            if schema.pattern is not None and not _matches(schema.pattern, value):
                errors.append(fielderrors.invalid(path, value, f"should match '{schema.pattern}'"))
            if schema.format == "date-time" and not _is_datetime(value):
                errors.append(fielderrors.invalid(path, value, "must be an RFC 3339 date-time"))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            bounds = _INT32 if schema.format == "int32" else _INT64 if schema.format == "int64" else None
            if bounds and isinstance(value, int) and not bounds[0] <= value <= bounds[1]:
                errors.append(fielderrors.invalid(path, value, f"must fit in {schema.format}"))
            if schema.minimum is not None:
                low = schema.minimum
                if value < low or (schema.exclusive_minimum and value == low):
                    op = "greater than" if schema.exclusive_minimum else "greater than or equal to"
                    errors.append(fielderrors.invalid(path, value, f"should be {op} {_num(low)}"))
            if schema.maximum is not None:
                high = schema.maximum
                if value > high or (schema.exclusive_maximum and value == high):
                    op = "less than" if schema.exclusive_maximum else "less than or equal to"
                    errors.append(fielderrors.invalid(path, value, f"should be {op} {_num(high)}"))


@functools.lru_cache(maxsize=8192)
def _plain_scalars(schema: Schema, check: bool) -> frozenset[type]:
    """The Python types of scalar values `walk` would leave alone under `schema` without a finding:
    the JSON type is allowed and (when values are `check`ed) no enum, length, pattern, format or
    range rule applies. Such values need no walk at all (most strings, integers and booleans)."""
    if schema.properties or schema.items is not None or schema.int_or_string:
        return frozenset()
    types = schema.types
    untyped = not types
    if untyped and schema.additional_properties is None and not schema.preserve_unknown_fields:
        return frozenset({str, int, bool, float})  # walk returns untyped values as they are
    if untyped or (check and schema.enum is not None):
        return frozenset()
    plain: set[type] = set()
    if "string" in types and not (
        check
        and (
            schema.pattern is not None
            or schema.min_length is not None
            or schema.max_length is not None
            or schema.format == "date-time"
        )
    ):
        plain.add(str)
    if "boolean" in types:
        plain.add(bool)
    ranged = check and (
        schema.minimum is not None or schema.maximum is not None or schema.format in ("int32", "int64")
    )
    if types & {"integer", "number"} and not ranged:
        plain.add(int)
    if "number" in types and not ranged:
        plain.add(float)
    return frozenset(plain)


def _same(value: Any, old: Any) -> bool:
    """Whether two JSON values are identical, types included (Python holds `1 == 1.0 == True`)."""
    if value is old:
        return True
    if type(value) is not type(old) or value != old:
        return False
    if not isinstance(value, (dict, list)):
        return True
    try:  # equal containers may still hide 1 beside 1.0 or True: compare their JSON
        return orjson.dumps(value) == orjson.dumps(old)
    except orjson.JSONEncodeError:
        return False


def _type_ok(value: Any, schema: Schema) -> bool:
    types = schema.types
    if value is None:
        return schema.nullable or not types
    if not types:
        return True
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int):
        return bool(types & {"integer", "number"})
    if isinstance(value, float):
        return "number" in types or ("integer" in types and schema.format == "quantity")
    if isinstance(value, str):
        return "string" in types
    if isinstance(value, dict):
        return "object" in types
    if isinstance(value, list):
        return "array" in types
    return False


def _type_error(path: str, value: Any, types: frozenset[str]) -> FieldError:
    expected = " or ".join(sorted(_TYPE_NAMES.get(t, t) for t in types)) or "any"
    return FieldError(
        fielderrors.ErrorType.TYPE_INVALID,
        path,
        _json_type(value),
        f"must be of type {expected}",
    )


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _hashable(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return repr(value)
    return value


def _matches(pattern: str, value: str) -> bool:
    """Go regexp semantics in linear time (see `regexes`); CRDs are refused a pattern Go cannot
    compile, so one here was stored before that check: its text is then matched literally."""
    try:
        return regexes.search(pattern, value)
    except regexes.RegexError:
        return pattern in value


def _is_datetime(value: str) -> bool:
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
