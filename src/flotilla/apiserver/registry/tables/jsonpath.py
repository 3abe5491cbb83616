"""The JSONPath dialect of CRD printer columns (client-go's `util/jsonpath`), parsed and evaluated.

kube-apiserver compiles each `additionalPrinterColumns[].jsonPath` with client-go's parser as the
template `{<path>}` and evaluates it with missing keys allowed. This module accepts the same syntax
and gives the same results, quirks included, because users write paths against real clusters:

- `.a.b` fields; a backslash escapes a terminator inside a field (`.labels.app\\.kubernetes\\.io/name`);
- `['a']` is re-read as `.a`, so a dotted key in brackets splits at its dots (`['a.b']` means `.a.b`),
  exactly as in Kubernetes; only single quotes form a key;
- `[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`, unions `[0,2]`, `.*`, recursive descent `..name`;
- filters `[?(@.type=="Ready")]` with `==`, `!=`, `<`, `>`, `<=`, `>=` against string, number and
  boolean literals, and existence filters `[?(@.ready)]`.

Evaluation follows client-go: a missing key yields no value (not an error), while a type mismatch (an
index into an object, a comparison of a string with a number) makes the whole path fail. Both end up
as an empty cell. Only one `{...}` action is supported; a path that closes it early is rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_DICT_KEY = re.compile(r"'([^']*)'")
_SLICE = re.compile(r"(-?\d*)(:-?\d*)?(:-?\d*)?")
_FILTER = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)")
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


class JSONPathError(ValueError):
    """A path the JSONPath parser rejects; the message is client-go's wording where it has one."""


