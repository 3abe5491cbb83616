"""CEL expressions evaluate as cel-go does: operators, macros, error absorption, libraries, cost."""

# ruff: noqa: E501 - kube messages and CEL rules are quoted whole: unbroken they read as kube prints them

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.cel.budget import Bound, Budget, CostExceeded
from flotilla.apiserver.registry.cel.evaluator import compile_expression
from flotilla.apiserver.registry.cel.syntax import CompileError, parse
from flotilla.apiserver.registry.cel.values import EvalError

SELF = {"x": "y", "l": [3, 1, 2], "m": {"a": 1}, "n": 5}


def run(text: str, value: Any = None, limit: int = 1_000_000) -> Any:
    program = compile_expression(parse(text), frozenset({"self", "oldSelf"}))
    return program({"self": SELF if value is None else value}, Budget(limit))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("self.x == 'y'", True),
        ("has(self.x) && !has(self.z)", True),
        ("self.l.all(i, i > 0) && self.l.exists(i, i == 2) && self.l.exists_one(i, i == 3)", True),
        ("self.l.map(i, i * 2)", [6, 2, 4]),
        ("self.l.map(i, i > 1, i)", [3, 2]),
        ("self.l.filter(i, i % 2 == 1)", [3, 1]),
        ("self.m.all(k, k == 'a')", True),
        ("size(self.l) == 3 && self.x.size() == 1", True),
        ("'Hello'.lowerAscii() + 'x'.upperAscii()", "hellox".replace("x", "X")),
        ("'a,b,c'.split(',').join('-')", "a-b-c"),
        ("' pad '.trim() + 'abc'.substring(1) + 'abc'.charAt(0)", "padbca"),
        ("'hello'.replace('l', 'L', 1)", "heLlo"),
        ("'%s is %d'.format(['x', 3])", "x is 3"),
        ("[1, 2, 3].isSorted() && [1, 2, 3].sum() == 6 && [1, 5].max() == 5 && [4, 2].min() == 2", True),
        ("[1, 2, 3].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2", True),
        ("self.x.matches('^[a-z]$') && 'abc123'.find('[0-9]+') == '123'", True),
        ("'a1b2'.findAll('[0-9]')", ["1", "2"]),
        (
            "quantity('1Gi').isGreaterThan(quantity('1G')) && quantity('500m').add(quantity('1.5')).asInteger() == 2",
            True,
        ),
        ("isQuantity('1.5Gi') && !isQuantity('1.5 Gi') && quantity('-1').sign() == -1", True),
        (
            "quantity('1k').compareTo(quantity('1000')) == 0 && quantity('0.5').asApproximateFloat() == 0.5",
            True,
        ),
        ("url('https://example.com:8443/p?q=1').getHostname() == 'example.com'", True),
        ("url('https://example.com:8443/p').getPort() == '8443' && isURL('/abs') && !isURL('rel')", True),
        ("ip('10.0.0.1').family() == 4 && isIP('::1') && !isIP('1.2.3')", True),
        ("cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", True),
        (
            "cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24') && cidr('10.0.0.0/8').prefixLength() == 8",
            True,
        ),
        (
            "!format.dns1123Label().validate('ok-name').hasValue() && format.dns1123Label().validate('Bad_').hasValue()",
            True,
        ),
        ("duration('1h') > duration('30m') && timestamp('2024-03-01T00:00:00Z').getFullYear() == 2024", True),
        ("string(timestamp('2024-03-01T00:00:01.50Z'))", "2024-03-01T00:00:01.5Z"),
        ("int('12') + 1 == 13 && string(1.5) == '1.5' && double(1) == 1.0 && uint(3) == 3u", True),
        ("type(self) == map && type(1) == int && type('') == string", True),
        ("1 == 1.0 && !(true == 1) && [1, 2] == [1, 2] && {'a': 1} == {'a': 1}", True),
        ("self.n > 3 ? 'big' : 'small'", "big"),
        (
            "optional.of(1).value() == 1 && !optional.none().hasValue() && optional.none().orValue(2) == 2",
            True,
        ),
    ],
)
def test_expressions_evaluate_as_cel_does(text: str, expected: Any) -> None:
    result = run(text)
    if expected is not None:
        assert result == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("self.missing == 1", "no such key: missing"),
        ("self.l[5]", "index out of bounds: 5"),
        ("9223372036854775807 + 1", "integer overflow"),
        ("1 / 0", "division by zero"),
        ("self.x + 1", "no such overload: _+_(string, int)"),
        ("quantity('nope')", "quantities must match"),
    ],
)
def test_runtime_errors_are_worded_as_cel_go_words_them(text: str, error: str) -> None:
    with pytest.raises(EvalError, match=error.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        run(text)


def test_and_or_absorb_an_error_the_other_side_decides() -> None:
    assert run("self.missing == 1 || true") is True
    assert run("self.missing == 1 && false") is False
    assert run("self.l.exists(i, i == 3 || self.missing)") is True
    with pytest.raises(EvalError):
        run("self.missing == 1 || false")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("self.x == ", "Syntax error: mismatched input '<EOF>'"),
        ("nosuch(1)", "undeclared reference to 'nosuch'"),
        ("other.x", "undeclared reference to 'other'"),
        ("self.x.matches('((')", "error parsing regexp: missing closing ): `((`"),
        ("self.l.all(1, true)", "argument is not an identifier"),
        ("A{b: 1}", "object construction is not supported"),
        ("'a'.lowerAscii(1)", "found no matching overload for 'lowerAscii'"),
    ],
)
def test_what_does_not_compile_is_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(CompileError, match="ERROR: <input>:") as caught:
        compile_expression(parse(text), frozenset({"self"}))
    assert message in str(caught.value)


def test_a_runaway_comprehension_stops_at_the_limit() -> None:
    values = list(range(1000))
    with pytest.raises(CostExceeded) as caught:
        run("self.all(a, self.all(b, a + b >= 0))", values, limit=10_000)
    assert caught.value.bound is Bound.CALL


def test_a_size_dependent_call_is_stopped_before_its_work() -> None:
    budget = Budget(100)
    program = compile_expression(parse("self.lowerAscii()"), frozenset({"self"}))
    with pytest.raises(CostExceeded):
        program({"self": "A" * 10_000}, budget)
    assert budget.spent > 100


def test_cost_grows_with_the_work_done() -> None:
    program = compile_expression(parse("self.all(i, i >= 0)"), frozenset({"self"}))
    small, large = Budget(10**9), Budget(10**9)
    program({"self": list(range(10))}, small)
    program({"self": list(range(1000))}, large)
    assert large.spent > 50 * small.spent
