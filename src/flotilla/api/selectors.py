"""Label selectors: the `labelSelector=` string, the `matchLabels`/`matchExpressions` object, matching.

Clients meet label selectors in two spellings. The query parameter (`kubectl get -l 'app=web,tier
notin (db)'`) is parsed here with the same lexer and grammar as apimachinery's `labels.Parse`, so the
same strings are accepted, the same ones are refused, and the refusal reads as kube-apiserver words
it (`unable to parse requirement: ...`, `found ',', expected: identifier`); the server answers those
with 400 BadRequest. The object form inside specs (`spec.selector` of a Deployment, a
PropagationPolicy's resource selectors) is validated into `FieldError`s with full paths, as
`ValidateLabelSelector` does, and converted like `LabelSelectorAsSelector`: `None` selects nothing,
`{}` selects everything.

A parsed `LabelSelector` is immutable and hashable; its requirements are kept sorted by key, and
`str()` gives kube's canonical string (`labels.Selector.String()`), the form Scale `status.selector`
carries. Matching runs once per object per watcher, so every requirement compiles its test (a set
lookup, a dictionary probe) when it is built and `matches` only calls those.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flotilla.api import fielderrors
from flotilla.api.fielderrors import ErrorType, FieldError
from flotilla.api.names import label_value_errors, qualified_name_errors

LabelTest = Callable[[Mapping[str, str]], bool]

_NO_LABELS: Mapping[str, str] = {}
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class SelectorError(ValueError):
    """A selector the server cannot use. The message is kube's wording; `causes` holds field errors."""

    def __init__(self, message: str, causes: Sequence[FieldError] = ()) -> None:
        super().__init__(message)
        self.causes = tuple(causes)


class Operator(enum.StrEnum):
    """How a requirement relates its key to its values; the strings are apimachinery's `selection`."""

    IN = "in"
    NOT_IN = "notin"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    NOT_EQUALS = "!="
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


_SPELLING = {
    Operator.IN: " in ",
    Operator.NOT_IN: " notin ",
    Operator.EQUALS: "=",
    Operator.DOUBLE_EQUALS: "==",
    Operator.NOT_EQUALS: "!=",
    Operator.GREATER_THAN: ">",
    Operator.LESS_THAN: "<",
}
_OBJECT_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One condition on one label. Build it through the parse functions, which validate it."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()
    _test: LabelTest = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_test", _compile(self.key, self.operator, self.values))

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self._test(labels)

    def __str__(self) -> str:
        if self.operator is Operator.EXISTS:
            return self.key
        if self.operator is Operator.DOES_NOT_EXIST:
            return f"!{self.key}"
        values = ",".join(sorted(self.values))
        if self.operator in (Operator.IN, Operator.NOT_IN):
            values = f"({values})"
        return f"{self.key}{_SPELLING[self.operator]}{values}"


def _compile(key: str, operator: Operator, values: tuple[str, ...]) -> LabelTest:
    """The requirement as one small function, so matching does no dispatch and no parsing."""
    if operator is Operator.EXISTS:
        return lambda labels: key in labels
    if operator is Operator.DOES_NOT_EXIST:
        return lambda labels: key not in labels
    if operator in (Operator.GREATER_THAN, Operator.LESS_THAN):
        return _compile_comparison(key, operator, values)
    # A missing key reads as None, which no value equals: `in` fails and `notin` holds, as in kube.
    if len(values) == 1:
        (only,) = values
        if operator in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return lambda labels: labels.get(key) != only
        return lambda labels: labels.get(key) == only
    allowed = frozenset(values)
    if operator in (Operator.NOT_IN, Operator.NOT_EQUALS):
        return lambda labels: labels.get(key) not in allowed
    return lambda labels: labels.get(key) in allowed


def _compile_comparison(key: str, operator: Operator, values: tuple[str, ...]) -> LabelTest:
    bound = parse_int64(values[0]) if len(values) == 1 else None
    if bound is None:
        return lambda _labels: False
    greater = operator is Operator.GREATER_THAN

    def compare(labels: Mapping[str, str]) -> bool:
        value = labels.get(key)
        number = None if value is None else parse_int64(value)
        if number is None:
            return False
        return number > bound if greater else number < bound

    return compare


