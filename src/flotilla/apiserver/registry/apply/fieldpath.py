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

Every write parses and rewrites these tries, so they are built for sharing: a node never changes
once built (`insert` copies the nodes on its path), set operations reuse the sub-tries they leave
alone instead of copying them, and parsing FieldsV1 is memoised on the document's JSON bytes — the
live object's managedFields come back unchanged on almost every write, and a parsed trie can be
handed out again because nobody can change it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Final

import orjson

from flotilla.apiserver.registry.apply.jsonvalues import describe_value, go_json, value_order

Path = tuple[str, ...]
"""A field path: the FieldsV1 text of each element from the root."""

SELF: Final = "."
"""The FieldsV1 key that marks a node which is itself a member of the set."""

_INDEX = re.compile(r"[+-]?[0-9]+\Z")
_PARSED_DOCUMENTS: Final = 4096
"""How many distinct FieldsV1 documents stay parsed: more than the entries of the objects a busy
server rewrites again and again (node Leases, controller status entries), few enough to stay small."""
_CANONICAL_ELEMENTS: Final = 16384
_SCALAR_KEYS: Final = frozenset({str, int})
"""Key value types remembered by value: never `bool`, which Python finds equal to `1`."""


class FieldsV1Error(ValueError):
    """A `fieldsV1` document that is not a well-formed field set."""


# ---- path elements -----------------------------------------------------------------------------


def field_element(name: str) -> str:
    return "f:" + name


def key_element(keys: Mapping[str, Any]) -> str:
    if len(keys) == 1:  # most lists have one key (a name); their elements are remembered
        ((name, value),) = keys.items()
        if type(value) in _SCALAR_KEYS:
            return _one_key_element(name, value)
    return "k:{" + ",".join([f"{go_json(str(name))}:{go_json(keys[name])}" for name in sorted(keys)]) + "}"


@functools.lru_cache(maxsize=_CANONICAL_ELEMENTS)
def _one_key_element(name: str, value: str | int) -> str:
    return "k:{" + f"{go_json(str(name))}:{go_json(value)}" + "}"


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
    if text[0] == "f":
        return text
    return _canonical_item_element(text)


@functools.lru_cache(maxsize=_CANONICAL_ELEMENTS)
def _canonical_item_element(text: str) -> str | None:
    """`canonical_element` for item elements, whose JSON must be decoded and written again."""
    kind, body = text[0], text[2:]
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


@functools.lru_cache(maxsize=_CANONICAL_ELEMENTS)
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
    ordered = sorted(elements)
    # Plain text order sorts `f:` elements as structured-merge-diff does; item elements need their
    # decoded values (80 before 443), and they sort after every field, so the last element tells.
    if ordered and ordered[-1][0] != "f":
        ordered.sort(key=element_order)
    return ordered


# ---- sets --------------------------------------------------------------------------------------


_NO_MEMBERS: Final[frozenset[str]] = frozenset()
_NO_CHILDREN: Final[dict[str, Any]] = {}
"""Shared by every node without children (most of them): node parts are never changed in place."""
_new_node: Final = object.__new__


