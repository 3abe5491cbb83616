"""How server-side apply sees each node of an object: a leaf, a map of fields, a set or a keyed list.

structured-merge-diff calls these atoms. Kubernetes derives them from the OpenAPI extensions that
`Schema` nodes carry:

- `LEAF`: scalars and everything atomic — `x-kubernetes-list-type: atomic` (and lists with no list
  type, the default), `x-kubernetes-map-type: atomic` maps and structs (a LabelSelector), untyped
  values. One path owns the whole value; applying it replaces it.
- `FIELDS`: structs and granular maps. Every key is tracked on its own; a declared struct field only
  counts as set through its leaves, while a map key (labels' `app`) is a member itself.
- `SET`: `x-kubernetes-list-type: set`, items named `v:<value>` (finalizers).
- `KEYED_LIST`: `x-kubernetes-list-type: map`, items named `k:{…}` by `x-kubernetes-list-map-keys`
  (containers by name, ports by containerPort and protocol).

Without a schema (`None`) the shape is deduced from the value, as kube does for unknown fields:
objects are granular maps and lists are atomic. The root is always an object whose `apiVersion`,
`kind` and `metadata` are declared fields, and `metadata` always has ObjectMeta's semantics
(labels and annotations granular, finalizers a set, ownerReferences keyed by uid), whatever a custom
resource's schema says about it.

Every write walks objects node by node, so what a schema node implies (its shape, the whole-object
schema of a kind, where lists with named items can occur) is worked out once per node and
remembered, keyed by the node itself: schema nodes do not change once built (see `schema.model`).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator
from typing import Any, Final, NamedTuple

from flotilla.apiserver.registry.apply.fieldpath import Path, describe_path, key_element, value_element
from flotilla.apiserver.registry.schema.model import ANY, NO_DEFAULT, Schema


class Shape(enum.Enum):
    LEAF = "leaf"
    FIELDS = "fields"
    SET = "set"
    KEYED_LIST = "keyed list"

    # Members are singletons compared by identity; hashing them the same way, in C, keeps every
    # `shape in LISTS` of a walk off Enum's Python-level hash.
    __hash__ = object.__hash__


LISTS: Final = frozenset({Shape.SET, Shape.KEYED_LIST})
_JSON_TYPES: Final = (dict, list, str, int, float, bool)
_SCHEMA_NODES: Final = 4096
"""How many schema nodes keep facts derived from them (kinds and CRD versions, a few nodes each)."""


class InvalidObjectError(ValueError):
    """An object the field sets cannot describe: a keyed list item without its keys, a duplicate key."""


_STRING = Schema(types=frozenset({"string"}))
_STRING_MAP = Schema(types=frozenset({"object"}), additional_properties=_STRING)
_OWNER_REFERENCE = Schema(
    types=frozenset({"object"}),
    map_type="atomic",
    properties={
        name: Schema(types=frozenset({kind}))
        for name, kind in (
            ("apiVersion", "string"),
            ("kind", "string"),
            ("name", "string"),
            ("uid", "string"),
            ("controller", "boolean"),
            ("blockOwnerDeletion", "boolean"),
        )
    },
)
OBJECT_META: Final = Schema(
    types=frozenset({"object"}),
    properties={
        **{
            name: Schema(types=frozenset({kind}))
            for name, kind in (
                ("name", "string"),
                ("generateName", "string"),
                ("namespace", "string"),
                ("selfLink", "string"),
                ("uid", "string"),
                ("resourceVersion", "string"),
                ("generation", "integer"),
                ("creationTimestamp", "string"),
                ("deletionTimestamp", "string"),
                ("deletionGracePeriodSeconds", "integer"),
            )
        },
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "finalizers": Schema(types=frozenset({"array"}), items=_STRING, list_type="set"),
        "ownerReferences": Schema(
            types=frozenset({"array"}), items=_OWNER_REFERENCE, list_type="map", list_map_keys=("uid",)
        ),
        "managedFields": Schema(types=frozenset({"array"}), items=ANY, list_type="atomic"),
    },
)
"""ObjectMeta as server-side apply treats it (the fields kube's ObjectMeta declares)."""

_KEY_DEFAULTS: Final = {
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.ServicePort", "protocol"): "TCP",
    ("io.k8s.api.core.v1.EndpointPort", "protocol"): "TCP",
    ("io.k8s.api.discovery.v1.EndpointPort", "protocol"): "TCP",
}
"""List-map keys with a default that kube's OpenAPI declares but the bundled schemas leave out.

kube names a port without a protocol `k:{"containerPort":80,"protocol":"TCP"}`; without the default
the item would have no name at all.
"""


@functools.lru_cache(maxsize=_SCHEMA_NODES)
def object_schema(kind_schema: Schema | None) -> Schema:
    """The schema of a whole object: the kind's, with `apiVersion`, `kind` and ObjectMeta declared."""
    properties = dict(kind_schema.properties) if kind_schema is not None else {}
    properties.update(apiVersion=_STRING, kind=_STRING, metadata=OBJECT_META)
    if kind_schema is None:
        return Schema(types=frozenset({"object"}), properties=properties, any_properties=True)
    return Schema(
        types=frozenset({"object"}),
        properties=properties,
        additional_properties=kind_schema.additional_properties,
        any_properties=kind_schema.any_properties or kind_schema.preserve_unknown_fields,
    )


@functools.lru_cache(maxsize=_SCHEMA_NODES)
def _natural_shape(schema: Schema) -> Shape:
    """The shape the schema gives its values, before looking at a value."""
    if schema.properties or schema.additional_properties is not None or schema.any_properties:
        return Shape.LEAF if schema.map_type == "atomic" else Shape.FIELDS
    if schema.items is not None:
        if schema.list_type == "set":
            return Shape.SET
        if schema.list_type == "map" and schema.list_map_keys:
            return Shape.KEYED_LIST
    return Shape.LEAF


class ItemNaming(NamedTuple):
    """Where, under one schema node, the items of sets and keyed lists are (see `item_naming`)."""

    shape: Shape
    """The node's natural shape."""
    fields: tuple[tuple[str, Schema], ...] | None
    """For a struct, its declared fields that hold such lists; None when its map values may."""
    items: Schema | None
    """For a set or keyed list, its items' schema when they may hold such lists themselves."""


@functools.lru_cache(maxsize=_SCHEMA_NODES)
def item_naming(schema: Schema) -> ItemNaming | None:
    """None when no value under `schema` can hold a set or keyed list, whose items need names.

    Lets a walk that only checks that items can be named skip most of an object.
    """
    if not _names_items_below(schema):
        return None
    shape = _natural_shape(schema)
    if shape in LISTS:
        items = schema.items
        return ItemNaming(shape, None, items if items is not None and _names_items_below(items) else None)
    values = schema.additional_properties
    if values is not None and _names_items_below(values):
        return ItemNaming(shape, None, None)
    holding = tuple((name, child) for name, child in schema.properties.items() if _names_items_below(child))
    return ItemNaming(shape, holding, None)


@functools.lru_cache(maxsize=_SCHEMA_NODES)
def _names_items_below(schema: Schema) -> bool:
    seen: set[Schema] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if node in seen:
            continue  # schemas may be recursive (JSONSchemaProps)
        seen.add(node)
        shape = _natural_shape(node)
        if shape in LISTS:
            return True
        if shape is Shape.FIELDS:
            pending.extend(node.properties.values())
            if node.additional_properties is not None:
                pending.append(node.additional_properties)
    return False


def shape_of(schema: Schema | None, value: Any) -> Shape:
    """The shape of `value` under `schema`; a value of the wrong JSON type is a leaf."""
    if schema is None:
        return Shape.FIELDS if isinstance(value, dict) else Shape.LEAF
    natural = _natural_shape(schema)
    if value is None:
        return natural
    if isinstance(value, dict):
        return natural if natural is Shape.FIELDS else Shape.LEAF
    if isinstance(value, list):
        return natural if natural in LISTS else Shape.LEAF
    return Shape.LEAF


def common_shape(schema: Schema | None, *values: Any) -> Shape:
    """The shape under which several versions of one node (live, applied) can be walked together.

    `values` may contain `None` (null) and non-JSON sentinels for absent values; those take any shape.
    When the present values disagree (an object here, a list there) the node is a leaf.
    """
    sample = None
    for value in values:
        if isinstance(value, (dict, list)):
            sample = value
            break
    shape = shape_of(schema, sample)
    if shape is Shape.LEAF:
        return shape
    container = dict if shape is Shape.FIELDS else list
    for value in values:
        if isinstance(value, _JSON_TYPES) and not isinstance(value, container):
            return Shape.LEAF
    return shape


def field_schema(schema: Schema | None, name: str) -> tuple[Schema | None, bool]:
    """The schema of field `name` and whether it is a declared struct field (not a map key)."""
    if schema is None:
        return None, False
    declared = schema.properties.get(name)
    if declared is not None:
        return declared, True
    if schema.additional_properties is not None:
        return schema.additional_properties, False
    return None, False


def item_schema(schema: Schema | None) -> Schema | None:
    return schema.items if schema is not None else None


def list_items(
    schema: Schema | None, shape: Shape, items: list[Any], path: Path, *, unique: bool = False
) -> Iterator[tuple[str, Any]]:
    """Each item of a set or keyed list with its path element.

    Raises `InvalidObjectError` for an item that cannot be named, and with `unique` (an applied
    configuration) for two items with the same name.
    """
    seen: set[str] = set()
    for position, item in enumerate(items):
        try:
            element = _set_element(item) if shape is Shape.SET else _keyed_element(schema, item)
        except InvalidObjectError as error:
            raise InvalidObjectError(f"{describe_path(path)}: element {position}: {error}") from None
        if unique and element in seen:
            raise InvalidObjectError(f"{describe_path(path)}: duplicate entries for key {element[2:]}")
        seen.add(element)
        yield element, item


def _set_element(item: Any) -> str:
    if isinstance(item, dict):
        raise InvalidObjectError("associative list without keys has an element that's a map type")
    if isinstance(item, list):
        raise InvalidObjectError("not supported: associative list with lists as elements")
    if item is None:
        raise InvalidObjectError("associative list without keys has an element that's an explicit null")
    return value_element(item)


def nameable(schema: Schema | None, shape: Shape, item: Any) -> bool:
    """Whether `list_items` can name `item` of a set or keyed list, without naming it."""
    if shape is Shape.SET:
        return item is not None and not isinstance(item, (dict, list))
    if not isinstance(item, dict):
        return False
    assert schema is not None  # a keyed list always has a schema
    for name in schema.list_map_keys:
        if name not in item and _key_default(schema.items, name) is NO_DEFAULT:
            return False
    return True


def nameable_throughout(value: Any, schema: Schema | None) -> bool:
    """Whether every item of every set and keyed list inside `value` has a name (see `list_items`).

    Walks only where the schema allows such lists, so it settles most of an object at once: a
    walk that finds True may treat `value` as one piece without naming its items.
    """
    naming = item_naming(schema) if schema is not None and value else None
    if naming is None:
        return True
    shape = naming.shape
    if shape is Shape.FIELDS:
        if not isinstance(value, dict):
            return True
        guide: Iterable[tuple[str, Schema | None]] | None = naming.fields
        if guide is None:
            guide = [(name, field_schema(schema, name)[0]) for name in value]
        for name, child_schema in guide:
            child = value.get(name)
            if isinstance(child, (dict, list)) and not nameable_throughout(child, child_schema):
                return False
    elif shape in LISTS and isinstance(value, list):
        items = naming.items
        for item in value:
            if not nameable(schema, shape, item):
                return False
            if items is not None and not nameable_throughout(item, items):
                return False
    return True


def _keyed_element(schema: Schema | None, item: Any) -> str:
    if item is None:
        raise InvalidObjectError("associative list with keys may not have a null element")
    if not isinstance(item, dict):
        raise InvalidObjectError("associative list with keys may not have non-map elements")
    assert schema is not None  # a keyed list always has a schema
    keys: dict[str, Any] = {}
    for name in schema.list_map_keys:
        if name in item:
            keys[name] = item[name]
            continue
        default = _key_default(schema.items, name)
        if default is NO_DEFAULT:
            raise InvalidObjectError(
                f'associative list with keys has an element that omits key field "{name}" '
                "(and doesn't have default value)"
            )
        keys[name] = default
    return key_element(keys)


def _key_default(items: Schema | None, name: str) -> Any:
    if items is None:
        return NO_DEFAULT
    declared = items.properties.get(name)
    if declared is not None and declared.default is not NO_DEFAULT:
        return declared.default
    return _KEY_DEFAULTS.get((items.ref or "", name), NO_DEFAULT)
