"""JSON values written as text the way Go writes them, for CRD columns of type `string`.

kube-apiserver prints a `string` printer column with client-go's JSONPath printer: strings as they
are, numbers and booleans with Go's `fmt` verbs (`%v`: a float of a million is `1e+06`), objects and
lists with `encoding/json` (compact, map keys sorted, `<`, `>`, `&` escaped as `\\u003c`...), and a
JSON `null` as `<no value>` (what Go's template printer says for a nil value).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-tripping digits of `value` and the position of the decimal point."""
    _, digits, exponent = Decimal(repr(abs(value))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    point = len(digits) + exponent
    return text, point


def _exponent_form(value: float, digits: str, point: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exponent = point - 1
    sign = "-" if value < 0 else ""
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _fixed_form(value: float, digits: str, point: int) -> str:
    sign = "-" if value < 0 else ""
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def go_float(value: float) -> str:
    """`fmt.Sprint(float64)`: shortest digits, exponent form below 1e-4 and from 1e+06."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    digits, point = _shortest_digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return _exponent_form(value, digits, point)
    return _fixed_form(value, digits, point)


def go_json_float(value: float) -> str:
    """A float as Go's `encoding/json` writes it: plain below 1e21, `1e-07` style outside."""
    if value == 0:
        return "0"
    digits, point = _shortest_digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        # Go trims a leading zero of a negative exponent: e-07 becomes e-7.
        rendered = _exponent_form(value, digits, point)
        return rendered.replace("e-0", "e-")
    return _fixed_form(value, digits, point)


def _go_json_string(value: str) -> str:
    rendered = json.dumps(value, ensure_ascii=False)
    for character, escape in _HTML_ESCAPES.items():
        rendered = rendered.replace(character, escape)
    return rendered


def go_json(value: Any) -> str:
    """`json.Marshal` of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_json_float(value)
    if isinstance(value, str):
        return _go_json_string(value)
    if isinstance(value, dict):
        members = (f"{_go_json_string(str(key))}:{go_json(value[key])}" for key in sorted(value, key=str))
        return "{" + ",".join(members) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(item) for item in value) + "]"
    return _go_json_string(str(value))


def jsonpath_text(value: Any) -> str:
    """One JSONPath result as client-go's `PrintResults` writes it."""
    if value is None:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    return go_json(value)
