"""cel-go's extended strings library as Kubernetes enables it, and `indexOf`/`lastIndexOf` of lists.

charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, reverse,
`strings.quote` and `format` (the %s %d %f %e %b %o %x %X verbs). Positions count code points, as
cel-go's do. Each charges a tenth of the text it walks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import EvalError, Uint, equal, no_overload, type_name

_WHITESPACE = (
    " \t\n\v\f\r\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _text(function: str, value: Any, *rest: Any) -> str:
    if not isinstance(value, str):
        raise no_overload(function, value, *rest)
    return value


def _position(function: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise no_overload(function, value)
    return value


def _char_at(budget: Budget, target: Any, index: Any) -> str:
    text = _text("charAt", target, index)
    position = _position("charAt", index)
    if not 0 <= position <= len(text):
        raise EvalError(f"index out of range: {position}")
    return text[position : position + 1]


def _index_of(budget: Budget, target: Any, part: Any, start: Any = 0) -> int:
    if isinstance(target, Sequence) and not isinstance(target, (str, bytes)):
        budget.charge(len(target))
        for position, item in enumerate(target):
            if equal(item, part):
                return position
        return -1
    text = _text("indexOf", target, part)
    if not isinstance(part, str):
        raise no_overload("indexOf", target, part)
    offset = _position("indexOf", start)
    if not 0 <= offset <= len(text):
        raise EvalError(f"index out of range: {offset}")
    budget.charge(len(text) // 10)
    return text.find(part, offset)


def _last_index_of(budget: Budget, target: Any, part: Any, end: Any = None) -> int:
    if isinstance(target, Sequence) and not isinstance(target, (str, bytes)):
        budget.charge(len(target))
        for position in range(len(target) - 1, -1, -1):
            if equal(target[position], part):
                return position
        return -1
    text = _text("lastIndexOf", target, part)
    if not isinstance(part, str):
        raise no_overload("lastIndexOf", target, part)
    budget.charge(len(text) // 10)
    if end is None:
        return text.rfind(part)
    offset = _position("lastIndexOf", end)
    if not 0 <= offset < max(len(text), 1):
        raise EvalError(f"index out of range: {offset}")
    return text.rfind(part, 0, offset + len(part))


def _lower_ascii(budget: Budget, target: Any) -> str:
    text = _text("lowerAscii", target)
    budget.charge(len(text) // 10)
    return text.translate(_LOWER)


def _upper_ascii(budget: Budget, target: Any) -> str:
    text = _text("upperAscii", target)
    budget.charge(len(text) // 10)
    return text.translate(_UPPER)


def _replace(budget: Budget, target: Any, old: Any, new: Any, count: Any = -1) -> str:
    text = _text("replace", target, old, new)
    if not isinstance(old, str) or not isinstance(new, str):
        raise no_overload("replace", target, old, new)
    limit = _position("replace", count)
    budget.charge((len(text) + len(new) * (text.count(old) if old else len(text))) // 10)
    return text.replace(old, new, limit if limit >= 0 else -1)


def _split(budget: Budget, target: Any, separator: Any, count: Any = -1) -> list[str]:
    text = _text("split", target, separator)
    if not isinstance(separator, str):
        raise no_overload("split", target, separator)
    limit = _position("split", count)
    budget.charge(len(text) // 10)
    if limit == 0:
        return []
    if separator == "":
        parts = list(text)
        if limit > 0 and len(parts) > limit:
            parts = [*parts[: limit - 1], "".join(parts[limit - 1 :])]
        return parts
    return text.split(separator, limit - 1 if limit > 0 else -1)


def _substring(budget: Budget, target: Any, start: Any, end: Any = None) -> str:
    text = _text("substring", target, start)
    low = _position("substring", start)
    high = len(text) if end is None else _position("substring", end)
    if not 0 <= low <= len(text):
        raise EvalError(f"index out of range: {low}")
    if not 0 <= high <= len(text):
        raise EvalError(f"index out of range: {high}")
    if low > high:
        raise EvalError(f"invalid substring range. start: {low}, end: {high}")
    return text[low:high]


def _trim(budget: Budget, target: Any) -> str:
    text = _text("trim", target)
    budget.charge(len(text) // 10)
    return text.strip(_WHITESPACE)


def _join(budget: Budget, target: Any, separator: Any = "") -> str:
    if not isinstance(target, Sequence) or isinstance(target, (str, bytes)) or not isinstance(separator, str):
        raise no_overload("join", target, separator)
    if not all(isinstance(item, str) for item in target):
        raise EvalError("join: list must contain only strings")
    budget.charge(sum(len(item) for item in target) // 10 + len(target))
    return separator.join(target)


def _reverse(budget: Budget, target: Any) -> str:
    text = _text("reverse", target)
    budget.charge(len(text) // 10)
    return text[::-1]


def _quote(budget: Budget, value: Any) -> str:
    text = _text("strings.quote", value)
    budget.charge(len(text) // 10)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _format(budget: Budget, target: Any, args: Any) -> str:
    template = _text("format", target, args)
    if not isinstance(args, Sequence) or isinstance(args, (str, bytes)):
        raise no_overload("format", target, args)
    out: list[str] = []
    position, used = 0, 0
    while position < len(template):
        char = template[position]
        if char != "%":
            out.append(char)
            position += 1
            continue
        position += 1
        if position < len(template) and template[position] == "%":
            out.append("%")
            position += 1
            continue
        precision = None
        if position < len(template) and template[position] == ".":
            digits_end = position + 1
            while digits_end < len(template) and template[digits_end].isdigit():
                digits_end += 1
            precision = int(template[position + 1 : digits_end] or "0")
            position = digits_end
        if position >= len(template):
            raise EvalError("format: expected a verb after %")
        verb = template[position]
        position += 1
        if used >= len(args):
            raise EvalError(f"index {used} out of range")
        out.append(_format_one(verb, args[used], precision))
        used += 1
    result = "".join(out)
    budget.charge(len(result) // 10)
    return result


def _format_one(verb: str, value: Any, precision: int | None) -> str:
    number = value.value if isinstance(value, Uint) else value
    if verb == "s":
        return _as_text(value)
    if verb == "d" and isinstance(number, int) and not isinstance(number, bool):
        return str(number)
    if verb in "fe" and isinstance(number, (int, float)) and not isinstance(number, bool):
        return f"{float(number):.{6 if precision is None else precision}{verb}}"
    if verb in "boxX" and isinstance(number, int) and not isinstance(number, bool):
        return format(number, verb)
    if verb in "xX" and isinstance(value, str):
        return value.encode().hex() if verb == "x" else value.encode().hex().upper()
    raise EvalError(
        f"error during formatting: unrecognized formatting clause or type: %{verb} {type_name(value)}"
    )


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_as_text(k)}: {_as_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return "[" + ", ".join(_as_text(item) for item in value) + "]"
    if isinstance(value, Uint):
        return str(value.value)
    return str(value)


for _name, _function, _member in (
    ("charAt", _char_at, (2,)),
    ("indexOf", _index_of, (2, 3)),
    ("lastIndexOf", _last_index_of, (2, 3)),
    ("lowerAscii", _lower_ascii, (1,)),
    ("upperAscii", _upper_ascii, (1,)),
    ("replace", _replace, (3, 4)),
    ("split", _split, (2, 3)),
    ("substring", _substring, (2, 3)),
    ("trim", _trim, (1,)),
    ("join", _join, (1, 2)),
    ("reverse", _reverse, (1,)),
    ("format", _format, (2,)),
):
    register(_name, _function, member_arities=_member)
register("strings.quote", _quote, global_arities=(1,))
