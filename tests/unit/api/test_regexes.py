"""Kubernetes regular expressions: Go's syntax, Go's error wording, and matching in linear time."""

from __future__ import annotations

import time

import pytest

from flotilla.api import regexes


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("((", "error parsing regexp: missing closing ): `((`"),
        ("(?=a)b", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        ("(?<!a)b", "error parsing regexp: invalid or unsupported Perl syntax: `(?<!`"),
        ("(a)\\1", "error parsing regexp: invalid escape sequence: `\\1`"),
        ("+", "error parsing regexp: missing argument to repetition operator: `+`"),
        ("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
        ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
        ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
        ("[a", "error parsing regexp: missing closing ]: `[a`"),
    ],
)
def test_patterns_go_refuses_are_refused_in_gos_words(pattern: str, message: str) -> None:
    assert regexes.regex_error(pattern) == message
    with pytest.raises(regexes.RegexError, match="error parsing regexp"):
        regexes.search(pattern, "a")


@pytest.mark.parametrize(
    "pattern", ["^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "(?i)abc", "\\pL+", "[[:alpha:]]", "\\z"]
)
def test_patterns_go_accepts_compile(pattern: str) -> None:
    assert regexes.regex_error(pattern) is None


def test_search_is_unanchored_like_go_match_string() -> None:
    assert regexes.search("b+", "abbbc")
    assert not regexes.search("^b", "abc")


def test_nested_quantifiers_match_in_linear_time() -> None:
    """`^(a+)+$` against a's and a b backtracks for minutes in Python's re; RE2 answers at once."""
    started = time.perf_counter()
    assert not regexes.search("^(a+)+$", "a" * 100_000 + "b")
    assert regexes.search("^(a+)+$", "a" * 100_000)
    # Generous: a backtracking engine needs 2^40 steps here; RE2 a few milliseconds.
    assert time.perf_counter() - started < 5


def test_a_compiled_pattern_is_remembered() -> None:
    assert regexes.compile_regex("^x+$") is regexes.compile_regex("^x+$")
