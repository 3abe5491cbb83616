"""Namespace lifecycle: a terminating namespace's content is deleted, then the namespace is.

Deleting a namespace marks it Terminating (creates in it are refused from then on). This
controller deletes every namespaced object in it, waits for objects held by finalizers, reports
progress in the namespace's conditions, and finally removes the `kubernetes` finalizer through
`/finalize`, which lets the namespace itself go.
"""

from __future__ import annotations

import contextlib
from typing import Any

from flotilla.api.conditions import kept_if_unchanged
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.apiserver.writes.pipeline import WriteOptions, system_options, update_flow

NAMESPACE_PREFIX = "/registry/core/namespaces/"
NAMESPACE_GVK = GroupVersionKind("", "v1", "Namespace")
MANAGER = "flotilla-namespace-controller"
KUBERNETES_FINALIZER = "kubernetes"
_BACKGROUND = DeleteOptions(False, "Background")


class NamespaceController(CacheController):
    NAME = "namespace"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx

    def keys_for(self, event: CacheEvent) -> list[Any]:
        key = event.object.key
        if key.startswith(NAMESPACE_PREFIX):
            return [event.object.name]
        if event.type == "DELETED" and event.object.namespace:
            namespace = self.ctx.cache.get(NAMESPACE_PREFIX + event.object.namespace)
            if namespace is not None and namespace.metadata.get("deletionTimestamp"):
                return [event.object.namespace]
        return []

    @property
    def _namespaces(self) -> ServedResource:
        served = self.ctx.registry.by_kind(NAMESPACE_GVK)
        assert served is not None
        return served

    def _content(self) -> list[ServedResource]:
        """One served resource per stored namespaced resource (several versions share storage)."""
        seen: set[str] = set()
        found = []
        for served in self.ctx.registry.all():
            if served.namespaced and served.storage_prefix not in seen:
                seen.add(served.storage_prefix)
                found.append(served)
        return found

    async def reconcile(self, name: str) -> float | None:
        namespace = self.ctx.store.get(self._namespaces, "", name)
        if namespace is None or not namespace.metadata.get("deletionTimestamp"):
            return None
        remaining: dict[str, int] = {}
        finalizers: set[str] = set()
        for served in self._content():
            for item in self.ctx.cache.list(served.storage_prefix, name):
                remaining[served.type.group_resource.__str__()] = (
                    remaining.get(str(served.type.group_resource), 0) + 1
                )
                if item.metadata.get("deletionTimestamp"):
                    finalizers.update(item.metadata.get("finalizers") or [])
                    continue
                try:
                    await delete_object(self.ctx, served, item.namespace, item.name, _BACKGROUND)
                except errors.NotFound:
                    continue
        await self._report(name, remaining, finalizers)
        if remaining:
            return 1.0
        await self._finalize(name)
        return None

    async def _report(self, name: str, remaining: dict[str, int], finalizers: set[str]) -> None:
        now = format_time(self.ctx.clock())
        content = ", ".join(
            f"{resource} has {count} resource instances" for resource, count in sorted(remaining.items())
        )
        wanted = [
            (
                "NamespaceDeletionDiscoveryFailure",
                "False",
                "ResourcesDiscovered",
                "All resources successfully discovered",
            ),
            (
                "NamespaceDeletionGroupVersionParsingFailure",
                "False",
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed",
            ),
            (
                "NamespaceDeletionContentFailure",
                "False",
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization",
            ),
            (
                "NamespaceContentRemaining",
                "True" if remaining else "False",
                "SomeResourcesRemain" if remaining else "ContentRemoved",
                f"Some resources are remaining: {content}"
                if remaining
                else "All content successfully removed",
            ),
            (
                "NamespaceFinalizersRemaining",
                "True" if finalizers else "False",
                "SomeFinalizersRemain" if finalizers else "ContentHasNoFinalizers",
                f"Some content in the namespace has finalizers remaining: {', '.join(sorted(finalizers))}"
                if finalizers
                else "All content-preserving finalizers finished",
            ),
        ]

        def compute(current: Any) -> dict[str, Any]:
            obj: dict[str, Any] = current.copy()
            status = obj.setdefault("status", {})
            old = {c.get("type"): c for c in status.get("conditions") or []}
            status["conditions"] = [
                kept_if_unchanged(
                    {
                        "type": kind,
                        "status": state,
                        "lastTransitionTime": now,
                        "reason": reason,
                        "message": message,
                    },
                    old.get(kind),
                )
                for kind, state, reason, message in wanted
            ]
            status["phase"] = "Terminating"
            return obj

        await update_flow(
            self.ctx,
            self._namespaces,
            self._info(name, "status"),
            self._options(),
            compute,
            subresource="status",
        )

    async def _finalize(self, name: str) -> None:
        def compute(current: Any) -> dict[str, Any]:
            obj: dict[str, Any] = current.copy()
            spec = obj.setdefault("spec", {})
            spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != KUBERNETES_FINALIZER]
            return obj

        with contextlib.suppress(errors.NotFound):
            await update_flow(
                self.ctx,
                self._namespaces,
                self._info(name, "finalize"),
                self._options(),
                compute,
                subresource="finalize",
            )

    def _info(self, name: str, subresource: str) -> RequestInfo:
        return RequestInfo("", "v1", "", "namespaces", name, subresource, "update")

    def _options(self) -> WriteOptions:
        return system_options(MANAGER)
