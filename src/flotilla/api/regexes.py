"""A Kubernetes regular expression: Go's `regexp` syntax, matched in linear time.

Kubernetes matches every user-supplied pattern — a CRD schema's `pattern`, CEL's `matches()`,
`find()` and `findAll()` — with Go's `regexp`, which is RE2: no backreferences, no lookaround, and
time linear in the text whatever the pattern. Python's `re` backtracks, so `^(a+)+$` against
`"a"*40+"b"` runs for minutes; here the same match takes microseconds. This module is the project's
one home for such patterns: it compiles each once (RE2 through `google-re2`), remembers it, and words
compile errors as Go does (`error parsing regexp: missing closing ): `((``) so a CRD author reads
kube's message.
"""

from __future__ import annotations

from typing import Any

import re2

MAX_REMEMBERED = 4096
"""Compiled patterns kept; the schemas in use hold far fewer (the cache starts over past it)."""

# RE2 states an error as "<code>: <argument>"; Go's regexp/syntax names the same codes differently.
_GO_WORDING = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "unexpected )": "unexpected )",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid named capture group": "invalid named capture",
    "trailing \\": "trailing backslash at end of expression",
    "pattern too large - compile failed": "expression too large",
    "pattern too large - reverse compile failed": "expression too large",
}

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a bad pattern is the caller's answer, not a line on the server's stderr


class RegexError(ValueError):
    """A pattern Go's regexp refuses; the message is Go's."""


_compiled: dict[str, Any] = {}
_refused: dict[str, str] = {}


def compile_regex(pattern: str) -> Any:
    """The compiled form of `pattern` (remembered); raises RegexError when Go would refuse it."""
    found = _compiled.get(pattern)
    if found is not None:
        return found
    problem = _refused.get(pattern)
    if problem is None:
        try:
            found = re2.compile(pattern, _OPTIONS)
        except re2.error as error:
            problem = _go_message(pattern, error)
        else:
            _remember(_compiled, pattern, found)
            return found
        _remember(_refused, pattern, problem)
    raise RegexError(problem)


def regex_error(pattern: str) -> str | None:
    """Why Go's regexp refuses `pattern` (kube's wording), or None when it compiles."""
    try:
        compile_regex(pattern)
    except RegexError as error:
        return str(error)
    return None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (Go's MatchString); raises RegexError."""
    return compile_regex(pattern).search(text) is not None


def _remember(cache: dict[str, Any], pattern: str, value: Any) -> None:
    if len(cache) >= MAX_REMEMBERED:
        cache.clear()
    cache[pattern] = value


def _go_message(pattern: str, error: Exception) -> str:
    raw = error.args[0] if error.args else ""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, _, argument = text.partition(": ")
    wording = _GO_WORDING.get(code, code)
    if not argument:
        argument = pattern
    return f"error parsing regexp: {wording}: `{argument}`"