def parse_int64(text: str) -> int | None:
    """A decimal int64 as Go's `strconv.ParseInt(text, 10, 64)` reads it, or None."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """An AND of requirements. No requirements selects everything; `matches_nothing` selects nothing."""

    requirements: tuple[Requirement, ...] = ()
    matches_nothing: bool = False
    _tests: tuple[LabelTest, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Sorted by key (stable) like `Selector.Add`, so equal selectors compare and print equal.
        ordered = tuple(sorted(self.requirements, key=_requirement_key))
        object.__setattr__(self, "requirements", ordered)
        object.__setattr__(self, "_tests", tuple(requirement.matches for requirement in ordered))

    @property
    def empty(self) -> bool:
        """True when the selector restricts nothing (kube's `Selector.Empty()`)."""
        return not self.requirements and not self.matches_nothing

    @property
    def matches_everything(self) -> bool:
        return self.empty

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.matches_nothing:
            return False
        current = _NO_LABELS if labels is None else labels
        for test in self._tests:  # noqa: SIM110 - a plain loop skips all()'s generator on the hot path
            if not test(current):
                return False
        return True

    def add(self, *requirements: Requirement) -> LabelSelector:
        """This selector with more requirements ANDed in; a selector of nothing stays one."""
        if self.matches_nothing:
            return self
        return LabelSelector(self.requirements + requirements)

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)


def _requirement_key(requirement: Requirement) -> str:
    return requirement.key


EVERYTHING = LabelSelector()
NOTHING = LabelSelector(matches_nothing=True)


def label_selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """Exact matches on every pair (kube's `SelectorFromSet`); an empty or missing set selects all."""
    if not labels:
        return EVERYTHING
    return LabelSelector(tuple(Requirement(k, Operator.EQUALS, (v,)) for k, v in labels.items()))


# --- the string form ----------------------------------------------------------------------------


class _Token(enum.Enum):
    END = enum.auto()
    IDENTIFIER = enum.auto()
    IN = enum.auto()
    NOT_IN = enum.auto()
    COMMA = enum.auto()
    OPEN = enum.auto()
    CLOSE = enum.auto()
    NOT = enum.auto()
    EQUALS = enum.auto()
    DOUBLE_EQUALS = enum.auto()
    NOT_EQUALS = enum.auto()
    GREATER_THAN = enum.auto()
    LESS_THAN = enum.auto()


_WHITESPACE = frozenset(" \t\r\n")
_SYMBOLS = {
    "!=": _Token.NOT_EQUALS,
    "==": _Token.DOUBLE_EQUALS,
    "=": _Token.EQUALS,
    "!": _Token.NOT,
    "(": _Token.OPEN,
    ")": _Token.CLOSE,
    ",": _Token.COMMA,
    ">": _Token.GREATER_THAN,
    "<": _Token.LESS_THAN,
}
_SPECIAL = frozenset("=!(),<>")
_KEYWORDS = {"in": _Token.IN, "notin": _Token.NOT_IN}
_BINARY_OPERATORS = {
    _Token.IN: Operator.IN,
    _Token.NOT_IN: Operator.NOT_IN,
    _Token.EQUALS: Operator.EQUALS,
    _Token.DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
    _Token.NOT_EQUALS: Operator.NOT_EQUALS,
    _Token.GREATER_THAN: Operator.GREATER_THAN,
    _Token.LESS_THAN: Operator.LESS_THAN,
}
_REQUIREMENT_START = (_Token.IDENTIFIER, _Token.NOT)

Scanned = tuple[_Token, str]


def _scan(text: str) -> list[Scanned]:
    """Tokens as apimachinery's lexer cuts them: runs of ordinary characters, or operator symbols."""
    text = text.split("\x00", 1)[0]  # the Go lexer reads a NUL byte as the end of its input
    tokens: list[Scanned] = []
    position, length = 0, len(text)
    while True:
        while position < length and text[position] in _WHITESPACE:
            position += 1
        if position >= length:
            tokens.append((_Token.END, ""))
            return tokens
        if text[position] in _SPECIAL:
            pair = text[position : position + 2]
            symbol = pair if pair in ("!=", "==") else text[position]
            tokens.append((_SYMBOLS[symbol], symbol))
            position += len(symbol)
            continue
        start = position
        while position < length and text[position] not in _SPECIAL and text[position] not in _WHITESPACE:
            position += 1
        word = text[start:position]
        tokens.append((_KEYWORDS.get(word, _Token.IDENTIFIER), word))


