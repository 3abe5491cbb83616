"""An API server context on the in-memory store, with webhook admission, for in-process admission tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from flotilla.api.objects import copy_object
from flotilla.apiserver.admission.webhooks import WebhookAdmission
from flotilla.apiserver.context import APIContext, APISettings
from flotilla.apiserver.registry.resources import ResourceRegistry, ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject, WatchCache
from flotilla.apiserver.writes import normalize, pipeline
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.storage.memory import MemoryBackend

KINDS = {
    "Namespace": ("", "v1", "namespaces"),
    "ConfigMap": ("", "v1", "configmaps"),
    "Deployment": ("apps", "v1", "deployments"),
    "MutatingWebhookConfiguration": ("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"),
    "ValidatingWebhookConfiguration": (
        "admissionregistration.k8s.io",
        "v1",
        "validatingwebhookconfigurations",
    ),
}


class Server:
    """A context with `WebhookAdmission` and the write paths tests need."""

    def __init__(self, ctx: APIContext, admission: WebhookAdmission) -> None:
        self.ctx = ctx
        self.admission = admission

    def served(self, kind: str) -> ServedResource:
        found = self.ctx.registry.lookup(*KINDS[kind])
        assert found is not None
        return found

    async def create(
        self, obj: dict[str, Any], *, dry_run: bool = False, warnings: list[str] | None = None
    ) -> CachedObject:
        served = self.served(obj["kind"])
        obj = normalize.check_kind(served, obj)
        normalize.check_namespace(served, obj, obj["metadata"].get("namespace", ""))
        options = pipeline.WriteOptions(dry_run, FieldValidation.STRICT, "test")
        try:
            return await pipeline.create_object(self.ctx, served, obj, options)
        finally:
            if warnings is not None:
                warnings.extend(options.warnings)

    async def update(self, obj: dict[str, Any], *, subresource: str = "") -> CachedObject:
        served = self.served(obj["kind"])
        meta = obj["metadata"]
        info = RequestInfo(
            served.type.group,
            served.type.version,
            meta.get("namespace", ""),
            served.type.plural,
            meta["name"],
            subresource,
            "update",
        )
        options = pipeline.WriteOptions(False, FieldValidation.STRICT, "test")
        return await pipeline.update_flow(
            self.ctx, served, info, options, lambda _: copy_object(obj), subresource=subresource
        )

    async def namespace(self, name: str, labels: dict[str, str] | None = None) -> None:
        await self.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}
        )


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    backend = MemoryBackend()
    await backend.start()
    cache = WatchCache(backend)
    await cache.start()
    ctx = APIContext(backend, cache, ResourceRegistry(), APISettings())
    admission = WebhookAdmission(ctx.registry, ctx.cache)
    ctx.admission = admission
    try:
        yield Server(ctx, admission)
    finally:
        await admission.close()
        await cache.stop()
        await backend.close()
