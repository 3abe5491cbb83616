"""JSON Patch (RFC 6902), the `application/json-patch+json` PATCH body, with kube's bounds on its cost.

A JSON patch is a list of operations — add, remove, replace, move, copy, test — each at a JSON
Pointer (RFC 6901) into the document. What it costs is not what it weighs: a `copy` duplicates a
whole subtree, so 22 copies each doubling the one before turn a 1.3 KB patch into gigabytes of work.
kube-apiserver bounds it, and so does this module, with the same numbers:

- at most 10,000 operations per patch (413 otherwise, checked before anything is applied);
- at most 3 MiB copied by all the patch's `copy` operations together (kube's
  `JSONPatchMaxCopyBytes`), each copy measured as the compact JSON of what it copies — the same
  encoding that makes the copy — and the patch stopped at the first copy that passes the bound;
- no nesting past the API server's depth limit: an `add`, `replace`, `copy` or `move` that would
  put a value deeper is refused, so the walkers that follow never meet a deeper object.

Values are compared as kube's json-patch compares them: an integer is not equal to a float, nor a
boolean to a number. The document is patched in place (the caller hands over a private copy); the
operations' own values are copied where they are inserted, so one decoded patch can be applied again
when the write is retried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from flotilla.apiserver.gostrings import go_quote
from flotilla.apiserver.registry.objectbounds import MAX_DEPTH, nesting_depth
from flotilla.apiserver.registry.patch.errors import PatchError

MAX_OPERATIONS = 10_000
"""kube-apiserver's maxJSONPatchOperations."""

MAX_COPY_BYTES = 3 * 1024 * 1024
"""kube-apiserver's JSONPatchMaxCopyBytes: what all `copy` operations of one patch may copy."""

OPERATIONS = ("add", "remove", "replace", "move", "copy", "test")
_MISSING = object()


class TooManyOperations(PatchError):
    """A patch of more operations than MAX_OPERATIONS (kube answers 413)."""


class MalformedPatch(PatchError):
    """A body that is not a list of operation objects (kube answers 400)."""


@dataclass(frozen=True, slots=True)
class Operation:
    """One decoded operation: its name, where it applies (pointer text and parsed tokens), and its
    `from` and `value` when it has them."""

    index: int
    op: str
    path: str
    tokens: tuple[str, ...]
    source: str = ""
    source_tokens: tuple[str, ...] = ()
    value: Any = _MISSING

    def fail(self, reason: str) -> PatchError:
        where = f"JSON patch operation {self.index} ({self.op} {self.path})"
        return PatchError(f"{where} does not apply: {reason}")


def decode_operations(patch: Any) -> list[Operation]:
    """The operations of a decoded JSON patch body, checked for form but not yet applied."""
    if not isinstance(patch, list):
        raise MalformedPatch(
            'a JSON patch must be a list of operations, e.g. [{"op": "replace", "path": "/spec/replicas", '
            '"value": 3}]'
        )
    if len(patch) > MAX_OPERATIONS:
        raise TooManyOperations(
            f"The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {len(patch)}"
        )
    operations = []
    for index, raw in enumerate(patch):
        if not isinstance(raw, dict):
            raise MalformedPatch(f"JSON patch operation {index} is not an object with op, path and value")
        operations.append(_operation(index, raw))
    return operations


def _operation(index: int, raw: dict[str, Any]) -> Operation:
    op = raw.get("op")
    path = raw.get("path")
    shown = f"JSON patch operation {index}"
    if not isinstance(op, str) or op not in OPERATIONS:
        raise PatchError(f"{shown} has op {_quote(op)}; it must be one of {', '.join(OPERATIONS)}")
    if not isinstance(path, str):
        raise PatchError(f'{shown} ({op}) has no "path": give the JSON pointer it applies to')
    source = ""
    source_tokens: tuple[str, ...] = ()
    if op in ("move", "copy"):
        given = raw.get("from")
        if not isinstance(given, str):
            raise PatchError(f'{shown} ({op} {path}) has no "from": give the JSON pointer to {op} from')
        source, source_tokens = given, parse_pointer(given, shown)
    value = raw.get("value", _MISSING)
    if op in ("add", "replace", "test") and value is _MISSING:
        raise PatchError(f'{shown} ({op} {path}) has no "value"')
    return Operation(index, op, path, parse_pointer(path, shown), source, source_tokens, value)


def parse_pointer(pointer: str, shown: str) -> tuple[str, ...]:
    """A JSON Pointer's reference tokens, `~1` and `~0` unescaped ("" is the whole document)."""
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise PatchError(f'{shown}: the JSON pointer {go_quote(pointer)} must be empty or start with "/"')
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/"))


