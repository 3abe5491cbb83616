"""Objects in and out of storage: keys, encoding, guarded writes, storage errors → API errors.

Objects are stored as compact JSON without `metadata.resourceVersion` (the store's mod revision is
the resourceVersion, stamped back on when the watch cache decodes them), passed through the cache's
storage transformer when it covers their key (Secrets and Works are encrypted at rest). After a
write the caller gets the object as written, and the cache has applied it, so the client reads its
own write.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver import errors
from flotilla.apiserver.registry.objectbounds import encode_for_storage
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.watchcache import CachedObject, WatchCache, decode, split_key
from flotilla.storage import (
    Backend,
    CompactedError,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    RevisionMismatchError,
    StorageError,
)


class StaleRevision(Exception):
    """A guarded write lost a race; the caller re-reads and tries again (or answers 409)."""


def encode(obj: dict[str, Any]) -> bytes:
    meta = obj.get("metadata")
    if meta is not None and "resourceVersion" in meta:
        meta = {k: v for k, v in meta.items() if k != "resourceVersion"}
        obj = {**obj, "metadata": meta}
    return encode_for_storage(obj)


def stamped(key: str, revision: int, obj: dict[str, Any]) -> CachedObject:
    obj.setdefault("metadata", {})["resourceVersion"] = str(revision)
    namespace, name = split_key(key)
    return CachedObject(key, namespace, name, revision, obj)


class ObjectStore:
    def __init__(self, backend: Backend, cache: WatchCache) -> None:
        self.backend = backend
        self.cache = cache

    def encode(self, key: str, obj: dict[str, Any]) -> bytes:
        """The bytes stored for `obj` at `key`."""
        value = encode(obj)
        transformer = self.cache.transformer
        if transformer is not None and transformer.applies_to(key):
            value = transformer.to_storage(key, value)
        return value

    def get(self, served: ServedResource, namespace: str, name: str) -> CachedObject | None:
        return self.cache.get(served.key(namespace, name))

    async def create(self, served: ServedResource, obj: dict[str, Any]) -> CachedObject:
        """Store a new object. `obj` is handed over: the caller must not change it afterwards."""
        meta = obj["metadata"]
        key = served.key(meta.get("namespace", ""), meta["name"])
        value = self.encode(key, obj)
        self.cache.expect(key, value, obj)
        try:
            revision = await self.backend.create(key, value)
            await self.cache.wait_for(revision)
        except KeyExistsError as exc:
            raise errors.already_exists(served.type.group_resource, meta["name"]) from exc
        except StorageError as exc:
            raise errors.InternalError(f"storage error: {exc}") from exc
        finally:
            self.cache.forget(key, value)
        return self._stored(key, revision, obj)

    async def update(self, served: ServedResource, obj: dict[str, Any], expected: int) -> CachedObject:
        """Replace an object stored at revision `expected`; `obj` is handed over as for `create`."""
        meta = obj["metadata"]
        key = served.key(meta.get("namespace", ""), meta["name"])
        value = self.encode(key, obj)
        self.cache.expect(key, value, obj)
        try:
            revision = await self.backend.update(key, value, mod_revision=expected)
            await self.cache.wait_for(revision)
        except RevisionMismatchError as exc:
            if exc.current is not None:
                await self.cache.wait_for(exc.current.mod_revision)
            raise StaleRevision(str(exc)) from exc
        except KeyNotFoundError as exc:
            raise errors.not_found(served.type.group_resource, meta["name"]) from exc
        except StorageError as exc:
            raise errors.InternalError(f"storage error: {exc}") from exc
        finally:
            self.cache.forget(key, value)
        return self._stored(key, revision, obj)

    def _stored(self, key: str, revision: int, obj: dict[str, Any]) -> CachedObject:
        """What a write answers: the cache's own object when it holds this write (its JSON bytes are
        then encoded once for the response and every watcher), else `obj` stamped with the revision."""
        cached = self.cache.current(key, revision)
        if cached is not None and cached.obj is obj:
            return cached
        return stamped(key, revision, obj)

    async def delete(self, served: ServedResource, current: CachedObject) -> CachedObject:
        try:
            revision = await self.backend.delete(current.key, mod_revision=current.revision)
        except RevisionMismatchError as exc:
            if exc.current is not None:
                await self.cache.wait_for(exc.current.mod_revision)
            raise StaleRevision(str(exc)) from exc
        except StorageError as exc:
            raise errors.InternalError(f"storage error: {exc}") from exc
        await self.cache.wait_for(revision)
        return current.at_revision(revision)

    async def list_at(
        self, served: ServedResource, namespace: str, revision: int, start_after: str, limit: int
    ) -> tuple[list[CachedObject], bool]:
        """A page read from the store at a past revision (pagination over a changing collection)."""
        prefix = served.storage_prefix + (f"{namespace}/" if namespace and served.namespaced else "")
        try:
            result = await self.backend.range(prefix, start_after=start_after, limit=limit, revision=revision)
        except CompactedError as exc:
            raise errors.Gone(
                "The provided continue parameter is too old to display a consistent list result. You can "
                "start a new list without the continue parameter, or use the continue token in this "
                "response to retrieve the remainder of the results. Continuing with the provided token "
                "results in an inconsistent list - objects that were created, modified, or deleted "
                "between the time the first chunk was returned and now may show up in the list."
            ) from exc
        except FutureRevisionError as exc:
            raise errors.ServerTimeout(
                f"Too large resource version: {exc.requested}, current: {exc.current}"
            ) from exc
        return [decode(kv, self.cache.transformer) for kv in result.kvs], result.more