class _Parser:
    """apimachinery's recursive-descent grammar; every error message is the one kube returns.

    Where a value is expected, `in` and `notin` are ordinary identifiers (`x in (in)` is valid).
    """

    def __init__(self, text: str) -> None:
        self._tokens = _scan(text)
        self._position = 0

    def _peek(self, *, operator: bool = False) -> Scanned:
        token, literal = self._tokens[self._position]
        if not operator and token in (_Token.IN, _Token.NOT_IN):
            token = _Token.IDENTIFIER
        return token, literal

    def _next(self, *, operator: bool = False) -> Scanned:
        scanned = self._peek(operator=operator)
        self._position = min(self._position + 1, len(self._tokens) - 1)
        return scanned

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self._peek()
            if token is _Token.END:
                return requirements
            if token not in _REQUIREMENT_START:
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self._requirement())
            except SelectorError as error:
                raise SelectorError(f"unable to parse requirement: {error}") from error
            token, literal = self._next()
            if token is _Token.END:
                return requirements
            if token is not _Token.COMMA:
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            token, literal = self._peek()
            if token not in _REQUIREMENT_START:
                raise SelectorError(f"found '{literal}', expected: identifier after ','")

    def _requirement(self) -> Requirement:
        key, unary = self._key()
        if unary is not None:
            return Requirement(key, unary)
        token, literal = self._next(operator=True)
        operator = _BINARY_OPERATORS.get(token)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: in, notin, =, ==, !=, gt, lt")
        if operator in (Operator.IN, Operator.NOT_IN):
            values = self._value_set()
        else:
            values = self._exact_value()
        return _validated(key, operator, tuple(sorted(values)))

    def _key(self) -> tuple[str, Operator | None]:
        """The key, and the operator when it is unary (`!key`, or a bare `key` ending the term)."""
        unary = None
        token, literal = self._next()
        if token is _Token.NOT:
            unary = Operator.DOES_NOT_EXIST
            token, literal = self._next()
        if token is not _Token.IDENTIFIER:
            raise SelectorError(f"found '{literal}', expected: identifier")
        problems = qualified_name_errors(literal)
        if problems:
            raise SelectorError(_invalid("<nil>", literal, "; ".join(problems)))
        if unary is None and self._peek()[0] in (_Token.END, _Token.COMMA):
            unary = Operator.EXISTS
        return literal, unary

    def _value_set(self) -> set[str]:
        token, literal = self._next()
        if token is not _Token.OPEN:
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self._peek()
        if token is _Token.CLOSE:
            self._next()
            return {""}
        if token not in (_Token.IDENTIFIER, _Token.COMMA):
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self._identifiers()
        self._next()  # the ')' that `_identifiers` stopped in front of
        return values

    def _identifiers(self) -> set[str]:
        """Comma-separated, possibly empty values, up to (not including) the closing parenthesis."""
        values: set[str] = set()
        while True:
            token, literal = self._next()
            if token is _Token.IDENTIFIER:
                values.add(literal)
                following, following_literal = self._peek()
                if following is _Token.CLOSE:
                    return values
                if following is not _Token.COMMA:
                    raise SelectorError(f"found '{following_literal}', expected: ',' or ')'")
            elif token is _Token.COMMA:
                if not values:
                    values.add("")  # "(,a)"
                following = self._peek()[0]
                if following is _Token.CLOSE:
                    values.add("")  # "(a,)"
                    return values
                if following is _Token.COMMA:
                    self._next()
                    values.add("")  # "(a,,b)"
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def _exact_value(self) -> set[str]:
        if self._peek()[0] in (_Token.END, _Token.COMMA):
            return {""}
        token, literal = self._next()
        if token is not _Token.IDENTIFIER:
            raise SelectorError(f"found '{literal}', expected: identifier")
        return {literal}


def _validated(key: str, operator: Operator, values: tuple[str, ...]) -> Requirement:
    """The checks of apimachinery's `NewRequirement` that a parsed key and operator can still fail."""
    problems: list[str] = []
    if operator in (Operator.GREATER_THAN, Operator.LESS_THAN):
        problems.extend(
            _invalid(f"values[{i}]", value, "for 'Gt', 'Lt' operators, the value must be an integer")
            for i, value in enumerate(values)
            if parse_int64(value) is None
        )
    for i, value in enumerate(values):
        errors = label_value_errors(value)
        if errors:
            problems.append(_invalid(fielderrors.key(f"values[{i}]", key), value, "; ".join(errors)))
    if problems:
        raise SelectorError(_aggregate(problems))
    return Requirement(key, operator, values)


def parse_label_selector(text: str) -> LabelSelector:
    """The `labelSelector=` string as a selector; raises `SelectorError` with kube's message."""
    return LabelSelector(tuple(_Parser(text).parse()))


# --- the object form ----------------------------------------------------------------------------


def validate_label_selector(selector: Any, path: str) -> list[FieldError]:
    """What is wrong with a `matchLabels`/`matchExpressions` object, as kube's `ValidateLabelSelector`."""
    if selector is None:
        return []
    if not isinstance(selector, Mapping):
        return [_type_invalid(path, selector, "object")]
    errors: list[FieldError] = []
    errors.extend(_match_labels_errors(selector.get("matchLabels"), fielderrors.child(path, "matchLabels")))
    expressions = selector.get("matchExpressions")
    expressions_path = fielderrors.child(path, "matchExpressions")
    if expressions is not None and not isinstance(expressions, list):
        return [*errors, _type_invalid(expressions_path, expressions, "array")]
    for i, expression in enumerate(expressions or ()):
        errors.extend(_expression_errors(expression, fielderrors.index(expressions_path, i)))
    return errors


