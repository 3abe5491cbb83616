"""Field errors: what is wrong with which field of an object, worded as Kubernetes words it.

Validation anywhere in Flotilla returns a list of `FieldError`s; the API server turns them into one
`422 Invalid` Status whose causes carry `reason` (the error type), `field` (the path) and `message`.
Paths use Kubernetes' notation: `spec.template.spec.containers[0].name`, `metadata.labels[app]`.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any


class ErrorType(enum.Enum):
    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TYPE_INVALID = "FieldValueTypeInvalid"
    INTERNAL = "InternalError"


_LABELS = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TYPE_INVALID: "Invalid value",
    ErrorType.INTERNAL: "Internal error",
}
# Error types whose message shows the offending value, as Kubernetes prints them.
_SHOWS_VALUE = {
    ErrorType.NOT_FOUND,
    ErrorType.DUPLICATE,
    ErrorType.INVALID,
    ErrorType.NOT_SUPPORTED,
    ErrorType.TYPE_INVALID,
}

OMIT: Any = object()
"""Sentinel for errors that carry no value."""


def format_value(value: Any) -> str:
    """A value as Kubernetes quotes it in messages: strings quoted, numbers and booleans bare."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


@dataclass(frozen=True, slots=True)
class FieldError:
    type: ErrorType
    field: str
    value: Any = OMIT
    detail: str = ""

    def body(self) -> str:
        """The message without the field path, as a Status cause's `message`."""
        text = _LABELS[self.type]
        if self.type in _SHOWS_VALUE and self.value is not OMIT:
            text += f": {format_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def cause(self) -> dict[str, str]:
        return {"reason": self.type.value, "message": self.body(), "field": self.field}


def required(field: str, detail: str = "") -> FieldError:
    return FieldError(ErrorType.REQUIRED, field, OMIT, detail)


def invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError(ErrorType.INVALID, field, value, detail)


def not_supported(field: str, value: Any, supported: list[str] | tuple[str, ...]) -> FieldError:
    quoted = ", ".join(json.dumps(s) for s in supported)
    return FieldError(ErrorType.NOT_SUPPORTED, field, value, f"supported values: {quoted}")


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError(ErrorType.FORBIDDEN, field, OMIT, detail)


def duplicate(field: str, value: Any) -> FieldError:
    return FieldError(ErrorType.DUPLICATE, field, value)


def too_long(field: str, limit: int, unit: str = "bytes") -> FieldError:
    return FieldError(ErrorType.TOO_LONG, field, OMIT, f"must have at most {limit} {unit}")


def too_many(field: str, count: int, limit: int) -> FieldError:
    return FieldError(ErrorType.TOO_MANY, field, OMIT, f"{count}: must have at most {limit} items")


def not_found(field: str, value: Any) -> FieldError:
    return FieldError(ErrorType.NOT_FOUND, field, value)


def child(path: str, name: str) -> str:
    """`spec` + `replicas` → `spec.replicas`."""
    return f"{path}.{name}" if path else name


def index(path: str, position: int) -> str:
    """`spec.containers` + 0 → `spec.containers[0]`."""
    return f"{path}[{position}]"


def key(path: str, name: str) -> str:
    """`metadata.labels` + `app` → `metadata.labels[app]`."""
    return f"{path}[{name}]"
