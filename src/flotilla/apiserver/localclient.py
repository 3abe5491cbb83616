"""An in-process client of one API server: the same write pipeline as HTTP, without the network.

Components that are part of a cluster — the simulator's kubelet, scheduler and workload controllers,
the API server's own controllers — act on its objects through this client. Every write goes through
the full pipeline (defaults, validation, admission, field ownership, generation, revisions), so what
they do is exactly what a client over HTTP could do; only encoding and TLS are skipped. Reads come
from the watch cache and return private copies; so do writes (what a write stored is handed to the
watch cache, which must never see it change).

Objects are addressed by kind (`GroupVersionKind`) and name, the namespace a keyword — the shape of
`flotilla.client`'s roles, so a name and a namespace cannot trade places unnoticed. Events of a kind
arrive through `on_change`, synchronously while the cache applies them — handlers should only
enqueue keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from flotilla.api.objects import copy_object
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.scale import scale_of, with_replicas
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.controllerindex import ControllerIndex
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.binding import bind_pod
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.apiserver.writes.patching import apply_patch
from flotilla.apiserver.writes.pipeline import WriteOptions, create_object, system_options, update_flow

__all__ = ["MERGE_PATCH", "CacheEvent", "CachedObject", "LocalClient"]
"""`CacheEvent` (and the `CachedObject`s it holds) is what `on_change` handlers receive: re-exported so
that callers outside the API server (the sim) import the event with the client, not from the store."""

MERGE_PATCH = "application/merge-patch+json"


class LocalClient:
    def __init__(self, ctx: APIContext, manager: str) -> None:
        self.ctx = ctx
        self.manager = manager
        self._controller_indexes: dict[GroupVersionKind, ControllerIndex] = {}

    def resource(self, gvk: GroupVersionKind) -> ServedResource:
        served = self.ctx.registry.by_kind(gvk)
        if served is None:
            raise errors.NotFound(f"no resource serves {gvk}")
        return served

    def _options(self) -> WriteOptions:
        return system_options(self.manager)

    # -- reads ------------------------------------------------------------------------------------

    def get(self, gvk: GroupVersionKind, name: str, *, namespace: str = "") -> dict[str, Any] | None:
        item = self.ctx.store.get(self.resource(gvk), namespace, name)
        return item.copy() if item is not None else None

    def peek(self, gvk: GroupVersionKind, name: str, *, namespace: str = "") -> dict[str, Any] | None:
        """The cached object itself, for reading only (never change what this returns)."""
        item = self.ctx.store.get(self.resource(gvk), namespace, name)
        return item.obj if item is not None else None

    def controlled_by(self, gvk: GroupVersionKind, owner_uid: str, *, namespace: str) -> list[dict[str, Any]]:
        """Cached objects of a kind in `namespace` whose controller is `owner_uid` (read-only dicts).

        Answered from an index (`controllerindex.py`) rather than a scan of the namespace.
        """
        return self._controller_index(gvk).objects(namespace, owner_uid)

    def claim_candidates(
        self, gvk: GroupVersionKind, owner_uid: str, *, namespace: str
    ) -> list[dict[str, Any]]:
        """What a controller may keep or adopt: the objects it controls and the orphans, in key order.

        Objects controlled by someone else are left out: a claim never touches them.
        """
        index = self._controller_index(gvk)
        found = [*index.objects(namespace, owner_uid), *index.objects(namespace, "")]
        return sorted(found, key=lambda obj: str((obj.get("metadata") or {}).get("name") or ""))

    def _controller_index(self, gvk: GroupVersionKind) -> ControllerIndex:
        index = self._controller_indexes.get(gvk)
        if index is None:
            prefix = self.resource(gvk).storage_prefix
            index = ControllerIndex(prefix, self.ctx.cache.list(prefix, ""))
            self.ctx.cache.add_listener(index.apply)
            self._controller_indexes[gvk] = index
        return index

    def list(self, gvk: GroupVersionKind, *, namespace: str = "") -> list[dict[str, Any]]:
        """Cached objects of a kind (read-only dicts: copy before changing)."""
        served = self.resource(gvk)
        return [item.obj for item in self.ctx.cache.list(served.storage_prefix, namespace)]

    def get_scale(self, gvk: GroupVersionKind, name: str, *, namespace: str = "") -> dict[str, Any] | None:
        """The object's autoscaling/v1 Scale, as `GET …/scale` answers (None: no such object)."""
        served = self.resource(gvk)
        if not served.type.has_subresource("scale"):
            raise errors.NotFound(f"{served.type.plural}.{served.type.group} have no scale subresource")
        item = self.ctx.store.get(served, namespace, name)
        return scale_of(served, item.obj) if item is not None else None

    # -- writes -----------------------------------------------------------------------------------

    async def create(self, gvk: GroupVersionKind, obj: dict[str, Any]) -> dict[str, Any]:
        served = self.resource(gvk)
        body = normalize.check_kind(served, copy_object(obj))
        namespace = body["metadata"].get("namespace", "") if served.namespaced else ""
        normalize.check_namespace(served, body, namespace)
        options = self._options()
        found = normalize.decode_fields(self.ctx, served, body, options.validation, [], options.warnings)
        item = await create_object(self.ctx, served, body, options, found)
        return item.copy()

    async def update(
        self, gvk: GroupVersionKind, obj: dict[str, Any], *, subresource: str = ""
    ) -> dict[str, Any]:
        """Replace an object (or its status); a stale resourceVersion raises Conflict."""
        served = self.resource(gvk)
        body = normalize.check_kind(served, copy_object(obj))
        meta = body["metadata"]
        info = self._info(served, meta.get("namespace", ""), meta["name"], subresource)
        pinned = str(meta.get("resourceVersion") or "")
        item = await update_flow(
            self.ctx,
            served,
            info,
            self._options(),
            lambda _: copy_object(body),
            pinned_revision=lambda _: pinned,
            subresource=subresource,
        )
        return item.copy()

    async def mutate(
        self,
        gvk: GroupVersionKind,
        name: str,
        change: Callable[[dict[str, Any]], None],
        *,
        namespace: str = "",
        subresource: str = "",
    ) -> dict[str, Any]:
        """Read-modify-write: `change` edits a fresh copy, re-run if another writer got in first."""
        served = self.resource(gvk)

        def compute(current: CachedObject) -> dict[str, Any]:
            obj = current.copy()
            obj["metadata"].pop("resourceVersion", None)
            change(obj)
            return obj

        item = await update_flow(
            self.ctx,
            served,
            self._info(served, namespace, name, subresource),
            self._options(),
            compute,
            subresource=subresource,
        )
        return item.copy()

    async def patch(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: dict[str, Any],
        *,
        namespace: str = "",
        subresource: str = "",
    ) -> dict[str, Any]:
        """A JSON merge patch (null deletes), retried on concurrent writes."""
        served = self.resource(gvk)
        raw = orjson.dumps(patch)

        def compute(current: CachedObject) -> dict[str, Any]:
            start = current.copy()
            start["metadata"].pop("resourceVersion", None)
            return apply_patch(MERGE_PATCH, start, raw, served)

        item = await update_flow(
            self.ctx,
            served,
            self._info(served, namespace, name, subresource),
            self._options(),
            compute,
            subresource=subresource,
        )
        return item.copy()

    async def scale(
        self, gvk: GroupVersionKind, name: str, replicas: int, *, namespace: str = ""
    ) -> dict[str, Any]:
        """Set the object's replicas through its `scale` subresource; its new Scale."""
        served = self.resource(gvk)

        def compute(current: CachedObject) -> dict[str, Any]:
            obj = current.copy()
            obj["metadata"].pop("resourceVersion", None)
            return with_replicas(served, obj, replicas)

        item = await update_flow(
            self.ctx,
            served,
            self._info(served, namespace, name, "scale"),
            self._options(),
            compute,
            subresource="scale",
        )
        return scale_of(served, item.obj)

    async def delete(
        self,
        gvk: GroupVersionKind,
        name: str,
        *,
        namespace: str = "",
        propagation: str = "Background",
        uid: str = "",
        grace_period_seconds: int | None = None,
    ) -> bool:
        """Delete an object; False when it was already gone (a pod's kubelet deletes with grace 0)."""
        served = self.resource(gvk)
        options = DeleteOptions(False, propagation, grace_period_seconds, uid)
        try:
            await delete_object(self.ctx, served, namespace, name, options)
        except errors.NotFound:
            return False
        return True

    async def bind(self, name: str, *, namespace: str, node_name: str) -> dict[str, Any]:
        """Assign a pod to a node, as a scheduler's `pods/<name>/binding` does (409 if already assigned)."""
        item = await bind_pod(self.ctx, namespace, name, node_name, self._options())
        return item.copy()

    # -- events -----------------------------------------------------------------------------------

    def on_change(self, gvk: GroupVersionKind, handler: Callable[[CacheEvent], None]) -> None:
        """Call `handler` for every change to objects of `gvk` (while the cache applies it)."""
        prefix = self.resource(gvk).storage_prefix

        def filtered(event: CacheEvent) -> None:
            if event.object.key.startswith(prefix):
                handler(event)

        self.ctx.cache.add_listener(filtered)

    def _info(self, served: ServedResource, namespace: str, name: str, subresource: str) -> RequestInfo:
        t = served.type
        return RequestInfo(
            t.group, t.version, namespace if t.namespaced else "", t.plural, name, subresource, "update"
        )
