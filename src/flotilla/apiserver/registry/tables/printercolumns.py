"""Tables for custom resources, from the CRD's `additionalPrinterColumns`, and their validation.

Like kube-apiserver: the table always starts with `Name`; a version without printer columns gets a
single `Age` column (a `date` over `.metadata.creationTimestamp`). Each column's JSONPath is evaluated
against the object and only its first match is used:

- `string` columns print that value as text (objects and lists as compact JSON, `null` as
  `<no value>`);
- `integer`, `number`, `boolean` columns keep a value of that JSON type (floats are truncated for
  `integer`) and are empty otherwise;
- `date` columns turn an RFC 3339 string into an age (`5m`), `<invalid>` if unreadable, `<unknown>`
  if empty.

A path that selects nothing, or does not apply, gives an empty (`null`) cell. A path that does not
parse is accepted by Kubernetes' CRD validation (which only checks it starts with `.`); the server
then drops that column and the ones after it, which `custom_resource_convertor` mirrors.
`printer_column_errors` gives the validation errors Kubernetes reports for a column definition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flotilla.api.duration import UNKNOWN, between
from flotilla.api.fielderrors import FieldError, child, invalid, required
from flotilla.api.times import InvalidTimestampError, parse_timestamp
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.jsonpath import JSONPathError, PrinterPath, parse_printer_jsonpath
from flotilla.apiserver.registry.tables.model import NAME, Cell, Column
from flotilla.apiserver.registry.tables.objects import name
from flotilla.apiserver.registry.tables.rendering import jsonpath_text

COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
"""The column types a CRD may declare, in the order Kubernetes lists them in errors."""
COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
"""The column formats a CRD may declare."""

DEFAULT_COLUMNS: tuple[Mapping[str, Any], ...] = (
    {
        "name": "Age",
        "type": "date",
        "description": swagger_doc("ObjectMeta.creationTimestamp"),
        "jsonPath": ".metadata.creationTimestamp",
    },
)
"""What a CRD version without `additionalPrinterColumns` is served with."""


def date_cell(value: str, now: datetime) -> str:
    """A `date` column's cell: the age of an RFC 3339 timestamp."""
    try:
        moment = parse_timestamp(value)
    except InvalidTimestampError:
        return "<invalid>"
    if moment is None:
        return UNKNOWN
    return between(moment, now)


def typed_cell(column_type: str, value: Any, now: datetime) -> Cell:
    """The cell for one JSONPath match under the column's declared type (Go's `cellForJSONValue`)."""
    if column_type == "string":
        return jsonpath_text(value)
    if column_type == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if column_type == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if column_type == "boolean" and isinstance(value, bool):
        return value
    if column_type == "date" and isinstance(value, str):
        return date_cell(value, now)
    return None


@dataclass(frozen=True, slots=True)
class CustomResourcePrinter:
    """A `TableConvertor` for one served version of a CRD."""

    columns: tuple[Column, ...]
    paths: tuple[PrinterPath, ...]

    def cells(self, obj: dict[str, Any], now: datetime) -> list[Any]:
        row: list[Cell] = [name(obj)]
        for column, path in zip(self.columns[1:], self.paths, strict=True):
            matches = path.find(obj)
            row.append(typed_cell(column.type, matches[0], now) if matches else None)
        return row


def _text(definition: Mapping[str, Any], key: str) -> str:
    value = definition.get(key)
    return value if isinstance(value, str) else ""


def custom_resource_convertor(columns: Sequence[Mapping[str, Any]]) -> CustomResourcePrinter:
    """The convertor for a CRD version's `additionalPrinterColumns` (empty: `Name` and `Age`)."""
    definitions = columns or list(DEFAULT_COLUMNS)
    table_columns = [NAME]
    paths: list[PrinterPath] = []
    for definition in definitions:
        json_path = _text(definition, "jsonPath")
        try:
            path = parse_printer_jsonpath(json_path)
        except JSONPathError:
            # kube-apiserver keeps the columns parsed so far and serves the table without the rest.
            break
        description = _text(definition, "description") or (
            f"Custom resource definition column (in JSONPath format): {json_path}"
        )
        priority = definition.get("priority")
        table_columns.append(
            Column(
                _text(definition, "name"),
                _text(definition, "type"),
                _text(definition, "format"),
                description,
                priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
            )
        )
        paths.append(path)
    return CustomResourcePrinter(tuple(table_columns), tuple(paths))


def printer_column_errors(
    definition: Mapping[str, Any], path: str, *, check_syntax: bool = False
) -> list[FieldError]:
    """Kubernetes' validation of one printer column, with errors at `path` (`...additionalPrinterColumns[0]`).

    Kubernetes only requires the JSONPath to start with `.`; `check_syntax` also rejects paths that
    would not parse (and so would silently drop columns), which Kubernetes does not do.
    """
    errors: list[FieldError] = []
    allowed = ",".join(COLUMN_TYPES)
    column_type = _text(definition, "type")
    if not _text(definition, "name"):
        errors.append(required(child(path, "name")))
    if not column_type:
        errors.append(required(child(path, "type"), f"must be one of {allowed}"))
    elif column_type not in COLUMN_TYPES:
        errors.append(invalid(child(path, "type"), column_type, f"must be one of {allowed}"))
    column_format = _text(definition, "format")
    if column_format and column_format not in COLUMN_FORMATS:
        errors.append(
            invalid(child(path, "format"), column_format, f"must be one of {','.join(COLUMN_FORMATS)}")
        )
    json_path = _text(definition, "jsonPath")
    # Kubernetes names the field after its Go name in these errors.
    field = child(path, "JSONPath")
    if not json_path:
        errors.append(required(field))
    elif not json_path.startswith("."):
        errors.append(invalid(field, json_path, "must be a simple json path starting with ."))
    elif check_syntax:
        try:
            parse_printer_jsonpath(json_path)
        except JSONPathError as error:
            errors.append(invalid(field, json_path, str(error)))
    return errors
