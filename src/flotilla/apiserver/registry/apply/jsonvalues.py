"""JSON values the way Kubernetes' Go code writes, compares and orders them.

Server-side apply names list items by their values: a finalizer is `v:"example.com/a"`, a container
`k:{"name":"nginx"}`. Those names are stored in `managedFields` and must come out byte for byte as
kube-apiserver writes them, or an object written by one server would look owned differently by
another. Go's encoder sorts object keys, writes no spaces, escapes `<`, `>`, `&`, U+2028 and U+2029,
and prints floats in the shortest form without a trailing `.0`; `go_json` does the same.

Equality follows structured-merge-diff: `1` and `1.0` are the same number, but `true` is not `1`
(Python says it is). Ordering follows its `value.Compare`: numbers, then strings, booleans, lists,
objects and null, so sorted field sets iterate in kube's order. `json_copy` is the deep copy for
decoded JSON.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any, Final

import orjson

_STRING_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_NEEDS_ESCAPE: Final = re.compile(r'["\\<>&\u2028\u2029\x00-\x1f]')
"""A character `_go_string` writes escaped; most strings (names, keys) have none."""
_LARGEST_FIXED: Final = 1e21
_SMALLEST_FIXED: Final = 1e-6


def go_json(value: Any) -> str:
    """Compact JSON text of `value` exactly as Go's `encoding/json` writes it."""
    if isinstance(value, str):  # the usual list key, checked first
        return _go_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        members = [f"{_go_string(str(key))}:{go_json(value[key])}" for key in sorted(value)]
        return "{" + ",".join(members) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join([go_json(item) for item in value]) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def go_float(number: float) -> str:
    """A float as Go prints it in JSON: `100`, `0.5`, `1e+21`, `1e-7`."""
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"unsupported JSON number {number!r}")
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < _SMALLEST_FIXED or magnitude >= _LARGEST_FIXED):
        text = repr(number)  # shortest digits, exponent form
        mantissa, _, exponent = text.partition("e")
        sign = exponent[0]
        digits = exponent[1:].lstrip("0") or "0"
        return f"{mantissa.removesuffix('.0')}e{sign}{digits}"
    fixed = format(Decimal(repr(number)), "f")
    if "." in fixed:
        fixed = fixed.rstrip("0").rstrip(".")
    return "0" if fixed == "-0" else fixed


def _go_string(text: str) -> str:
    if not _NEEDS_ESCAPE.search(text):
        return f'"{text}"'
    out = ['"']
    for char in text:
        escaped = _STRING_ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def go_quote(text: str) -> str:
    """A string as Go's `%q` prints it, for field paths in messages (`[name="nginx"]`)."""
    out = ['"']
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif char < " " or char == "\x7f":
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def describe_value(value: Any) -> str:
    """A value as structured-merge-diff prints it inside a field path: strings quoted, numbers bare."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, list):
        return "[" + ",".join(describe_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{key}={describe_value(value[key])}" for key in sorted(value)) + "}"
    return repr(value)


def json_copy(value: Any) -> Any:
    """A deep copy of a decoded JSON value, several times cheaper than `copy.deepcopy`.

    Scalars are immutable and come back as they are; only objects and lists are copied. Objects
    and lists go through orjson and back, three times faster than walking them in Python even when
    the copy is then compared with the original: the comparison keeps the copy only when it is
    equal, which it is not when the value holds what JSON cannot say the same way (NaN, a tuple, a
    date) — those, and values orjson refuses (a key that is no string, a 65-bit integer), are
    walked.
    """
    if isinstance(value, (dict, list)):
        try:
            copied = orjson.loads(orjson.dumps(value))
        except TypeError:
            return _walked_copy(value)
        if copied == value:
            return copied
        return _walked_copy(value)
    return value


def _walked_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _walked_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_walked_copy(item) for item in value]
    return value


def json_equal(left: Any, right: Any) -> bool:
    """Whether two decoded JSON values are equal, with booleans distinct from numbers."""
    if isinstance(left, (dict, list)) and isinstance(right, (dict, list)):
        if left is right:
            return True  # a merge shares what it leaves alone, so a compare meets it again
        # JSON's equality is Python's without `True == 1`, so Python's "unequal" is final; its
        # "equal" holds once no boolean stands against a number, which identical JSON text shows.
        # Other text (`1` against `1.0`, keys in another order) is left to the walk.
        if left != right:
            return False
        try:
            if orjson.dumps(left) == orjson.dumps(right):
                return True
        except TypeError:  # not plain JSON
            pass
    return _json_equal(left, right)


def _json_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    return type(left) is type(right) and bool(left == right)


def value_order(value: Any) -> tuple[Any, ...]:
    """A sort key that orders JSON values as structured-merge-diff does."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, (int, float)):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(value_order(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple((key, value_order(value[key])) for key in sorted(value)))
    return (5,)
