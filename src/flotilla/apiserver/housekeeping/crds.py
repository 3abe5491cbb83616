"""CustomResourceDefinitions: serve them, report their status, clean up their objects on delete.

When a CRD is created or changed its served versions appear in the registry — discovery and
OpenAPI follow at once — and its status says NamesAccepted and Established. A CRD whose versions
this server cannot convert between (`strategy: Webhook`) serves only its storage version and says
why in a `WebhookConversionNotSupported` condition. `status.storedVersions` gains the storage
version (kube never removes one: a user does, once no object is stored at it). When it is deleted
(it carries the `customresourcecleanup` finalizer), every object of it is deleted first; then the
finalizer goes, the CRD goes, and so do its endpoints.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from flotilla.api.conditions import set_status_condition
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry.conversion.plans import plan_versions, storage_version
from flotilla.apiserver.registry.customresources import served_for_crd
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.strategy import CRD_CLEANUP_FINALIZER
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.apiserver.writes.pipeline import WriteOptions, system_options, update_flow

log = structlog.get_logger("flotilla.apiserver.crds")

CRD_PREFIX = "/registry/apiextensions.k8s.io/customresourcedefinitions/"
CRD_GVK = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
MANAGER = "flotilla-apiextensions-controller"
WEBHOOK_CONVERSION_NOT_SUPPORTED = "WebhookConversionNotSupported"
_BACKGROUND = DeleteOptions(False, "Background")


def _condition(kind: str, status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": now}


def _served_facts(served: ServedResource) -> tuple[Any, ...]:
    """What a served version takes from its CRD beyond its type: a change of these re-serves it."""
    custom = served.custom
    if custom is None:
        return ()
    return (custom.raw_schema, custom.printer_columns, custom.conversion)


def _conversion_condition(
    conditions: list[dict[str, Any]], crd: dict[str, Any], now: str
) -> list[dict[str, Any]]:
    """The `WebhookConversionNotSupported` condition while the CRD asks for it, gone otherwise."""
    unsupported = plan_versions(crd).unsupported
    if not unsupported:
        return [c for c in conditions if c.get("type") != WEBHOOK_CONVERSION_NOT_SUPPORTED]
    condition = _condition(WEBHOOK_CONVERSION_NOT_SUPPORTED, "True", "WebhookNotCalled", unsupported, now)
    return set_status_condition(conditions, condition, now)


class CRDController(CacheController):
    NAME = "customresourcedefinitions"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx

    def keys_for(self, event: CacheEvent) -> list[Any]:
        if event.object.key.startswith(CRD_PREFIX):
            return [event.object.name]
        return []

    @property
    def _crd_resource(self) -> ServedResource:
        served = self.ctx.registry.by_kind(CRD_GVK)
        assert served is not None
        return served

    async def serve_existing(self) -> None:
        for item in self.ctx.cache.list(CRD_PREFIX):
            try:
                self.ctx.registry.set_custom(item.name, served_for_crd(item.obj))
            except Exception:
                log.exception("crd.serve_failed", crd=item.name)
            self.queue.add(item.name)

    async def reconcile(self, name: str) -> float | None:
        current = self.ctx.store.get(self._crd_resource, "", name)
        if current is None:
            self.ctx.registry.set_custom(name, [])
            return None
        if current.metadata.get("deletionTimestamp"):
            return await self._clean_up(name, current.obj)
        # Compiling the versions' CEL rules may take a while: off the event loop (the cached object
        # is never changed in place).
        served = await asyncio.to_thread(served_for_crd, current.obj)
        conflict = self._name_conflict(name, served)
        if conflict:
            await self._write_status(name, accepted=False, message=conflict)
            self.ctx.registry.set_custom(name, [])
            return None
        if [s.type for s in self.ctx.registry.custom(name)] != [s.type for s in served] or any(
            _served_facts(a) != _served_facts(b)
            for a, b in zip(self.ctx.registry.custom(name), served, strict=False)
        ):
            self.ctx.registry.set_custom(name, served)
        await self._write_status(name, accepted=True, message="")
        return None

    def _name_conflict(self, name: str, served: list[ServedResource]) -> str:
        for candidate in served:
            other = self.ctx.registry.lookup(
                candidate.type.group, candidate.type.version, candidate.type.plural
            )
            if other is not None and (other.custom is None or other.custom.crd_name != name):
                return f'"{candidate.type.plural}" is already in use'
        return ""

    async def _write_status(self, name: str, *, accepted: bool, message: str) -> None:
        now = format_time(self.ctx.clock())

        def compute(current: Any) -> dict[str, Any]:
            obj: dict[str, Any] = current.copy()
            spec = obj.get("spec") or {}
            status = obj.setdefault("status", {})
            wanted = [
                _condition(
                    "NamesAccepted",
                    "True" if accepted else "False",
                    "NoConflicts" if accepted else "NameConflict",
                    "no conflicts found" if accepted else message,
                    now,
                ),
                _condition(
                    "Established",
                    "True" if accepted else "False",
                    "InitialNamesAccepted" if accepted else "NotAccepted",
                    "the initial names have been accepted" if accepted else "not all names are accepted",
                    now,
                ),
            ]
            # kube's `SetCRDCondition`: the transition time moves only when the status does.
            conditions = status.get("conditions")
            for condition in wanted:
                conditions = set_status_condition(conditions, condition, now)
            status["conditions"] = _conversion_condition(conditions, obj, now)
            names = dict(spec.get("names") or {})
            names.setdefault("singular", str(names.get("kind", "")).lower())
            names.setdefault("listKind", f"{names.get('kind', '')}List")
            status["acceptedNames"] = names if accepted else {"kind": "", "plural": ""}
            stored = list(status.get("storedVersions") or [])
            version = storage_version(obj)
            if version and version not in stored:
                stored.append(version)
            status["storedVersions"] = stored
            return obj

        await update_flow(
            self.ctx,
            self._crd_resource,
            self._info(name, "status"),
            self._options(),
            compute,
            subresource="status",
        )

    async def _clean_up(self, name: str, crd: dict[str, Any]) -> float | None:
        served = self.ctx.registry.custom(name)
        remaining = 0
        if served:
            resource = served[0]
            for item in self.ctx.cache.list(resource.storage_prefix):
                remaining += 1
                if item.metadata.get("deletionTimestamp"):
                    continue
                try:
                    await delete_object(self.ctx, resource, item.namespace, item.name, _BACKGROUND)
                except errors.NotFound:
                    continue
        if remaining:
            return 0.5
        finalizers = (crd.get("metadata") or {}).get("finalizers") or []
        if CRD_CLEANUP_FINALIZER in finalizers:

            def compute(current: Any) -> dict[str, Any]:
                obj: dict[str, Any] = current.copy()
                meta = obj["metadata"]
                meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != CRD_CLEANUP_FINALIZER]
                return obj

            with contextlib.suppress(errors.NotFound):
                await update_flow(
                    self.ctx, self._crd_resource, self._info(name, ""), self._options(), compute
                )
        return None

    def _info(self, name: str, subresource: str) -> RequestInfo:
        return RequestInfo(
            "apiextensions.k8s.io", "v1", "", "customresourcedefinitions", name, subresource, "update"
        )

    def _options(self) -> WriteOptions:
        return system_options(MANAGER)
