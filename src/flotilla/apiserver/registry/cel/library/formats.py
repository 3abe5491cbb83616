"""Kubernetes' format library: `format.dns1123Label().validate(name)` and its siblings.

`validate` answers `optional.none()` for a valid value, else an optional list of what is wrong,
worded by the same validators built-in kinds use.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Callable
from typing import Any

from flotilla.api import names
from flotilla.api.times import InvalidTimestampError, parse_timestamp
from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import EvalError, Optional, no_overload


class Format:
    __slots__ = ("check", "name")
    cel_type = "kubernetes.NamedFormat"

    def __init__(self, name: str, check: Callable[[str], list[str]]) -> None:
        self.name = name
        self.check = check

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Format) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


def _uuid(value: str) -> list[str]:
    try:
        uuid.UUID(value)
    except ValueError:
        return ["does not match the UUID format"]
    return []


def _byte(value: str) -> list[str]:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _datetime(value: str) -> list[str]:
    try:
        parse_timestamp(value)
    except InvalidTimestampError:
        return ["does not match the RFC 3339 date-time format"]
    return []


def _date(value: str) -> list[str]:
    return _datetime(f"{value}T00:00:00Z") and ["does not match the RFC 3339 full-date format"]


_FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": names.dns1123_label_errors,
    "dns1123Subdomain": names.dns1123_subdomain_errors,
    "dns1035Label": names.dns1035_label_errors,
    "qualifiedName": names.qualified_name_errors,
    "labelValue": names.label_value_errors,
    "uuid": _uuid,
    "byte": _byte,
    "date": _date,
    "datetime": _datetime,
}


def _named(budget: Budget, name: Any) -> Optional:
    if not isinstance(name, str):
        raise no_overload("format.named", name)
    check = _FORMATS.get(name)
    return Optional(Format(name, check), present=True) if check is not None else Optional(present=False)


def _validate(budget: Budget, target: Any, value: Any) -> Optional:
    if not isinstance(target, Format) or not isinstance(value, str):
        raise no_overload("validate", target, value)
    budget.charge(len(value) // 10)
    problems = target.check(value)
    return Optional(list(problems), present=True) if problems else Optional(present=False)


def _maker(name: str) -> Callable[[Budget], Format]:
    check = _FORMATS[name]

    def make(budget: Budget) -> Format:
        return Format(name, check)

    return make


for _name in _FORMATS:
    register(f"format.{_name}", _maker(_name), global_arities=(0,))
register("format.named", _named, global_arities=(1,))
register("validate", _validate, member_arities=(2,))

__all__ = ["EvalError", "Format"]
