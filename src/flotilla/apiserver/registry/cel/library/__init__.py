"""The functions a Kubernetes CEL rule may call, by name.

Kubernetes' CEL environment is CEL's standard functions plus its own libraries: extended strings,
lists, regex (`find`, `findAll`), `url`, `ip`/`cidr`, `quantity`, `format` and optionals. Each module
here registers its functions into one table; the evaluator looks a call up by name (namespaced
ones as `optional.of`) and passes the running `Budget` first, so a function whose work grows with
its arguments charges for it as cel-go's cost model does. Functions dispatch on their arguments'
types themselves (`indexOf` of a string or a list, in one module) and raise `no_overload` for the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flotilla.api import regexes
from flotilla.apiserver.registry.cel.syntax import Call, CompileError, Literal

ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class Function:
    implementation: Callable[..., Any]
    global_arities: frozenset[int] = frozenset()
    member_arities: frozenset[int] = frozenset()
    """Arities counting the target (`a.f(b)` has two)."""

    def accepts(self, arity: int, *, member: bool) -> bool:
        return arity in (self.member_arities if member else self.global_arities)


FUNCTIONS: dict[str, Function] = {}


def register(
    name: str,
    implementation: Callable[..., Any],
    *,
    global_arities: tuple[int, ...] = (),
    member_arities: tuple[int, ...] = (),
) -> None:
    """Add `name`; one implementation serves every overload of a name and dispatches on types."""
    if name in FUNCTIONS:
        raise ValueError(f"CEL function {name} is registered twice")
    FUNCTIONS[name] = Function(implementation, frozenset(global_arities), frozenset(member_arities))


_MEMBERS: dict[type, Callable[[Any, str], Any]] = {}


def member(value: Any, name: str) -> Any:
    """A field of a non-map value (none today: CRD values are maps); ABSENT when there is none."""
    reader = _MEMBERS.get(type(value))
    return ABSENT if reader is None else reader(value, name)


def check_literal_pattern(node: Call) -> None:
    """A constant pattern of `matches`/`find`/`findAll` must compile, as cel-go checks at compile time."""
    pattern = node.args[-1] if node.args else None
    if isinstance(pattern, Literal) and isinstance(pattern.value, str):
        problem = regexes.regex_error(pattern.value)
        if problem is not None:
            raise CompileError(f"ERROR: <input>:{node.line}:{node.column}: {problem}")


def _load() -> None:
    # The modules register themselves on import; imported here so `FUNCTIONS` is complete.
    from flotilla.apiserver.registry.cel.library import (  # noqa: F401, PLC0415 - registration side effect
        core,
        formats,
        lists,
        network,
        quantities,
        strings,
    )


_load()
