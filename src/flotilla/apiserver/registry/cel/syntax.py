"""CEL source text to a small expression tree: cel-python's parser, our nodes.

cel-python parses CEL with a LALR grammar (lark) into a deep concrete tree — one node per precedence
level, so `self.x` is ten nodes deep. `parse` folds that into the nodes the evaluator and the cost
estimator walk: literals, identifiers, field selections, calls, operators, list and map literals and
the comprehension macros (`all`, `exists`, `exists_one`, `map`, `filter`) with `has()` as a
presence test. A rule that does not parse, or uses syntax Kubernetes' CEL environment has no use
for (message construction), is a `CompileError` worded as cel-go words it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import lark
import lark.exceptions
from celpy.celparser import CELParseError, CELParser
from celpy.evaluation import celbytes, celstr

from flotilla.apiserver.registry.cel.values import Uint

MAX_DEPTH = 200
"""Nesting beyond this is refused (cel-go's parser stops at a similar depth)."""


class CompileError(Exception):
    """The rule is not a CEL expression this server can run; the message is cel-go's style."""


@dataclass(frozen=True, slots=True)
class Node:
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: Any


@dataclass(frozen=True, slots=True)
class Ident(Node):
    name: str


@dataclass(frozen=True, slots=True)
class Select(Node):
    operand: Node
    field: str
    test_only: bool = False
    """`has(operand.field)`: whether the field is present, not its value."""


@dataclass(frozen=True, slots=True)
class Index(Node):
    operand: Node
    index: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    function: str
    target: Node | None
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Operator(Node):
    """`_&&_`, `_||_`, `!_`, `-_`, `_?_:_`, `_<_`, `_+_`, `@in`… with operands in order."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class ListLiteral(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class MapLiteral(Node):
    entries: tuple[tuple[Node, Node], ...]


@dataclass(frozen=True, slots=True)
class Comprehension(Node):
    """A macro over a list (its items) or a map (its keys)."""

    macro: str
    """all, exists, exists_one, map, filter."""
    range: Node
    variable: str
    predicate: Node
    """The condition (all/exists/exists_one/filter, and map's filter when `transform` is set)."""
    transform: Node | None = None
    """map's result expression."""


MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})

_BINARY = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_gt": "_>_",
    "relation_ge": "_>=_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "@in",
    "addition_add": "_+_",
    "addition_sub": "_-_",
    "multiplication_mul": "_*_",
    "multiplication_div": "_/_",
    "multiplication_mod": "_%_",
}


PARSED_KEPT = 16384
"""Expression trees remembered, by rule text: a CRD's rules are parsed when it is checked, when its
status is written and when its versions are served, and again at each start — the same texts."""

_parsed: dict[str, Node | CompileError] = {}
_parsing = threading.Lock()


def parse(text: str) -> Node:
    """The expression tree of `text` (remembered: trees are immutable); raises CompileError.

    Safe from any thread: CRDs are validated and served in worker threads, which parse their rules
    (about 2.5 ms a rule) before anything on the event loop needs them.
    """
    with _parsing:
        found = _parsed.get(text)
        if found is None:
            try:
                found = _parse(text)
            except CompileError as error:
                found = error
            if len(_parsed) >= PARSED_KEPT:
                _parsed.clear()
            _parsed[text] = found
    if isinstance(found, CompileError):
        raise CompileError(str(found))
    return found


def _parse(text: str) -> Node:
    CELParser()  # builds cel-python's grammar once (its parser is a class-level singleton)
    parser = CELParser.CEL_PARSER
    if parser is None:  # pragma: no cover - CELParser() always builds it
        raise CompileError("ERROR: <input>:1:1: no CEL grammar")
    try:
        tree = parser.parse(text)
    except lark.exceptions.UnexpectedToken as error:
        raise CompileError(_syntax_error(error.line, error.column, _token_text(error.token))) from None
    except lark.exceptions.UnexpectedCharacters as error:
        start = error.pos_in_stream or 0
        shown = text[start : start + 1]
        raise CompileError(
            f"ERROR: <input>:{error.line}:{error.column}: Syntax error: token recognition error at: '{shown}'"
        ) from None
    except (lark.exceptions.LarkError, CELParseError) as error:
        raise CompileError(f"ERROR: <input>:1:1: Syntax error: {str(error).splitlines()[0]}") from None
    except RecursionError:
        raise CompileError("ERROR: <input>:1:1: expression recursion limit exceeded") from None
    try:
        return _Folder().fold(tree, 0)
    except RecursionError:
        raise CompileError("ERROR: <input>:1:1: expression recursion limit exceeded") from None


def _token_text(token: Any) -> str:
    return "<EOF>" if getattr(token, "type", "") == "$END" else str(token)


def _syntax_error(line: Any, column: Any, found: str) -> str:
    line = line if isinstance(line, int) and line > 0 else 1
    column = column if isinstance(column, int) and column > 0 else 1
    return f"ERROR: <input>:{line}:{column}: Syntax error: mismatched input '{found}'"


