"""Field paths and sets of them, and their `FieldsV1` form in `metadata.managedFields`.

A path is a tuple of path elements, each written the way FieldsV1 writes it:

- `f:<name>` a struct field or map key (`f:spec`, `f:app` under labels);
- `k:<json>` a list item named by its key fields, keys sorted (`k:{"containerPort":80,"protocol":"TCP"}`);
- `v:<json>` an item of a set-type list, by value (`v:"example.com/a"`);
- `i:<n>` an item by position (only atomic lists have them, and nothing owns inside those).

A `FieldSet` is a trie of such elements. Each node holds the elements that end a member path there
(`members`) and the sub-tries of elements that lead further (`children`); a node can be both, which
FieldsV1 writes as `".": {}` beside the children. Elements are kept in their canonical text, so two
spellings of one key compare equal; sorting (for output and messages) follows structured-merge-diff's
order: fields, then keys, values and indexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

import orjson

from flotilla.apiserver.apply.jsonvalues import describe_value, go_json, value_order

Path = tuple[str, ...]
"""A field path: the FieldsV1 text of each element from the root."""

SELF: Final = "."
"""The FieldsV1 key that marks a node which is itself a member of the set."""

_INDEX = re.compile(r"[+-]?[0-9]+\Z")


class FieldsV1Error(ValueError):
    """A `fieldsV1` document that is not a well-formed field set."""


# ---- path elements -----------------------------------------------------------------------------


def field_element(name: str) -> str:
    return "f:" + name


def key_element(keys: Mapping[str, Any]) -> str:
    return "k:" + go_json(dict(keys))


def value_element(value: Any) -> str:
    return "v:" + go_json(value)


def index_element(index: int) -> str:
    return f"i:{index}"


def field_name(element: str) -> str | None:
    """The field name of an `f:` element; None for list item elements."""
    return element[2:] if element.startswith("f:") else None


def canonical_element(text: str) -> str | None:
    """`text` rewritten in canonical form; None for element types this version does not know.

    Raises `FieldsV1Error` for a malformed element, with structured-merge-diff's wording.
    """
    if len(text) < 2:
        raise FieldsV1Error(f"key must be 2 characters long: {text}")
    if text[1] != ":":
        raise FieldsV1Error(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return text
    if kind == "i":
        if not _INDEX.match(body):
            raise FieldsV1Error(f"invalid index in {text!r}")
        return index_element(int(body))
    if kind not in ("k", "v"):
        return None  # a newer element type: kube drops what it does not understand
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise FieldsV1Error(f"invalid JSON in {text!r}: {error}") from error
    if kind == "v":
        return value_element(decoded)
    if not isinstance(decoded, dict):
        raise FieldsV1Error(f"the key of {text!r} must be a JSON object")
    return key_element(decoded)


def element_order(element: str) -> tuple[Any, ...]:
    """A sort key putting elements in structured-merge-diff's order."""
    kind, body = element[0], element[2:]
    if kind == "f":
        return (0, body)
    if kind == "k":
        keys = orjson.loads(body)
        return (1, tuple((name, value_order(keys[name])) for name in sorted(keys)))
    if kind == "v":
        return (2, value_order(orjson.loads(body)))
    return (3, int(body))


def describe_element(element: str) -> str:
    """An element as Kubernetes prints it: `.image`, `[name="nginx"]`, `[="example.com/a"]`, `[0]`."""
    kind, body = element[0], element[2:]
    if kind == "f":
        return "." + body
    if kind == "k":
        keys = orjson.loads(body)
        return "[" + ",".join(f"{name}={describe_value(keys[name])}" for name in sorted(keys)) + "]"
    if kind == "v":
        return f"[={describe_value(orjson.loads(body))}]"
    return f"[{body}]"


def describe_path(path: Path) -> str:
    """A path as conflict messages print it: `.spec.template.spec.containers[name="nginx"].image`."""
    return "".join(describe_element(element) for element in path)


def _sorted(elements: Iterable[str]) -> list[str]:
    return sorted(elements, key=element_order)


# ---- sets --------------------------------------------------------------------------------------


