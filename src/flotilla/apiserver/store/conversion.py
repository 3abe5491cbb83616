"""Objects at the version a request asked for: conversion on the way out of storage and back in.

Every version of a custom resource shares one storage location, and each object is stored at the
version it was last written at (the CRD's storage version at the time). kube-apiserver converts
at the storage boundary; here the read paths (GET, LIST, WATCH, the objects a write answers with)
call `at_version` / `all_at_version`, and the write pipeline calls `for_storage` before it stores.
After a conversion the object is pruned to the target version's schema, as kube's schema coercion
prunes a converted custom resource, so a field only one version knows never leaks into another.

Built-in kinds and CRDs whose objects can only be at one version carry no conversion, so the common
path costs one attribute check; an object already at the version asked for is returned as it is
(its cached JSON shared, never re-encoded). Converting decodes, converts and prunes each object, so
a list or a batch of watch events of more than `CONVERT_ON_LOOP` objects of a converting kind is
converted in a worker thread (`all_at_version_bounded`), never holding the event loop for long.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from typing import Any

from flotilla.apiserver import errors
from flotilla.apiserver.registry.conversion.converters import Conversion, ConversionError
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema
from flotilla.apiserver.registry.schema.walk import WalkOptions, walk_object
from flotilla.apiserver.store.cachedobjects import CachedObject
from flotilla.apiserver.store.watchers import Predicate

_PRUNE = WalkOptions(apply_defaults=False, check_values=False, drop_nulls=False)


@functools.cache
def _metadata_schema() -> Schema:
    return builtin_schemas().definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")


def conversion_of(served: ServedResource) -> Conversion | None:
    """How objects of `served` stored at another version reach it (None: they never need to)."""
    return served.custom.conversion if served.custom is not None else None


def _converted(
    served: ServedResource,
    conversion: Conversion,
    obj: dict[str, Any],
    api_version: str,
    schema: Schema | None,
) -> dict[str, Any]:
    """`obj` (handed over) at `api_version`, pruned to that version's `schema` (if any)."""
    try:
        converted = conversion.convert(obj, api_version)
    except ConversionError as exc:
        raise errors.InternalError(
            f"conversion of {served.type.kind} to {api_version} failed: {exc}", kind=served.type.plural
        ) from exc
    if schema is not None:
        walk_object(converted, schema, _metadata_schema(), _PRUNE)
    return converted


def at_version(served: ServedResource, item: CachedObject) -> CachedObject:
    """`item` at the version `served` stands for: itself when it is stored at it, else converted."""
    conversion = conversion_of(served)
    if conversion is None:
        return item
    api_version = served.type.api_version
    if item.obj.get("apiVersion") == api_version:
        return item
    converted = _converted(served, conversion, item.copy(), api_version, served.schema)
    return CachedObject(item.key, item.namespace, item.name, item.revision, converted, item.created)


def all_at_version(served: ServedResource, items: Sequence[CachedObject]) -> Sequence[CachedObject]:
    """Every item at `served`'s version (the very sequence when no item needs converting)."""
    if conversion_of(served) is None:
        return items
    return [at_version(served, item) for item in items]


CONVERT_ON_LOOP = 32
"""Objects of a converting kind converted on the event loop at most; more go to a worker thread."""


async def all_at_version_bounded(
    served: ServedResource, items: Sequence[CachedObject]
) -> Sequence[CachedObject]:
    """`all_at_version`, in a worker thread when there are many items to look at (the cached objects
    are only read, and every converted one is a private copy)."""
    if conversion_of(served) is None or len(items) <= CONVERT_ON_LOOP:
        return all_at_version(served, items)
    return await asyncio.to_thread(all_at_version, served, items)


def for_storage(served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` (handed over: a write's object at `served`'s version) at the version it is stored at."""
    conversion = conversion_of(served)
    if conversion is None or obj.get("apiVersion") == conversion.storage_api_version:
        return obj
    return _converted(served, conversion, obj, conversion.storage_api_version, conversion.storage_schema)


def matching_at_version(served: ServedResource, predicate: Predicate | None) -> Predicate | None:
    """`predicate` judging each object at `served`'s version, where a conversion could change what
    its field selectors read (selectable fields beyond the metadata every version shares)."""
    if predicate is None or conversion_of(served) is None or served.custom is None:
        return predicate
    if not served.custom.selectable_fields:
        return predicate
    check = predicate

    def matches(item: CachedObject) -> bool:
        return check(at_version(served, item))

    return matches
