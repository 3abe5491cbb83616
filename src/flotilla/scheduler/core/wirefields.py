"""Tolerant readers for the fields of wire objects (JSON decoded to dicts and lists).

The scheduler reads objects the API server has already validated, so a field of an unexpected
shape is read as absent (an empty mapping, list or string, 0, no time) instead of raising: one odd
field must not stop a whole scheduling round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping_of(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def mappings_of(value: object) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def strings_of(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def text_of(value: object) -> str:
    return value if isinstance(value, str) else ""


def integer_of(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value