class FieldSet:
    """A set of field paths stored as a trie; the set operations return new, unshared sets.

    `insert` mutates and is meant for building a set; everything else leaves its operands alone.
    """

    __slots__ = ("_children", "_members")

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self._members: set[str] = set()
        self._children: dict[str, FieldSet] = {}
        for path in paths:
            self.insert(path)

    # -- building and reading

    def insert(self, path: Path) -> None:
        """Add `path` (its parents are not added). The empty path, the whole object, is never tracked."""
        if not path:
            return
        node = self
        for element in path[:-1]:
            child = node._children.get(element)
            if child is None:
                child = node._children[element] = FieldSet()
            node = child
        node._members.add(path[-1])

    @property
    def members(self) -> frozenset[str]:
        """The elements that end a member path at this node."""
        return frozenset(self._members)

    @property
    def children(self) -> Mapping[str, FieldSet]:
        """The sub-sets below each element that has member paths under it."""
        return self._children

    def child(self, element: str) -> FieldSet:
        """The paths below `element`, without it (empty when there are none)."""
        found = self._children.get(element)
        return found.copy() if found is not None else FieldSet()

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, tuple) or not path:
            return False
        node: FieldSet | None = self
        for element in path[:-1]:
            assert node is not None
            node = node._children.get(element)
            if node is None:
                return False
        assert node is not None
        return path[-1] in node._members

    def __iter__(self) -> Iterator[Path]:
        """Member paths in kube's order: a node's members first, then each child's, sorted."""
        return self._iterate(())

    def _iterate(self, prefix: Path) -> Iterator[Path]:
        for element in _sorted(self._members):
            yield (*prefix, element)
        for element in _sorted(self._children):
            yield from self._children[element]._iterate((*prefix, element))

    def __len__(self) -> int:
        return len(self._members) + sum(len(child) for child in self._children.values())

    def __bool__(self) -> bool:
        return bool(self._members) or any(self._children.values())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self._members == other._members and self._children == other._children

    __hash__ = None  # type: ignore[assignment]  # mutable while being built

    def __repr__(self) -> str:
        return f"FieldSet({[describe_path(path) for path in self]})"

    def copy(self) -> FieldSet:
        clone = FieldSet()
        clone._members = set(self._members)
        clone._children = {element: child.copy() for element, child in self._children.items()}
        return clone

    # -- set algebra (structured-merge-diff's semantics)

    def union(self, other: FieldSet) -> FieldSet:
        result = FieldSet()
        result._members = self._members | other._members
        for element in self._children.keys() | other._children.keys():
            mine, theirs = self._children.get(element), other._children.get(element)
            if mine is not None and theirs is not None:
                result._children[element] = mine.union(theirs)
            else:
                result._children[element] = (mine or theirs or FieldSet()).copy()
        return result

    def intersection(self, other: FieldSet) -> FieldSet:
        result = FieldSet()
        result._members = self._members & other._members
        for element, mine in self._children.items():
            theirs = other._children.get(element)
            if theirs is not None:
                result._adopt(element, mine.intersection(theirs))
        return result

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths of `self` not in `other`; removing a parent keeps its children (kube's `Difference`)."""
        result = FieldSet()
        result._members = self._members - other._members
        for element, mine in self._children.items():
            theirs = other._children.get(element)
            result._adopt(element, mine.difference(theirs) if theirs is not None else mine.copy())
        return result

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Paths of `self` not in `other`, where a member of `other` also removes everything below it."""
        result = FieldSet()
        result._members = self._members - other._members
        for element, mine in self._children.items():
            if element in other._members:
                continue
            theirs = other._children.get(element)
            result._adopt(element, mine.recursive_difference(theirs) if theirs is not None else mine.copy())
        return result

    def leaves(self) -> FieldSet:
        """Only the members that have no member paths below them."""
        result = FieldSet()
        result._members = self._members - self._children.keys()
        for element, child in self._children.items():
            result._adopt(element, child.leaves())
        return result

    def _adopt(self, element: str, child: FieldSet) -> None:
        if child:
            self._children[element] = child

    __or__ = union
    __and__ = intersection
    __sub__ = difference

    # -- FieldsV1

    def to_fields_v1(self) -> dict[str, Any]:
        """The FieldsV1 trie, in kube's element order with `"."` last."""
        out: dict[str, Any] = {}
        for element in _sorted(self._members | self._children.keys()):
            child = self._children.get(element)
            if child is None:
                out[element] = {}
                continue
            encoded = child.to_fields_v1()
            if element in self._members:
                encoded[SELF] = {}
            out[element] = encoded
        return out

    @classmethod
    def from_fields_v1(cls, document: Any) -> FieldSet:
        """Parse a FieldsV1 trie; raises `FieldsV1Error` when it is malformed."""
        if not isinstance(document, dict):
            raise FieldsV1Error("fieldsV1 must be a JSON object")
        result, _ = _read_node(document)
        return result


def _read_node(document: dict[str, Any]) -> tuple[FieldSet, bool]:
    """The set below one FieldsV1 node and whether the node is itself a member."""
    node = FieldSet()
    is_member = False
    for text, value in document.items():
        if text == SELF:
            is_member = True
            continue
        element = canonical_element(text)
        if element is None:
            continue
        if not isinstance(value, dict):
            raise FieldsV1Error(f"the value of {text!r} must be a JSON object")
        below, child_is_member = _read_node(value)
        if child_is_member:
            node._members.add(element)
        if below:
            existing = node._children.get(element)
            node._children[element] = existing.union(below) if existing is not None else below
    return node, is_member or not node
