"""Informer: a local, always-current copy of one kind's objects, with change notifications.

List, then watch from the list's resourceVersion (with bookmarks, so a resume point stays fresh);
a watch that ends is resumed from the last resourceVersion seen; 410 Expired or an ERROR event
means the history is gone, so it relists and reports the differences as synthetic events. Network
failures back off exponentially (capped) and never end the informer. Handlers are called
synchronously with (event type, new object, old object) and should only enqueue keys — controllers
re-read the store when they reconcile (level-based).

Cached objects carry no `metadata.managedFields` (controller-runtime's `TransformStripManagedFields`):
no controller reads them from a cache, they are often a third of an object's size, and an update
sent without them keeps the server's.

A `compact` informer keeps its objects as JSON with the recently used decoded (`compactstore.py`),
about a sixth of the memory of dicts, and lists a page at a time so that it never holds the whole
list decoded: what the controller manager uses for the kinds that grow with workloads and clusters.

Indexes (`add_index`, `indexed`) answer "which cached objects have this value" without a scan, as
client-go's Indexer does: a controller that would otherwise walk every binding on each event (the
dependencies distributor finding a ConfigMap's referrers, the scheduler finding bindings that
await a result) asks its index instead. Every index, and the built-in one by namespace, is kept
in step with the store before handlers are called.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Hashable, Iterable, MutableMapping
from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.compactstore import DEFAULT_HOT, CompactStore
from flotilla.client.errors import APIStatusError, ClientError, ContinueExpired, Gone
from flotilla.client.interfaces import ListerWatcher

log = structlog.get_logger("flotilla.client.informer")

Handler = Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None]
IndexFunc = Callable[[dict[str, Any]], Iterable[Hashable]]
"""The values an object is filed under in one index (none: not in the index)."""


class _Index:
    """One index: value -> keys of the objects filed under it (insertion-ordered), and back."""

    def __init__(self, func: IndexFunc) -> None:
        self.func = func
        self.keys: dict[Hashable, dict[ObjectKey, None]] = {}
        self.values: dict[ObjectKey, tuple[Hashable, ...]] = {}

    def put(self, key: ObjectKey, obj: dict[str, Any]) -> None:
        values = tuple(dict.fromkeys(self.func(obj)))
        if self.values.get(key, ()) == values:
            return
        self.remove(key)
        if values:
            self.values[key] = values
            for value in values:
                self.keys.setdefault(value, {})[key] = None

    def remove(self, key: ObjectKey) -> None:
        for value in self.values.pop(key, ()):
            filed = self.keys.get(value)
            if filed is not None:
                filed.pop(key, None)
                if not filed:
                    del self.keys[value]


def _namespace_of(obj: dict[str, Any]) -> tuple[str]:
    return (str((obj.get("metadata") or {}).get("namespace") or ""),)


def _strip_managed_fields(obj: dict[str, Any]) -> None:
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        metadata.pop("managedFields", None)


_NAMESPACE_INDEX = "namespace"
LIST_PAGE = 500
"""Objects per page when a compact informer lists."""


class Informer:
    def __init__(
        self,
        client: ListerWatcher,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        watch_timeout: int = 300,
        max_backoff: float = 30.0,
        compact: bool = False,
        hot_objects: int = DEFAULT_HOT,
    ) -> None:
        self.client = client
        self._compact = compact
        self._hot_objects = hot_objects
        self.gvk = gvk
        self._api_version = gvk.api_version
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.store: MutableMapping[ObjectKey, dict[str, Any]] = self._new_store()
        self.resource_version = ""
        self._handlers: list[Handler] = []
        self._indexes: dict[str, _Index] = {_NAMESPACE_INDEX: _Index(_namespace_of)}
        self._synced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._watch_timeout = watch_timeout
        self._max_backoff = max_backoff

    # -- use --------------------------------------------------------------------------------------

    def add_handler(self, handler: Handler) -> None:
        self._handlers.append(handler)

    def get(self, name: str, *, namespace: str = "") -> dict[str, Any] | None:
        return self.store.get(ObjectKey(namespace, name))

    def add_index(self, name: str, func: IndexFunc) -> None:
        """File every cached object, and every one to come, under the values `func` gives it.

        Adding a name again replaces its function (a controller set up anew on the same informer).
        """
        index = _Index(func)
        for key in self.store:
            index.put(key, self._peek(key))
        self._indexes[name] = index

    def indexed(self, name: str, value: Hashable) -> list[dict[str, Any]]:
        """The cached objects filed under `value` in index `name`."""
        return [self._peek(key) for key in self._indexes[name].keys.get(value, ())]

    def list(self, *, namespace: str | None = None) -> list[dict[str, Any]]:
        """The cached objects, of one namespace if given."""
        if namespace is None:
            return [self._peek(key) for key in self.store]
        return self.indexed(_NAMESPACE_INDEX, namespace)

    def _new_store(self) -> MutableMapping[ObjectKey, dict[str, Any]]:
        return CompactStore(self._hot_objects) if self._compact else {}

    def _peek(self, key: ObjectKey) -> dict[str, Any]:
        """A cached object for a scan: a compact store decodes it without making it hot."""
        store = self.store
        return store.peek(key) if isinstance(store, CompactStore) else store[key]

    @property
    def running(self) -> bool:
        return self._task is not None

    @property
    def synced(self) -> bool:
        return self._synced.is_set()

    async def wait_synced(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self._synced.wait(), timeout)

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"informer-{self.gvk.kind}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        backoff = 0.2
        need_list = True
        while True:
            try:
                if need_list:
                    await self._relist()
                    need_list = False
                await self._watch_once()
                backoff = 0.2
            except asyncio.CancelledError:
                raise
            except Gone:
                need_list = True
            except APIStatusError as exc:
                log.warning("informer.error", kind=self.gvk.kind, error=exc.message, retry_in=backoff)
                need_list = exc.code in (404, 410) or need_list
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._max_backoff)
            except ClientError as exc:
                log.info(
                    "informer.unavailable", kind=self.gvk.kind, error=str(exc), retry_in=round(backoff, 2)
                )
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._max_backoff)

    async def _relist(self) -> None:
        try:
            fresh, revision = await self._list(LIST_PAGE if self._compact else 0)
        except ContinueExpired:
            # The hub compacted past the list's revision while it was paged (a big collection on a
            # busy hub): one full list, as client-go's reflector falls back to.
            log.info("informer.list_expired", kind=self.gvk.kind, fallback="full list")
            fresh, revision = await self._list(0)
        old = self.store
        self.store = fresh
        self.resource_version = revision
        for index in self._indexes.values():
            for key in old.keys() - fresh.keys():
                index.remove(key)
            for key in fresh:
                index.put(key, self._peek(key))
        for key in fresh:
            obj = self._peek(key)
            previous = old.get(key)
            if previous is None:
                self._emit("ADDED", obj, None)
            elif (previous.get("metadata") or {}).get("resourceVersion") != (obj.get("metadata") or {}).get(
                "resourceVersion"
            ):
                self._emit("MODIFIED", obj, previous)
        for key in old.keys() - fresh.keys():
            self._emit("DELETED", None, old[key])
        self._synced.set()

    async def _list(self, limit: int) -> tuple[MutableMapping[ObjectKey, dict[str, Any]], str]:
        """A fresh store of every matching object, and the list's resourceVersion."""
        fresh = self._new_store()
        revision = ""
        async for items, page_revision in self.client.list_pages(
            self.gvk,
            namespace=self.namespace,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            limit=limit,
        ):
            for item in items:
                _strip_managed_fields(item)
                if isinstance(fresh, CompactStore):
                    fresh.load(ObjectKey.of(item), item)
                else:
                    fresh[ObjectKey.of(item)] = item
            revision = page_revision
        return fresh, revision

    async def _watch_once(self) -> None:
        async for event in self.client.watch(
            self.gvk,
            namespace=self.namespace,
            resource_version=self.resource_version,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            timeout_seconds=self._watch_timeout,
        ):
            obj = event.object
            revision = str((obj.get("metadata") or {}).get("resourceVersion") or "")
            if event.type == "ERROR":
                if obj.get("code") == 410:
                    raise Gone(410, obj)
                raise APIStatusError(int(obj.get("code") or 500), obj)
            if revision:
                self.resource_version = revision
            if event.type == "BOOKMARK":
                continue
            obj.setdefault("apiVersion", self._api_version)
            obj.setdefault("kind", self.gvk.kind)
            _strip_managed_fields(obj)
            key = ObjectKey.of(obj)
            previous = self.store.get(key)
            if event.type == "DELETED":
                self.store.pop(key, None)
                for index in self._indexes.values():
                    index.remove(key)
                self._emit("DELETED", None, previous or obj)
            else:
                self.store[key] = obj
                for index in self._indexes.values():
                    index.put(key, obj)
                self._emit("ADDED" if previous is None else "MODIFIED", obj, previous)

    def _emit(self, kind: str, obj: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        for handler in self._handlers:
            try:
                handler(kind, obj, old)
            except Exception:
                log.exception("informer.handler_failed", kind=self.gvk.kind)