class FieldSet:
    """A set of field paths stored as a trie; the set operations return new sets.

    Sets behave as values: no operation changes its operands, and `insert` (meant for building a
    set) changes only the set it is called on, although sets share their nodes.
    """

    __slots__ = ("_children", "_fields_v1", "_members")

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self._members: frozenset[str] = _NO_MEMBERS
        self._children: dict[str, FieldSet] = _NO_CHILDREN
        self._fields_v1: bytes | None = None
        """The JSON of `to_fields_v1()`, when known (a set parsed from its canonical form)."""
        if paths:  # an empty tuple or list builds nothing (a generator is always truthy)
            if isinstance(paths, (list, tuple)) and len(paths) == 1:
                self._members, self._children = _single_path(paths[0])  # what a small change finds
                return
            draft = _Draft()
            for path in paths:
                draft.add(path)
            built = draft.build()
            self._members, self._children = built._members, built._children

    @classmethod
    def _node(cls, members: frozenset[str], children: dict[str, FieldSet]) -> FieldSet:
        """A node over these parts, which it now shares (callers pass no empty child).

        Parts are never changed once a node has them, so nodes may share them too.
        """
        node = _new_node(cls)
        node._members = members
        node._children = children or _NO_CHILDREN
        node._fields_v1 = None
        return node

    @classmethod
    def from_parts(cls, members: Iterable[str], children: Mapping[str, FieldSet]) -> FieldSet:
        """The set whose root has `members` and, below each element, the paths of `children`.

        The child sets, which must not be empty, are shared rather than copied.
        """
        return cls._node(frozenset(members), dict(children) if children else _NO_CHILDREN)

    # -- building and reading

    def insert(self, path: Path) -> None:
        """Add `path` (its parents are not added). The empty path, the whole object, is never tracked."""
        if path:
            updated = self._with(path)
            self._members, self._children, self._fields_v1 = updated._members, updated._children, None

    def _with(self, path: Path) -> FieldSet:
        """This set plus `path`, sharing every node off the path."""
        head = path[0]
        if len(path) == 1:
            if head in self._members:
                return self
            return FieldSet._node(self._members | {head}, self._children)
        below = self._children.get(head) or FieldSet()
        return FieldSet._node(self._members, {**self._children, head: below._with(path[1:])})

    @property
    def members(self) -> frozenset[str]:
        """The elements that end a member path at this node."""
        return self._members

    @property
    def children(self) -> Mapping[str, FieldSet]:
        """The sub-sets below each element that has member paths under it, as sets of their own."""
        return MappingProxyType({element: child.copy() for element, child in self._children.items()})

    def child(self, element: str) -> FieldSet:
        """The paths below `element`, without it (empty when there are none)."""
        found = self._children.get(element)
        return found.copy() if found is not None else FieldSet()

    def shared_child(self, element: str) -> FieldSet | None:
        """`child`, for reading only: the node itself, not a copy (never `insert` into it); None
        when there are no paths below `element`."""
        return self._children.get(element)

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
        return bool(self._members) or bool(self._children)  # no node keeps an empty child

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSet):
            return NotImplemented
        return self is other or (self._members == other._members and self._children == other._children)

    __hash__ = None  # type: ignore[assignment]  # `insert` changes a set in place

    def __repr__(self) -> str:
        return f"FieldSet({[describe_path(path) for path in self]})"

    def copy(self) -> FieldSet:
        """An equal set; `insert` on either leaves the other alone (they share their nodes)."""
        clone = FieldSet._node(self._members, self._children)
        clone._fields_v1 = self._fields_v1
        return clone

    # -- set algebra (structured-merge-diff's semantics)
    #
    # Each public operation returns a new root (so `insert` on it leaves the operands alone); the
    # private ones return an operand itself when the result equals it, so unchanged sub-tries stay
    # shared and a set that comes out of a chain of operations unchanged keeps its known FieldsV1.

    def union(self, other: FieldSet) -> FieldSet:
        result = self._union(other)
        return result.copy() if result is self or result is other else result

    def intersection(self, other: FieldSet) -> FieldSet:
        result = self._intersection(other)
        return result.copy() if result is self or result is other else result

    def difference(self, other: FieldSet) -> FieldSet:
        """Paths of `self` not in `other`; removing a parent keeps its children (kube's `Difference`)."""
        result = self._difference(other, False)
        return result.copy() if result is self else result

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Paths of `self` not in `other`, where a member of `other` also removes everything below it."""
        result = self._difference(other, True)
        return result.copy() if result is self else result

    def leaves(self) -> FieldSet:
        """Only the members that have no member paths below them."""
        children = {element: child.leaves() for element, child in self._children.items()}
        return FieldSet._node(
            self._members - self._children.keys(),
            {element: child for element, child in children.items() if child},
        )

    def issubset(self, other: FieldSet) -> bool:
        """Whether every path of `self` is in `other`."""
        if self is other:
            return True
        if not self._members <= other._members:
            return False
        for element, mine in self._children.items():
            theirs = other._children.get(element)
            if theirs is None or not (mine is theirs or mine.issubset(theirs)):
                return False
        return True

    __or__ = union
    __and__ = intersection
    __sub__ = difference

    def _union(self, other: FieldSet) -> FieldSet:
        if not self._members and not self._children:
            return other
        members = self._members | other._members if other._members else self._members
        children: dict[str, FieldSet] | None = None
        for element, theirs in other._children.items():
            mine = self._children.get(element)
            merged = theirs if mine is None else mine if mine is theirs else mine._union(theirs)
            if merged is not mine:
                if children is None:
                    children = dict(self._children)
                children[element] = merged
        if children is None:
            if len(members) == len(self._members):
                return self
            children = self._children
        return FieldSet._node(members, children)

    def _intersection(self, other: FieldSet) -> FieldSet:
        members = self._members & other._members
        children: dict[str, FieldSet] = {}
        for element, mine in self._children.items():
            theirs = other._children.get(element)
            if theirs is not None:
                common = mine if mine is theirs else mine._intersection(theirs)
                if common:
                    children[element] = common
        return FieldSet._node(members, children)

    def _difference(self, other: FieldSet, recursive: bool) -> FieldSet:
        if not (self._members or self._children) or not (other._members or other._children):
            return self
        members = self._members - other._members if other._members else self._members
        children: dict[str, FieldSet] | None = None
        if recursive and other._members and self._children:
            for element in other._members:
                if element in self._children:
                    if children is None:
                        children = dict(self._children)
                    del children[element]  # a member of `other` takes its whole subtree
        for element, theirs in other._children.items():
            mine = self._children.get(element)
            if mine is None or (recursive and element in other._members):
                continue
            remaining = _EMPTY if mine is theirs else mine._difference(theirs, recursive)
            if remaining is mine:
                continue
            if children is None:
                children = dict(self._children)
            if remaining:
                children[element] = remaining
            else:
                del children[element]
        if children is None:
            if len(members) == len(self._members):
                return self
            children = self._children
        return FieldSet._node(members, children)

    # -- FieldsV1

    def to_fields_v1(self) -> dict[str, Any]:
        """The FieldsV1 trie, in kube's element order with `"."` last."""
        if self._fields_v1 is not None:
            known: dict[str, Any] = orjson.loads(self._fields_v1)
            return known
        members, children = self._members, self._children
        if not children:
            return {element: {} for element in _sorted(members)}
        out: dict[str, Any] = {}
        for element in _sorted(members | children.keys()):
            child = children.get(element)
            if child is None:
                out[element] = {}
                continue
            encoded = child.to_fields_v1()
            if element in members:
                encoded[SELF] = {}
            out[element] = encoded
        return out

    @classmethod
    def from_fields_v1(cls, document: Any) -> FieldSet:
        """Parse a FieldsV1 trie; raises `FieldsV1Error` when it is malformed."""
        if not isinstance(document, dict):
            raise FieldsV1Error("fieldsV1 must be a JSON object")
        try:
            encoded = orjson.dumps(document)
        except TypeError:  # not plain JSON (a key that is no string): parse it as it is
            return _read_node(document)[0]
        return _parse_encoded(encoded).copy()


