"""A compiled rule: the expression tree turned into nested Python closures that keep count of cost.

Each node becomes one closure; evaluating a rule calls the root's. Every node adds to the running
cost as cel-go's runtime cost does (one per operation, more for work proportional to a value's
size), and the budget is checked at every comprehension step and after every size-dependent call —
the only places where the work is not bounded by the rule's own length — so a runaway rule stops
within a few operations of its limit. CEL's error semantics hold: `&&`, `||` and the `all`/`exists`
macros absorb an error when the other side decides the result; anything else propagates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from flotilla.apiserver.registry.cel import library
from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.syntax import (
    Call,
    CompileError,
    Comprehension,
    Ident,
    Index,
    ListLiteral,
    Literal,
    MapLiteral,
    Node,
    Operator,
    Select,
    parse,
)
from flotilla.apiserver.registry.cel.values import (
    CelType,
    EvalError,
    Uint,
    compare,
    equal,
    is_number,
    no_overload,
    type_name,
)

Frame = dict[str, Any]
Evaluate = Callable[[Frame, Budget], Any]

TYPE_NAMES = ("bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type", "type")
_INT_RANGE = (-(2**63), 2**63 - 1)


def compile_expression(node: Node, variables: frozenset[str]) -> Evaluate:
    """The closure evaluating `node` with `variables` (e.g. self, oldSelf) bound in the frame."""
    return _Compiler(variables).compile(node, frozenset())


RULE_VARIABLES = frozenset({"self", "oldSelf"})
"""What a validation rule (and its messageExpression) may name besides its own locals."""
COMPILED_KEPT = 16384
_compiled: dict[tuple[str, frozenset[str]], Evaluate] = {}
_compiling = threading.Lock()


def compile_text(text: str, variables: frozenset[str]) -> Evaluate:
    """`compile_expression` of the rule text `text` (remembered, like its parse: closures hold no
    state of their own); raises CompileError. Safe from any thread: a CRD is validated in a worker thread."""
    key = (text, variables)
    found = _compiled.get(key)
    if found is not None:
        return found
    program = compile_expression(parse(text), variables)
    with _compiling:
        if len(_compiled) >= COMPILED_KEPT:
            _compiled.clear()
        _compiled[key] = program
    return program


class _Compiler:
    def __init__(self, variables: frozenset[str]) -> None:
        self.variables = variables

    def compile(self, node: Node, local: frozenset[str]) -> Evaluate:
        if isinstance(node, Literal):
            value = node.value
            return lambda _frame, _budget: value
        if isinstance(node, Ident):
            return self._ident(node, local)
        if isinstance(node, Select):
            return self._select(node, local)
        if isinstance(node, Index):
            return self._index(node, local)
        if isinstance(node, ListLiteral):
            items = [self.compile(item, local) for item in node.items]

            def make_list(frame: Frame, budget: Budget) -> Any:
                budget.charge(1 + len(items))
                return [item(frame, budget) for item in items]

            return make_list
        if isinstance(node, MapLiteral):
            entries = [(self.compile(k, local), self.compile(v, local)) for k, v in node.entries]

            def make_map(frame: Frame, budget: Budget) -> Any:
                budget.charge(1 + len(entries))
                result: dict[Any, Any] = {}
                for key, value in entries:
                    k = key(frame, budget)
                    if not isinstance(k, (str, int, bool, Uint)):
                        raise EvalError(f"unsupported key type: {type_name(k)}")
                    if k in result:
                        raise EvalError(f"Failed with repeated key: {k}")
                    result[k] = value(frame, budget)
                return result

            return make_map
        if isinstance(node, Operator):
            return self._operator(node, local)
        if isinstance(node, Comprehension):
            return self._comprehension(node, local)
        if isinstance(node, Call):
            return self._call(node, local)
        raise CompileError(f"ERROR: <input>:{node.line}:{node.column}: unsupported expression")

    def _ident(self, node: Ident, local: frozenset[str]) -> Evaluate:
        name = node.name
        if name in local or name in self.variables:

            def variable(frame: Frame, budget: Budget) -> Any:
                budget.spent += 1
                return frame[name]

            return variable
        if name in TYPE_NAMES:
            kind = CelType(name)
            return lambda _frame, _budget: kind
        raise CompileError(
            f"ERROR: <input>:{node.line}:{node.column}: undeclared reference to '{name}' (in container '')"
        )

    def _select(self, node: Select, local: frozenset[str]) -> Evaluate:
        operand = self.compile(node.operand, local)
        name = node.field
        if node.test_only:

            def has(frame: Frame, budget: Budget) -> Any:
                budget.spent += 1
                value = operand(frame, budget)
                if isinstance(value, Mapping):
                    return name in value
                raise EvalError(f"invalid type for field selection: {type_name(value)}")

            return has

        def select(frame: Frame, budget: Budget) -> Any:
            budget.spent += 1
            value = operand(frame, budget)
            if isinstance(value, Mapping):
                try:
                    return value[name]
                except KeyError:
                    raise EvalError(f"no such key: {name}") from None
            found = library.member(value, name)
            if found is not library.ABSENT:
                return found
            raise EvalError(f"type '{type_name(value)}' does not support field selection")

        return select

    def _index(self, node: Index, local: frozenset[str]) -> Evaluate:
        operand = self.compile(node.operand, local)
        index = self.compile(node.index, local)

        def lookup(frame: Frame, budget: Budget) -> Any:
            budget.spent += 1
            container = operand(frame, budget)
            key = index(frame, budget)
            if isinstance(container, Mapping):
                if key in container and type(key) is not bool:
                    return container[key]
                for candidate in container:
                    if equal(candidate, key):
                        return container[candidate]
                raise EvalError(f"no such key: {key}")
            if isinstance(container, Sequence) and not isinstance(container, (str, bytes)):
                if isinstance(key, float) and key.is_integer():
                    key = int(key)
                if isinstance(key, Uint):
                    key = key.value
                if not isinstance(key, int) or isinstance(key, bool):
                    raise no_overload("_[_]", container, key)
                if not 0 <= key < len(container):
                    raise EvalError(f"index out of bounds: {key}")
                return container[key]
            raise no_overload("_[_]", container, key)

        return lookup

    def _operator(self, node: Operator, local: frozenset[str]) -> Evaluate:
        args = [self.compile(arg, local) for arg in node.args]
        name = node.name
        if name == "_&&_":
            return _logical(args[0], args[1], decisive=False)
        if name == "_||_":
            return _logical(args[0], args[1], decisive=True)
        if name == "_?_:_":
            condition, then, otherwise = args

            def choose(frame: Frame, budget: Budget) -> Any:
                budget.spent += 1
                test = condition(frame, budget)
                if not isinstance(test, bool):
                    raise no_overload("_?_:_", test)
                return then(frame, budget) if test else otherwise(frame, budget)

            return choose
        if name == "!_":
            operand = args[0]

            def negate(frame: Frame, budget: Budget) -> Any:
                budget.spent += 1
                value = operand(frame, budget)
                if not isinstance(value, bool):
                    raise no_overload("!_", value)
                return not value

            return negate
        if name == "-_":
            operand = args[0]

            def minus(frame: Frame, budget: Budget) -> Any:
                budget.spent += 1
                value = operand(frame, budget)
                if isinstance(value, bool) or not isinstance(value, (int, float, timedelta)):
                    raise no_overload("-_", value)
                return _int_result(-value) if isinstance(value, int) else -value

            return minus
        binary = _BINARY[name]
        left, right = args

        def apply(frame: Frame, budget: Budget) -> Any:
            budget.spent += 1
            return binary(budget, left(frame, budget), right(frame, budget))

        return apply

    def _comprehension(self, node: Comprehension, local: frozenset[str]) -> Evaluate:
        source = self.compile(node.range, local)
        inner = local | {node.variable}
        predicate = self.compile(node.predicate, inner)
        transform = self.compile(node.transform, inner) if node.transform is not None else None
        variable, macro = node.variable, node.macro

        def comprehend(frame: Frame, budget: Budget) -> Any:
            budget.spent += 1
            collection = source(frame, budget)
            if isinstance(collection, Mapping):
                elements: Any = collection.keys()
            elif isinstance(collection, Sequence) and not isinstance(collection, (str, bytes)):
                elements = collection
            else:
                raise no_overload(macro, collection)
            saved = frame.get(variable, _UNBOUND)
            try:
                return _MACROS[macro](frame, budget, elements, variable, predicate, transform)
            finally:
                if saved is _UNBOUND:
                    frame.pop(variable, None)
                else:
                    frame[variable] = saved

        return comprehend

    def _call(self, node: Call, local: frozenset[str]) -> Evaluate:
        name = node.function
        target_node = node.target
        if (
            isinstance(target_node, Ident)
            and target_node.name not in local
            and target_node.name not in self.variables
            and f"{target_node.name}.{name}" in library.FUNCTIONS
        ):
            name, target_node = f"{target_node.name}.{name}", None
        function = library.FUNCTIONS.get(name)
        if function is None:
            raise CompileError(
                f"ERROR: <input>:{node.line}:{node.column}: undeclared reference to '{name}' "
                "(in container '')"
            )
        arity = len(node.args) + (1 if target_node is not None else 0)
        if not function.accepts(arity, member=target_node is not None):
            raise CompileError(
                f"ERROR: <input>:{node.line}:{node.column}: found no matching overload for '{name}' "
                f"applied to {arity} argument(s)"
            )
        if name in {"matches", "find", "findAll"}:
            library.check_literal_pattern(node)
        parts = ([self.compile(target_node, local)] if target_node is not None else []) + [
            self.compile(arg, local) for arg in node.args
        ]
        implementation = function.implementation

        def call(frame: Frame, budget: Budget) -> Any:
            budget.spent += 1
            result = implementation(budget, *[part(frame, budget) for part in parts])
            budget.check()
            return result

        return call


_UNBOUND: Any = object()


def _logical(left: Evaluate, right: Evaluate, *, decisive: bool) -> Evaluate:
    """`&&` (decisive False) and `||` (decisive True): either side alone may decide, errors included."""
    operator = "_||_" if decisive else "_&&_"

    def evaluate(frame: Frame, budget: Budget) -> Any:
        budget.spent += 1
        try:
            first = left(frame, budget)
        except EvalError as error:
            second = right(frame, budget)
            if second is decisive:
                return decisive
            raise error from None
        if first is decisive:
            return decisive
        if not isinstance(first, bool):
            raise no_overload(operator, first)
        second = right(frame, budget)
        if not isinstance(second, bool):
            raise no_overload(operator, first, second)
        return second

    return evaluate


def _int_result(value: int) -> int:
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise EvalError("integer overflow")
    return value


def _add(budget: Budget, a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_overload("_+_", a, b)
    if type(a) is int and type(b) is int:
        return _int_result(a + b)
    if isinstance(a, float) and isinstance(b, float):
        return a + b
    if isinstance(a, Uint) and isinstance(b, Uint):
        return Uint(a.value + b.value)
    if isinstance(a, str) and isinstance(b, str):
        budget.charge((len(a) + len(b)) // 10)
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        budget.charge((len(a) + len(b)) // 10)
        return a + b
    if isinstance(a, Sequence) and isinstance(b, Sequence) and not isinstance(a, (str, bytes)):
        budget.charge(len(a) + len(b))
        return [*a, *b]
    if isinstance(a, (datetime, timedelta)) and isinstance(b, timedelta):
        return _time_result(a + b)
    if isinstance(a, timedelta) and isinstance(b, datetime):
        return _time_result(b + a)
    raise no_overload("_+_", a, b)


def _subtract(budget: Budget, a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return _int_result(a - b)
    if isinstance(a, float) and isinstance(b, float):
        return a - b
    if isinstance(a, Uint) and isinstance(b, Uint):
        return Uint(a.value - b.value)
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a - b
    if isinstance(a, (datetime, timedelta)) and isinstance(b, timedelta):
        return _time_result(a - b)
    raise no_overload("_-_", a, b)


def _multiply(budget: Budget, a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return _int_result(a * b)
    if isinstance(a, float) and isinstance(b, float):
        return a * b
    if isinstance(a, Uint) and isinstance(b, Uint):
        return Uint(a.value * b.value)
    raise no_overload("_*_", a, b)


def _divide(budget: Budget, a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b == 0:
            raise EvalError("division by zero")
        quotient = abs(a) // abs(b)
        return _int_result(quotient if (a >= 0) == (b >= 0) else -quotient)
    if isinstance(a, float) and isinstance(b, float):
        if b == 0:
            return float("nan") if a == 0 else (float("inf") if a > 0 else float("-inf"))
        return a / b
    if isinstance(a, Uint) and isinstance(b, Uint):
        if b.value == 0:
            raise EvalError("division by zero")
        return Uint(a.value // b.value)
    raise no_overload("_/_", a, b)


def _modulo(budget: Budget, a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b == 0:
            raise EvalError("modulus by zero")
        remainder = abs(a) % abs(b)
        return remainder if a >= 0 else -remainder
    if isinstance(a, Uint) and isinstance(b, Uint):
        if b.value == 0:
            raise EvalError("modulus by zero")
        return Uint(a.value % b.value)
    raise no_overload("_%_", a, b)


def _time_result(value: Any) -> Any:
    return value


def _in(budget: Budget, element: Any, container: Any) -> Any:
    if isinstance(container, Mapping):
        budget.spent += 1
        return any(equal(element, key) for key in container) if is_number(element) else element in container
    if isinstance(container, Sequence) and not isinstance(container, (str, bytes)):
        budget.charge(len(container))
        return any(equal(element, item) for item in container)
    raise no_overload("@in", element, container)


def _equals(budget: Budget, a: Any, b: Any) -> Any:
    if isinstance(a, (str, bytes, Sequence, Mapping)):
        budget.charge(_size(a) // 10)
    return equal(a, b)


def _size(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 1


def _ordering(function: str, test: Callable[[int], bool]) -> Callable[[Budget, Any, Any], Any]:
    def ordered(budget: Budget, a: Any, b: Any) -> Any:
        if isinstance(a, (str, bytes)):
            budget.charge(_size(a) // 10)
        return test(compare(function, a, b))

    return ordered


_BINARY: dict[str, Callable[[Budget, Any, Any], Any]] = {
    "_+_": _add,
    "_-_": _subtract,
    "_*_": _multiply,
    "_/_": _divide,
    "_%_": _modulo,
    "@in": _in,
    "_==_": _equals,
    "_!=_": lambda budget, a, b: not _equals(budget, a, b),
    "_<_": _ordering("_<_", lambda c: c < 0),
    "_<=_": _ordering("_<=_", lambda c: c <= 0),
    "_>_": _ordering("_>_", lambda c: c > 0),
    "_>=_": _ordering("_>=_", lambda c: c >= 0),
}


# -- macros ---------------------------------------------------------------------------------------

Macro = Callable[[Frame, Budget, Any, str, Evaluate, Evaluate | None], Any]


def _test(value: Any, macro: str) -> bool:
    if not isinstance(value, bool):
        raise no_overload(macro, value)
    return value


def _all(frame: Frame, budget: Budget, elements: Any, variable: str, predicate: Evaluate, _: Any) -> Any:
    failure: EvalError | None = None
    for element in elements:
        budget.spent += 1
        budget.check()
        frame[variable] = element
        try:
            if not _test(predicate(frame, budget), "all"):
                return False
        except EvalError as error:
            failure = failure or error
    if failure is not None:
        raise failure
    return True


def _exists(frame: Frame, budget: Budget, elements: Any, variable: str, predicate: Evaluate, _: Any) -> Any:
    failure: EvalError | None = None
    for element in elements:
        budget.spent += 1
        budget.check()
        frame[variable] = element
        try:
            if _test(predicate(frame, budget), "exists"):
                return True
        except EvalError as error:
            failure = failure or error
    if failure is not None:
        raise failure
    return False


def _exists_one(
    frame: Frame, budget: Budget, elements: Any, variable: str, predicate: Evaluate, _: Any
) -> Any:
    found = 0
    for element in elements:
        budget.spent += 1
        budget.check()
        frame[variable] = element
        if _test(predicate(frame, budget), "exists_one"):
            found += 1
    return found == 1


def _map(
    frame: Frame,
    budget: Budget,
    elements: Any,
    variable: str,
    predicate: Evaluate,
    transform: Evaluate | None,
) -> Any:
    result = []
    for element in elements:
        budget.spent += 2
        budget.check()
        frame[variable] = element
        if _test(predicate(frame, budget), "map") and transform is not None:
            result.append(transform(frame, budget))
    return result


def _filter(frame: Frame, budget: Budget, elements: Any, variable: str, predicate: Evaluate, _: Any) -> Any:
    result = []
    for element in elements:
        budget.spent += 2
        budget.check()
        frame[variable] = element
        if _test(predicate(frame, budget), "filter"):
            result.append(element)
    return result


_MACROS: dict[str, Macro] = {
    "all": _all,
    "exists": _exists,
    "exists_one": _exists_one,
    "map": _map,
    "filter": _filter,
}