class _EvaluationError(Exception):
    """The path does not apply to this object (client-go returns an error; the cell is empty)."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class Recursive:
    pass


@dataclass(frozen=True, slots=True)
class Bound:
    value: int = 0
    known: bool = False
    derived: bool = False


@dataclass(frozen=True, slots=True)
class Slice:
    start: Bound
    end: Bound
    step: Bound


@dataclass(frozen=True, slots=True)
class Union:
    branches: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True, slots=True)
class Filter:
    left: tuple[Node, ...]
    operator: str
    right: tuple[Node, ...] = ()


@dataclass(frozen=True, slots=True)
class Literal:
    """A quoted string (one value) or a number/boolean (one value per input), as in client-go."""

    value: str | int | float | bool
    per_input: bool = True


@dataclass(frozen=True, slots=True)
class Identifier:
    name: str


Node = Field | Wildcard | Recursive | Slice | Union | Filter | Literal | Identifier


@dataclass(slots=True)
class _Parser:
    text: str
    pos: int = 0
    nodes: list[Node] = field(default_factory=list)

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def parse_action(self) -> tuple[Node, ...]:
        """Parse up to the closing `}` (the caller appended it) and check nothing follows."""
        while True:
            rest = self.text[self.pos :]
            if rest.startswith("}"):
                if "{" in rest[1:] or "}" in rest[1:]:
                    raise JSONPathError("only one JSONPath action is supported in a printer column")
                return tuple(self.nodes)
            if rest.startswith("[?("):
                self.parse_filter()
            elif rest.startswith(".."):
                self.parse_recursive()
            else:
                self.parse_step()

    def parse_step(self) -> None:
        character = self.peek()
        self.pos += 1
        if character in ("", "\r", "\n"):
            raise JSONPathError("unclosed action")
        if character in (" ", "@", "$"):
            return
        if character == "[":
            self.parse_array()
        elif character in ("'", '"'):
            self.parse_quote(character)
        elif character == ".":
            self.parse_field()
        elif character in "+-" or character.isdigit():
            self.pos -= 1
            self.parse_number()
        elif character == "_" or character.isalnum():
            self.pos -= 1
            self.parse_identifier()
        else:
            raise JSONPathError(f"unrecognized character in action: U+{ord(character):04X} {character!r}")

    def parse_field(self) -> None:
        start = self.pos
        while self.pos < len(self.text):
            character = self.text[self.pos]
            if character == "\\":
                self.pos += 2
            elif character in _TERMINATORS:
                break
            else:
                self.pos += 1
        value = self.text[start : self.pos]
        self.nodes.append(Wildcard() if value == "*" else Field(value.replace("\\", "")))

    def parse_recursive(self) -> None:
        if self.nodes and isinstance(self.nodes[-1], Recursive):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += 2
        self.nodes.append(Recursive())
        following = self.peek()
        if following == "_" or following.isalnum():
            self.parse_field()

    def parse_number(self) -> None:
        start = self.pos
        if self.peek() in ("+", "-"):
            self.pos += 1
        while self.peek() == "." or self.peek().isdigit():
            self.pos += 1
        value = self.text[start : self.pos]
        if re.fullmatch(r"[+-]?\d+", value):
            self.nodes.append(Literal(int(value)))
            return
        try:
            self.nodes.append(Literal(float(value)))
        except ValueError:
            raise JSONPathError(f"cannot parse number {value}") from None

    def parse_identifier(self) -> None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 1
        value = self.text[start : self.pos]
        self.nodes.append(Literal(value == "true") if value in ("true", "false") else Identifier(value))

    def parse_quote(self, quote: str) -> None:
        start = self.pos - 1
        while True:
            character = self.peek()
            self.pos += 1
            if character in ("", "\n"):
                raise JSONPathError("unterminated quoted string")
            if character == quote and self.text[self.pos - 2] != "\\":
                break
        raw = self.text[start : self.pos]
        self.nodes.append(Literal(_unquote(raw), per_input=False))

    def parse_array(self) -> None:
        end = self.pos
        while True:
            character = self.text[end] if end < len(self.text) else ""
            if character in ("", "\n"):
                raise JSONPathError("unterminated array")
            if character == "]":
                break
            end += 1
        content = self.text[self.pos : end]
        self.pos = end + 1
        if content == "*":
            content = ":"
        parts = content.split(",")
        if len(parts) > 1:
            self.nodes.append(Union(tuple(_parse(f"[{part.strip(' ')}]") for part in parts)))
            return
        key = _DICT_KEY.fullmatch(content)
        if key is not None:
            self.nodes.extend(_parse(f".{key.group(1)}"))
            return
        self.nodes.append(_slice(content))

    def parse_filter(self) -> None:
        self.pos += 3
        start = self.pos
        opened = closed = False
        pair = ""
        while True:
            character = self.peek()
            self.pos += 1
            if character in ("", "\n"):
                raise JSONPathError("unterminated filter")
            if character in ("'", '"'):
                if not opened:
                    opened, pair = True, character
                elif character == pair and self.text[self.pos - 2] != "\\":
                    closed = True
            elif character == ")" and opened == closed:
                break
        if self.peek() != "]":
            raise JSONPathError("unclosed array expect ]")
        self.pos += 1
        expression = self.text[start : self.pos - 2]
        comparison = _FILTER.fullmatch(expression)
        if comparison is None:
            self.nodes.append(Filter(_parse(expression), "exists"))
        else:
            left, operator, right = comparison.groups()
            self.nodes.append(Filter(_parse(left), operator, _parse(right)))


def _unquote(raw: str) -> str:
    """Go's `strconv.Unquote`, extended to single quotes (client-go's `UnquoteExtend`)."""
    quote, body = raw[0], raw[1:-1]
    result: list[str] = []
    index = 0
    while index < len(body):
        character = body[index]
        if character != "\\":
            result.append(character)
            index += 1
            continue
        escape = body[index + 1 : index + 2]
        index += 2
        if escape in _SIMPLE_ESCAPES:
            result.append(_SIMPLE_ESCAPES[escape])
        elif escape == quote:
            result.append(quote)
        elif escape in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[escape]
            digits = body[index : index + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise JSONPathError(f"unquote string {raw} error invalid syntax")
            code = int(digits, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise JSONPathError(f"unquote string {raw} error invalid syntax")
            result.append(chr(code))
            index += width
        elif escape in "01234567" and escape:
            digits = body[index - 1 : index + 2]
            if len(digits) != 3 or not all(c in "01234567" for c in digits) or int(digits, 8) > 255:
                raise JSONPathError(f"unquote string {raw} error invalid syntax")
            result.append(chr(int(digits, 8)))
            index += 2
        else:
            raise JSONPathError(f"unquote string {raw} error invalid syntax")
    return "".join(result)


def _slice(content: str) -> Slice:
    match = _SLICE.fullmatch(content)
    if match is None:
        raise JSONPathError(f"invalid array index {content}")
    groups = [group or "" for group in match.groups()]
    bounds: list[Bound] = []
    for position, group in enumerate(groups):
        digits = group[1:] if position > 0 else group
        if group and digits:
            try:
                bounds.append(Bound(int(digits), known=True))
            except ValueError:
                raise JSONPathError(f"array index {digits} is not a number") from None
        elif position == 1 and not group:
            # `[n]` is the slice `[n:n+1]`, marked derived so that `[-1]` reaches the last item.
            bounds.append(Bound(bounds[0].value + 1, known=True, derived=True))
        else:
            bounds.append(Bound())
    return Slice(*bounds)


def _parse(text: str) -> tuple[Node, ...]:
    return _Parser(text + "}").parse_action()


@dataclass(frozen=True, slots=True)
class PrinterPath:
    """A parsed printer-column path; `find(obj)` gives every value it selects, in order."""

    source: str
    nodes: tuple[Node, ...]

    def find(self, obj: Any) -> list[Any] | None:
        """The values the path selects; `[]` when keys are missing, None when the path does not apply."""
        try:
            return _evaluate(self.nodes, [obj])
        except _EvaluationError:
            return None


def parse_printer_jsonpath(path: str) -> PrinterPath:
    """Parse a CRD printer column's `jsonPath` as kube-apiserver does (it wraps it in `{...}`)."""
    return PrinterPath(path, _parse(path))