_EMPTY: Final = FieldSet()
"""The empty set, for internal results only: public operations return their own roots."""


@functools.lru_cache(maxsize=_PARSED_DOCUMENTS)
def _parse_encoded(encoded: bytes) -> FieldSet:
    """The set of a FieldsV1 document given as its JSON bytes (errors are raised, not remembered).

    When the document is already in canonical form, as the documents this server writes are, the
    set remembers it: writing the set out again unchanged is then one JSON decode.
    """
    result, _ = _read_node(orjson.loads(encoded))
    if orjson.dumps(result.to_fields_v1()) == encoded:
        result._fields_v1 = encoded
    return result


def _read_node(document: dict[str, Any]) -> tuple[FieldSet, bool]:
    """The set below one FieldsV1 node and whether the node is itself a member."""
    members: set[str] = set()
    children: dict[str, FieldSet] = {}
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
        if not value:
            members.add(element)
            continue
        below, child_is_member = _read_node(value)
        if child_is_member:
            members.add(element)
        if below:
            existing = children.get(element)
            children[element] = existing.union(below) if existing is not None else below
    node = FieldSet._node(frozenset(members), children)
    return node, is_member or not node


def _single_path(path: Path) -> tuple[frozenset[str], dict[str, FieldSet]]:
    """The parts of the root of a set of one path."""
    if not path:
        return _NO_MEMBERS, {}
    members: frozenset[str] = frozenset((path[-1],))
    children: dict[str, FieldSet] = {}
    for element in reversed(path[:-1]):
        members, children = _NO_MEMBERS, {element: FieldSet._node(members, children)}
    return members, children


class _Draft:
    """A trie being built from paths, before it becomes (immutable) `FieldSet` nodes."""

    __slots__ = ("children", "members")

    def __init__(self) -> None:
        self.members: set[str] = set()
        self.children: dict[str, _Draft] = {}

    def add(self, path: Path) -> None:
        if not path:
            return
        node = self
        for element in path[:-1]:
            child = node.children.get(element)
            if child is None:
                child = node.children[element] = _Draft()
            node = child
        node.members.add(path[-1])

    def build(self) -> FieldSet:
        children = self.children
        return FieldSet._node(
            frozenset(self.members),
            {element: child.build() for element, child in children.items()} if children else {},
        )
