"""JSONPath templates as Karmada reads a state preservation rule: client-go's `util/jsonpath`, strict.

A rule's `jsonPath` is a template (`{ .jobStatus.jobID }`, `job-{.jobStatus.jobID}`) applied to
the failed copy's status. Karmada parses it with client-go and missing keys *not* allowed, so a
path that finds nothing is an error (the failover waits, and says why) rather than an empty label.
This module gives the same results for what such rules use:

- text outside `{...}` is kept as written; `{"text"}` is literal text;
- fields `.a.b` (a backslash escapes `.` inside a name: `.labels.app\\.kubernetes\\.io/name`),
  `['a.b']` for a key with dots, `.*` and `[*]` for every value, `{.}` for the whole status;
- indexes `[0]`, `[-1]` and slices `[1:3]`;
- filters `[?(@.type=="Ready")]` (`==`, `!=`, `<`, `>`, `<=`, `>=` against a quoted string, a
  number or `true`/`false`) and existence filters `[?(@.ready)]`.

Results print as client-go prints them: strings as they are, numbers and booleans as Go's `fmt`
writes them, objects and lists as JSON; several results of one action are joined by a space.
Recursive descent (`..`), unions (`[0,2]`), slice steps and `range`/`end` are refused with a
`JSONPathError` that says so.

Where this lives: the API server has its own JSONPath (`apiserver.registry.tables.jsonpath`, for
CRD printer columns, where missing keys are allowed), which controllers may not import; the two
belong together in `flotilla.api` once both are needed there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

_FIELD_END = frozenset(".[]{}()\t\n ")
_OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
_INDEX = re.compile(r"-?\d+\Z")
_SLICE = re.compile(r"(-?\d*):(-?\d*)\Z")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?\Z")


class JSONPathError(ValueError):
    """A template that cannot be parsed, or a path that does not apply to the status it is read from."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class Index:
    start: int | None
    end: int | None
    single: bool


@dataclass(frozen=True, slots=True)
class Filter:
    left: tuple[Step, ...]
    operator: str
    right: str | float | bool | None = None


Step = Field | Wildcard | Index | Filter


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template: literal text and paths, in order."""

    source: str
    parts: tuple[str | tuple[Step, ...], ...]

    def render(self, document: Any) -> str:
        """The template's text for `document`; `JSONPathError` when a path finds nothing."""
        return "".join(
            part if isinstance(part, str) else _print(_evaluate(part, document)) for part in self.parts
        )


def parse_template(source: str) -> Template:
    """Parse a client-go JSONPath template; `JSONPathError` on what it cannot read."""
    parts: list[str | tuple[Step, ...]] = []
    position = 0
    while position < len(source):
        opening = source.find("{", position)
        if opening < 0:
            parts.append(source[position:])
            break
        if opening > position:
            parts.append(source[position:opening])
        closing = _closing_brace(source, opening)
        parts.append(_action(source[opening + 1 : closing].strip()))
        position = closing + 1
    return Template(source, tuple(parts))


def _closing_brace(source: str, opening: int) -> int:
    quote = ""
    for position in range(opening + 1, len(source)):
        character = source[position]
        if quote:
            if character == quote and source[position - 1] != "\\":
                quote = ""
        elif character in "\"'":
            quote = character
        elif character == "}":
            return position
    raise JSONPathError(f"unclosed action in {source!r}")


def _action(text: str) -> str | tuple[Step, ...]:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.split(" ", 1)[0] in ("range", "end"):
        raise JSONPathError("range/end blocks are not supported in a state preservation rule")
    return _path(text)


def _path(text: str) -> tuple[Step, ...]:
    steps: list[Step] = []
    position = 1 if text[:1] in ("$", "@") else 0
    while position < len(text):
        character = text[position]
        if text.startswith("..", position):
            raise JSONPathError("recursive descent (..) is not supported in a state preservation rule")
        if character == ".":
            position = _dotted(text, position + 1, steps)
        elif character == "[":
            closing = _closing_bracket(text, position)
            steps.append(_bracket(text[position + 1 : closing].strip()))
            position = closing + 1
        elif character == " ":
            position += 1
        else:
            raise JSONPathError(f"unexpected {character!r} at {position} in {text!r}")
    return tuple(steps)


def _dotted(text: str, position: int, steps: list[Step]) -> int:
    if text[position : position + 1] == "*":
        steps.append(Wildcard())
        return position + 1
    name: list[str] = []
    while position < len(text) and text[position] not in _FIELD_END:
        if text[position] == "\\" and position + 1 < len(text):
            position += 1
        name.append(text[position])
        position += 1
    if name:
        steps.append(Field("".join(name)))
    return position