class _Folder:
    def fold(self, tree: Any, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise CompileError("ERROR: <input>:1:1: expression recursion limit exceeded")
        while isinstance(tree, lark.Tree) and len(tree.children) == 1 and tree.data in _PASS_THROUGH:
            tree = tree.children[0]
        rule = str(tree.data)
        line, column = _position(tree)
        children = tree.children
        depth += 1
        if rule == "expr":
            condition, then, otherwise = (self.fold(c, depth) for c in children)
            return Operator(line, column, "_?_:_", (condition, then, otherwise))
        if rule in ("conditionalor", "conditionaland"):
            name = "_||_" if rule == "conditionalor" else "_&&_"
            return Operator(
                line, column, name, (self.fold(children[0], depth), self.fold(children[1], depth))
            )
        if rule in ("relation", "addition", "multiplication"):
            left_tree, right = children
            operator = str(left_tree.data)
            return Operator(
                line,
                column,
                _BINARY[operator],
                (self.fold(left_tree.children[0], depth), self.fold(right, depth)),
            )
        if rule == "unary":
            operator, operand = children
            name = "!_" if operator.data == "unary_not" else "-_"
            return Operator(line, column, name, (self.fold(operand, depth),))
        if rule == "member_dot":
            return Select(line, column, self.fold(children[0], depth), str(children[1]))
        if rule == "member_dot_arg":
            target = self.fold(children[0], depth)
            args = self._args(children[2] if len(children) > 2 else None, depth)
            return self._call(line, column, str(children[1]), target, args)
        if rule == "member_index":
            return Index(line, column, self.fold(children[0], depth), self.fold(children[1], depth))
        if rule in ("ident_arg", "dot_ident_arg"):
            args = self._args(children[1] if len(children) > 1 else None, depth)
            return self._call(line, column, str(children[0]), None, args)
        if rule in ("ident", "dot_ident"):
            return Ident(line, column, str(children[0]))
        if rule == "paren_expr":
            return self.fold(children[0], depth)
        if rule == "list_lit":
            return ListLiteral(line, column, self._args(children[0] if children else None, depth))
        if rule == "map_lit":
            parts = self._args(children[0] if children else None, depth)
            return MapLiteral(line, column, tuple(zip(parts[0::2], parts[1::2], strict=True)))
        if rule == "literal":
            return Literal(line, column, _literal(children[0]))
        if rule == "member_object":
            raise CompileError(f"ERROR: <input>:{line}:{column}: object construction is not supported here")
        raise CompileError(f"ERROR: <input>:{line}:{column}: unsupported syntax {rule}")

    def _args(self, tree: Any, depth: int) -> tuple[Node, ...]:
        if tree is None:
            return ()
        return tuple(self.fold(child, depth) for child in tree.children)

    def _call(self, line: int, column: int, name: str, target: Node | None, args: tuple[Node, ...]) -> Node:
        if name == "has" and target is None:
            if len(args) != 1 or not isinstance(args[0], Select):
                raise CompileError(f"ERROR: <input>:{line}:{column}: invalid argument to has() macro")
            select = args[0]
            return Select(select.line, select.column, select.operand, select.field, test_only=True)
        if name in MACROS and target is not None and len(args) in (2, 3):
            variable = args[0]
            if not isinstance(variable, Ident):
                raise CompileError(f"ERROR: <input>:{line}:{column}: argument is not an identifier")
            if len(args) == 3 and name != "map":
                raise CompileError(f"ERROR: <input>:{line}:{column}: {name}() takes two arguments")
            if name == "map":
                if len(args) == 3:
                    return Comprehension(line, column, name, target, variable.name, args[1], args[2])
                return Comprehension(
                    line, column, name, target, variable.name, Literal(line, column, True), args[1]
                )
            return Comprehension(line, column, name, target, variable.name, args[1])
        return Call(line, column, name, target, args)


_PASS_THROUGH = frozenset(
    {
        "expr",
        "conditionalor",
        "conditionaland",
        "relation",
        "addition",
        "multiplication",
        "unary",
        "member",
        "primary",
    }
)


def _position(tree: Any) -> tuple[int, int]:
    meta = getattr(tree, "meta", None)
    line = getattr(meta, "line", None) if meta is not None and not getattr(meta, "empty", True) else None
    column = getattr(meta, "column", None) if line is not None else None
    return (line or 1), (column or 1)


def _literal(token: Any) -> Any:
    kind, text = token.type, str(token.value)
    if kind == "INT_LIT":
        body = text.lstrip("-")
        value = int(body, 16) if body.lower().startswith("0x") else int(body)
        value = -value if text.startswith("-") else value
        if not -(2**63) <= value < 2**63:
            raise CompileError(f"ERROR: <input>:{token.line}:{token.column}: invalid int literal")
        return value
    if kind == "UINT_LIT":
        value = int(text[:-1], 16) if text.lower().startswith("0x") else int(text[:-1])
        if not 0 <= value < 2**64:
            raise CompileError(f"ERROR: <input>:{token.line}:{token.column}: invalid uint literal")
        return Uint(value)
    if kind == "FLOAT_LIT":
        return float(text)
    if kind in ("STRING_LIT", "MLSTRING_LIT"):
        return str(celstr(token))
    if kind == "BYTES_LIT":
        return bytes(celbytes(token))
    if kind == "BOOL_LIT":
        return text == "true"
    return None