def apply_operations(document: Any, operations: list[Operation]) -> Any:
    """`document` with every operation applied in order (changed in place; the result is returned
    since an operation on the whole document replaces it)."""
    copied = 0
    for operation in operations:
        op = operation.op
        if op == "test":
            _test(document, operation)
        elif op == "remove":
            _remove(document, operation.tokens, operation)
        elif op == "add":
            document = _add(document, operation.tokens, _private(operation.value), operation)
        elif op == "replace":
            _check_depth(operation.tokens, operation.value, operation)
            if not operation.tokens:
                document = _private(operation.value)
            else:
                parent, key = _parent(document, operation.tokens, operation)
                _get(parent, key, operation)  # must exist
                _set(parent, key, _private(operation.value))
        elif op == "move":
            if operation.tokens[: len(operation.source_tokens)] == operation.source_tokens and len(
                operation.tokens
            ) > len(operation.source_tokens):
                raise operation.fail(
                    f"{go_quote(operation.source)} cannot be moved into one of its own children"
                )
            value = _remove(document, operation.source_tokens, operation)
            document = _add(document, operation.tokens, value, operation)
        else:  # copy
            value = _resolve(document, operation.source_tokens, operation)
            encoded = orjson.dumps(value)
            copied += len(encoded)
            if copied > MAX_COPY_BYTES:
                raise operation.fail(
                    f"Unable to complete the copy, the accumulated size increase of copy is {copied}, "
                    f"exceeding the limit {MAX_COPY_BYTES}"
                )
            document = _add(document, operation.tokens, orjson.loads(encoded), operation)
    return document


def _private(value: Any) -> Any:
    """A copy of an operation's value to insert (so the decoded patch stays as it was sent)."""
    if isinstance(value, dict | list):
        return orjson.loads(orjson.dumps(value))
    return value


def _check_depth(tokens: tuple[str, ...], value: Any, operation: Operation) -> None:
    if len(tokens) + nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise operation.fail(
            f"the result would nest objects and lists deeper than {MAX_DEPTH} levels, the most an object "
            "may have"
        )


def _add(document: Any, tokens: tuple[str, ...], value: Any, operation: Operation) -> Any:
    _check_depth(tokens, value, operation)
    if not tokens:
        return value
    parent, key = _parent(document, tokens, operation)
    if isinstance(parent, list):
        if key == "-":
            parent.append(value)
            return document
        index = _index(key, operation)
        if index > len(parent):
            raise operation.fail(f"index {index} is past the end of the list (length {len(parent)})")
        parent.insert(index, value)
    else:
        parent[key] = value
    return document


def _remove(document: Any, tokens: tuple[str, ...], operation: Operation) -> Any:
    if not tokens:
        raise operation.fail("the whole document cannot be removed")
    parent, key = _parent(document, tokens, operation)
    value = _get(parent, key, operation)
    if isinstance(parent, list):
        del parent[_index(key, operation)]
    else:
        del parent[key]
    return value


def _test(document: Any, operation: Operation) -> None:
    if operation.tokens:
        parent, key = _parent(document, operation.tokens, operation)
        found = parent.get(key, None) if isinstance(parent, dict) else _get(parent, key, operation)
    else:
        found = document
    if not json_equal(found, operation.value):
        raise operation.fail("test failed: the value there is not the one given")


def _resolve(document: Any, tokens: tuple[str, ...], operation: Operation) -> Any:
    node = document
    for key in tokens:
        node = _get(node, key, operation)
    return node


def _parent(document: Any, tokens: tuple[str, ...], operation: Operation) -> tuple[Any, str]:
    parent = _resolve(document, tokens[:-1], operation)
    if not isinstance(parent, dict | list):
        raise operation.fail(f"{go_quote(_pointer(tokens[:-1]))} is not an object or a list")
    return parent, tokens[-1]


def _get(node: Any, key: str, operation: Operation) -> Any:
    if isinstance(node, dict):
        found = node.get(key, _MISSING)
        if found is _MISSING:
            raise operation.fail(f"there is no field {go_quote(key)} to {operation.op}")
        return found
    if isinstance(node, list):
        index = _index(key, operation)
        if index >= len(node):
            raise operation.fail(f"index {index} is past the end of the list (length {len(node)})")
        return node[index]
    raise operation.fail(f"{go_quote(key)} is inside a value that is not an object or a list")


def _set(parent: Any, key: str, value: Any) -> None:
    if isinstance(parent, list):
        parent[int(key)] = value
    else:
        parent[key] = value


def _index(key: str, operation: Operation) -> int:
    if not (key.isascii() and key.isdigit()):
        raise operation.fail(
            f'{go_quote(key)} is not a list index (a non-negative integer, or "-" to append)'
        )
    return int(key)


def _pointer(tokens: tuple[str, ...]) -> str:
    return "".join("/" + token.replace("~", "~0").replace("/", "~1") for token in tokens)


def json_equal(left: Any, right: Any) -> bool:
    """Equality of JSON values with JSON's types: 1 is not 1.0, and true is not 1 (Python says both are)."""
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and len(left) == len(right)
            and all(key in right and json_equal(value, right[key]) for key, value in left.items())
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    return type(left) is type(right) and left == right


def _quote(value: Any) -> str:
    return go_quote(value) if isinstance(value, str) else orjson.dumps(value).decode()[:64]