def _match_labels_errors(labels: Any, path: str) -> list[FieldError]:
    if labels is None:
        return []
    if not isinstance(labels, Mapping):
        return [_type_invalid(path, labels, "object")]
    errors: list[FieldError] = []
    # kube reports both key and value problems at `matchLabels` itself, without the key.
    for key in sorted(labels):
        value = labels[key]
        errors.extend(fielderrors.invalid(path, key, problem) for problem in qualified_name_errors(key))
        if not isinstance(value, str):
            errors.append(_type_invalid(path, value, "string"))
            continue
        errors.extend(fielderrors.invalid(path, value, problem) for problem in label_value_errors(value))
    return errors


def _expression_errors(expression: Any, path: str) -> list[FieldError]:
    if not isinstance(expression, Mapping):
        return [_type_invalid(path, expression, "object")]
    errors: list[FieldError] = []
    operator = expression.get("operator")
    values = expression.get("values")
    values_path = fielderrors.child(path, "values")
    if operator in ("In", "NotIn"):
        if not values:
            detail = "must be specified when `operator` is 'In' or 'NotIn'"
            errors.append(fielderrors.required(values_path, detail))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append(fielderrors.forbidden(values_path, detail))
    else:
        errors.append(
            fielderrors.invalid(
                fielderrors.child(path, "operator"), operator, "not a valid selector operator"
            )
        )
    key = expression.get("key", "")
    key_path = fielderrors.child(path, "key")
    if not isinstance(key, str):
        errors.append(_type_invalid(key_path, key, "string"))
    else:
        errors.extend(fielderrors.invalid(key_path, key, problem) for problem in qualified_name_errors(key))
    if values is not None and not isinstance(values, list):
        return [*errors, _type_invalid(values_path, values, "array")]
    for i, value in enumerate(values or ()):
        value_path = fielderrors.index(values_path, i)
        if not isinstance(value, str):
            errors.append(_type_invalid(value_path, value, "string"))
            continue
        errors.extend(
            fielderrors.invalid(value_path, value, problem) for problem in label_value_errors(value)
        )
    return errors


def _type_invalid(path: str, value: Any, type_name: str) -> FieldError:
    return FieldError(ErrorType.TYPE_INVALID, path, value, f"must be of type {type_name}")


def label_selector_from_object(selector: Any, path: str = "") -> LabelSelector:
    """An object-form selector (`matchLabels` + `matchExpressions`) as a `LabelSelector`.

    `None` selects nothing and `{}` selects everything, as kube's `LabelSelectorAsSelector`. An
    invalid selector raises `SelectorError` whose `causes` are the field errors, at paths under `path`.
    """
    if selector is None:
        return NOTHING
    errors = validate_label_selector(selector, path)
    if errors:
        raise SelectorError(_aggregate([str(error) for error in errors]), errors)
    match_labels: Mapping[str, str] = selector.get("matchLabels") or {}
    requirements = [Requirement(key, Operator.EQUALS, (match_labels[key],)) for key in sorted(match_labels)]
    requirements.extend(
        Requirement(
            expression["key"],
            _OBJECT_OPERATORS[expression["operator"]],
            tuple(expression.get("values") or ()),
        )
        for expression in selector.get("matchExpressions") or ()
    )
    return LabelSelector(tuple(requirements))


# --- messages -----------------------------------------------------------------------------------


def _invalid(path: str, value: str, detail: str) -> str:
    """A `field.Invalid` error as Go prints it inside a selector parse error."""
    return f"{path}: Invalid value: {go_quoted(value)}: {detail}"


def _aggregate(messages: Iterable[str]) -> str:
    """Several errors as apimachinery's aggregate prints them: the one message, or `[a, b]`."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]"


_GO_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    '"': '\\"',
    "\\": "\\\\",
}


def go_quoted(text: str) -> str:
    """`text` as Go's `%q` prints it, which is how kube quotes values inside these messages."""
    parts = ['"']
    for character in text:
        escaped = _GO_ESCAPES.get(character)
        if escaped is not None:
            parts.append(escaped)
        elif character.isprintable():
            parts.append(character)
        elif ord(character) < 0x80:
            parts.append(f"\\x{ord(character):02x}")
        elif ord(character) <= 0xFFFF:
            parts.append(f"\\u{ord(character):04x}")
        else:
            parts.append(f"\\U{ord(character):08x}")
    parts.append('"')
    return "".join(parts)
