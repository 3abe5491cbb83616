"""An API server without its HTTP listener: store, watch cache, admission and in-process controllers.

`APIServer` puts HTTPS in front of one of these; the simulator's controllers and fast unit tests
use it directly (with the in-memory store), through `LocalClient`.
"""

from __future__ import annotations

from flotilla.apiserver.admission.webhooks import WebhookAdmission
from flotilla.apiserver.context import APIContext, APISettings
from flotilla.apiserver.housekeeping import InProcessControllers
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.registry.resources import ResourceRegistry
from flotilla.apiserver.store.watchcache import WatchCache
from flotilla.storage import Backend


class EmbeddedAPI:
    def __init__(self, backend: Backend, settings: APISettings | None = None) -> None:
        self.settings = settings or APISettings()
        self.backend = backend
        self.cache = WatchCache(
            backend,
            history_window=self.settings.history_window,
            history_max_bytes=self.settings.history_max_bytes,
        )
        self.registry = ResourceRegistry()
        self.context = APIContext(backend, self.cache, self.registry, self.settings)
        self.admission = WebhookAdmission(self.context)
        self.context.admission = self.admission
        self.controllers = InProcessControllers(self.context)

    def client(self, manager: str) -> LocalClient:
        return LocalClient(self.context, manager)

    async def start(self) -> None:
        await self.backend.start()
        await self.cache.start()
        await self.controllers.start()

    async def stop(self) -> None:
        await self.controllers.stop()
        await self.cache.stop()
        await self.admission.close()
        await self.backend.close()