def _evaluate(nodes: tuple[Node, ...], values: list[Any]) -> list[Any]:
    for node in nodes:
        values = _step(node, values)
    return values


def _step(node: Node, values: list[Any]) -> list[Any]:
    match node:
        case Field(name):
            return [value[name] for value in values if isinstance(value, dict) and name in value]
        case Wildcard():
            return [child for value in values for child in _children(value)]
        case Recursive():
            return _descendants(values)
        case Slice():
            return _slice_values(node, values)
        case Union(branches):
            return [result for branch in branches for result in _evaluate(branch, values)]
        case Filter():
            return _filter(node, values)
        case Literal(value, per_input):
            return [value] * len(values) if per_input else [value]
        case Identifier(name):
            raise _EvaluationError(f"unrecognized identifier {name}")
    raise _EvaluationError(f"unexpected node {node!r}")  # pragma: no cover - the match is exhaustive


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        # Go indexes a string by byte.
        return list(value.encode())
    return []


def _descendants(values: list[Any]) -> list[Any]:
    result: list[Any] = []
    for value in values:
        children = _children(value)
        if children:
            result.append(value)
            result.extend(_descendants(children))
    return result


def _slice_values(node: Slice, values: list[Any]) -> list[Any]:
    result: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise _EvaluationError(f"{type(value).__name__} is not array or slice")
        length = len(value)
        start = node.start.value if node.start.known else 0
        if start < 0:
            start += length
        end = node.end.value if node.end.known else length
        if end < 0 or (end == 0 and node.end.derived):
            end += length
        if start == end:
            # client-go stops at the first empty selection and returns what it has.
            return result
        if not 0 <= start < length or not 0 <= end <= length:
            raise _EvaluationError("array index out of bounds")
        if start > end:
            raise _EvaluationError(f"starting index {start} is greater than ending index {end}")
        step = 1
        if node.step.known:
            if node.step.value <= 0:
                raise _EvaluationError("step must be > 0")
            step = node.step.value
        result.extend(value[start:end:step])
    return result


def _filter(node: Filter, values: list[Any]) -> list[Any]:
    result: list[Any] = []
    for value in values:
        if not isinstance(value, list):
            raise _EvaluationError(f"{type(value).__name__} is not array or slice and cannot be filtered")
        for item in value:
            if node.operator == "exists":
                try:
                    if _evaluate(node.left, [item]):
                        result.append(item)
                except _EvaluationError:
                    pass
                continue
            lefts = _evaluate(node.left, [item])
            if not lefts:
                continue
            if len(lefts) > 1:
                raise _EvaluationError("can only compare one element at a time")
            rights = _evaluate(node.right, [item])
            if not rights:
                continue
            if len(rights) > 1:
                raise _EvaluationError("can only compare one element at a time")
            if _compare(node.operator, lefts[0], rights[0]):
                result.append(item)
    return result


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise _EvaluationError("invalid type for comparison")


def _compare(operator: str, left: Any, right: Any) -> bool:
    """Go template comparisons: both sides of one basic kind, no int/float mixing."""
    if operator not in ("==", "!=", "<", ">", "<=", ">="):
        raise _EvaluationError(f"unrecognized filter operator {operator}")
    if _kind(left) != _kind(right):
        raise _EvaluationError("incompatible types for comparison")
    if operator == "==":
        return bool(left == right)
    if operator == "!=":
        return bool(left != right)
    if _kind(left) == "bool":
        raise _EvaluationError("invalid type for comparison")
    if operator == "<":
        return bool(left < right)
    if operator == ">":
        return bool(left > right)
    if operator == "<=":
        return bool(left <= right)
    return bool(left >= right)