def _closing_bracket(text: str, opening: int) -> int:
    depth, quote = 0, ""
    for position in range(opening, len(text)):
        character = text[position]
        if quote:
            if character == quote and text[position - 1] != "\\":
                quote = ""
        elif character in "\"'":
            quote = character
        elif character == "[":
            depth += 1
        elif character == "]":
            depth -= 1
            if depth == 0:
                return position
    raise JSONPathError(f"unclosed [ in {text!r}")


def _bracket(content: str) -> Step:
    if content == "*":
        return Wildcard()
    if content.startswith("?(") and content.endswith(")"):
        return _filter(content[2:-1].strip())
    if len(content) >= 2 and content[0] == content[-1] and content[0] in "\"'":
        return Field(content[1:-1])
    if _INDEX.match(content):
        return Index(int(content), None, single=True)
    sliced = _SLICE.match(content)
    if sliced:
        start, end = sliced.groups()
        return Index(int(start) if start else None, int(end) if end else None, single=False)
    raise JSONPathError(f"[{content}] is not supported in a state preservation rule")


def _filter(expression: str) -> Filter:
    quote = ""
    for position, character in enumerate(expression):
        if quote:
            quote = "" if character == quote else quote
            continue
        if character in "\"'":
            quote = character
            continue
        operator = next((o for o in _OPERATORS if expression.startswith(o, position)), None)
        if operator is not None:
            left = _path(expression[:position].strip())
            return Filter(left, operator, _literal(expression[position + len(operator) :].strip()))
    return Filter(_path(expression), "exists")


def _literal(text: str) -> str | float | bool:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if _NUMBER.match(text):
        return float(text)
    raise JSONPathError(f"cannot compare with {text!r}: use a quoted string, a number, true or false")


# --- evaluation -------------------------------------------------------------------------------------


def _evaluate(steps: tuple[Step, ...], document: Any) -> list[Any]:
    values = [document]
    for step in steps:
        values = _apply(step, values)
    return values


def _apply(step: Step, values: list[Any]) -> list[Any]:
    if isinstance(step, Field):
        return [_field(value, step.name) for value in values]
    if isinstance(step, Wildcard):
        return [child for value in values for child in _children(value)]
    if isinstance(step, Index):
        return [item for value in values for item in _index(value, step)]
    return [item for value in values for item in _filtered(value, step)]


def _field(value: Any, name: str) -> Any:
    if isinstance(value, dict) and name in value:
        return value[name]
    raise JSONPathError(f"{name} is not found")


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, list):
        return list(value)
    raise JSONPathError(f"cannot take every value of {_go_text(value)}")


def _index(value: Any, step: Index) -> list[Any]:
    if not isinstance(value, list):
        raise JSONPathError(f"{_go_text(value)} is not array or slice")
    length = len(value)
    if step.single:
        assert step.start is not None  # a single index always has one
        position = step.start + length if step.start < 0 else step.start
        if not 0 <= position < length:
            raise JSONPathError("array index out of bounds")
        return [value[position]]
    start = 0 if step.start is None else (step.start + length if step.start < 0 else step.start)
    end = length if step.end is None else (step.end + length if step.end < 0 else step.end)
    if not 0 <= start <= end <= length:
        raise JSONPathError("array index out of bounds")
    return value[start:end]


def _filtered(value: Any, step: Filter) -> list[Any]:
    if not isinstance(value, list):
        raise JSONPathError(f"{_go_text(value)} is not array or slice and cannot be filtered")
    kept = []
    for item in value:
        if step.operator == "exists":
            try:
                found = _evaluate(step.left, item)
            except JSONPathError:
                found = []
            if found:
                kept.append(item)
            continue
        lefts = _evaluate(step.left, item)
        if len(lefts) != 1:
            raise JSONPathError("can only compare one element at a time")
        if _compare(lefts[0], step.operator, step.right):
            kept.append(item)
    return kept


def _compare(left: Any, operator: str, right: Any) -> bool:
    numbers = all(isinstance(side, int | float) and not isinstance(side, bool) for side in (left, right))
    if not numbers and type(left) is not type(right):
        return operator == "!="
    if operator == "==":
        return bool(left == right)
    if operator == "!=":
        return bool(left != right)
    if isinstance(left, bool) or not (numbers or isinstance(left, str)):
        raise JSONPathError(f"cannot order {_go_text(left)} and {_go_text(right)}")
    return bool({"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[operator])


# --- printing -------------------------------------------------------------------------------------


def _print(values: list[Any]) -> str:
    return " ".join(_go_text(value) for value in values)


def _go_text(value: Any) -> str:
    """One result as client-go prints it: JSON for objects and lists, Go's `fmt.Print` otherwise."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """`fmt.Print(float64)`: the shortest digits, in exponent form below 1e-4 and from 1e6 up."""
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)  # finite: JSON has no NaN or infinity
    text = "".join(str(digit) for digit in digits)
    point = len(text) + exponent
    magnitude = point - 1
    minus = "-" if sign else ""
    if magnitude < -4 or magnitude >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if magnitude < 0 else '+'}{abs(magnitude):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"
