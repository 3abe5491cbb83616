"""Expired bootstrap tokens are deleted, as kube-controller-manager's token cleaner does.

The authenticator already refuses an expired token; deleting its Secret keeps kube-system tidy and
makes `kubectl get secrets -n kube-system` tell the truth. Each bootstrap-token Secret is checked
when it changes and again when its expiration comes.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.apiserver.authn.bootstrap import SECRET_NAMESPACE, is_bootstrap_secret_key, token_from_secret
from flotilla.apiserver.authn.lookup import SECRET
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent

log = structlog.get_logger("flotilla.apiserver.authn")


class TokenCleaner(CacheController):
    NAME = "token-cleaner"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.client = LocalClient(ctx, self.NAME)
        served = ctx.registry.by_kind(SECRET)
        assert served is not None
        self._secret_prefix = served.storage_prefix

    def start(self) -> None:
        for secret in self.client.list(SECRET, namespace=SECRET_NAMESPACE):
            name = str((secret.get("metadata") or {}).get("name", ""))
            if is_bootstrap_secret_key(SECRET_NAMESPACE, name):
                self.queue.add(name)
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        item = event.object
        if event.type == "DELETED" or not item.key.startswith(self._secret_prefix):
            return []
        return [item.name] if is_bootstrap_secret_key(item.namespace, item.name) else []

    async def reconcile(self, key: Any) -> float | None:
        secret = self.client.peek(SECRET, str(key), namespace=SECRET_NAMESPACE)
        if secret is None or (secret.get("metadata") or {}).get("deletionTimestamp"):
            return None
        token = token_from_secret(secret)
        if token is None or token.expiration is None:
            return None
        now = self.ctx.clock()
        if not token.expired(now):
            return (token.expiration - now).total_seconds() + 0.5
        uid = str((secret.get("metadata") or {}).get("uid", ""))
        if await self.client.delete(SECRET, str(key), namespace=SECRET_NAMESPACE, uid=uid):
            log.info("authn.bootstrap_token.deleted_expired", token_id=token.token_id)
        return None
