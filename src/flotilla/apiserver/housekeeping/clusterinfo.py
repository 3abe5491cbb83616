"""`ClusterInfoPublisher`: kube-controller-manager's bootstrap signer, run inside the API server.

Whenever a bootstrap-token Secret or the `kube-public/cluster-info` ConfigMap changes, and when a
token expires, it rewrites the ConfigMap so exactly the valid signing tokens have a signature
(`authn/clusterinfo.py` says what the data is).

The kubeconfig it signs is this server's when the server starts (a hub restarted on another port
publishes the new one); from then on it keeps the kubeconfig the ConfigMap holds. Several API
servers share one store on etcd, and each would otherwise rewrite the ConfigMap to its own URL as
soon as it saw another's: the last one started names the hub, and nobody loops.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.apiserver import errors
from flotilla.apiserver.authn.bootstrap import (
    SECRET_NAMESPACE,
    BootstrapToken,
    is_bootstrap_secret_key,
    token_from_secret,
)
from flotilla.apiserver.authn.clusterinfo import KUBECONFIG_KEY, cluster_info_data, signing_tokens
from flotilla.apiserver.authn.lookup import CONFIG_MAP, SECRET
from flotilla.apiserver.authz.publicinfo import CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CacheEvent

MANAGER = "bootstrap-signer"


class ClusterInfoPublisher(CacheController):
    """Keeps cluster-info's kubeconfig and its bootstrap-token signatures current."""

    NAME = "bootstrap-signer"
    KEY = "cluster-info"

    def __init__(self, ctx: APIContext, kubeconfig: str) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.kubeconfig = kubeconfig
        self._claimed = False
        """Whether this server's kubeconfig was published since it started."""
        self.client = LocalClient(ctx, MANAGER)
        secrets = ctx.registry.by_kind(SECRET)
        config_maps = ctx.registry.by_kind(CONFIG_MAP)
        assert secrets is not None
        assert config_maps is not None
        self._secret_prefix = secrets.storage_prefix
        self._config_map_key = config_maps.key(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME)

    def start(self) -> None:
        self.queue.add(self.KEY)
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        item = event.object
        if item.key == self._config_map_key:
            return [self.KEY]
        if item.key.startswith(self._secret_prefix) and is_bootstrap_secret_key(item.namespace, item.name):
            return [self.KEY]
        return []

    def tokens(self) -> list[BootstrapToken]:
        found = []
        for secret in self.client.list(SECRET, namespace=SECRET_NAMESPACE):
            if (secret.get("metadata") or {}).get("deletionTimestamp"):
                continue
            token = token_from_secret(secret)
            if token is not None:
                found.append(token)
        return found

    async def reconcile(self, key: Any) -> float | None:
        now = self.ctx.clock()
        tokens = self.tokens()
        current = self.client.peek(CONFIG_MAP, CLUSTER_INFO_NAME, namespace=CLUSTER_INFO_NAMESPACE)
        published = str(((current or {}).get("data") or {}).get(KUBECONFIG_KEY) or "")
        kubeconfig = published if self._claimed and published else self.kubeconfig
        desired = cluster_info_data(kubeconfig, tokens, now)
        if current is None:
            obj = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": CLUSTER_INFO_NAME, "namespace": CLUSTER_INFO_NAMESPACE},
                "data": desired,
            }
            try:
                await self.client.create(CONFIG_MAP, obj)
            except errors.AlreadyExists:
                return 0.0
        elif current.get("data") != desired:

            def replace_data(config_map: dict[str, Any]) -> None:
                config_map["data"] = desired

            await self.client.mutate(
                CONFIG_MAP, CLUSTER_INFO_NAME, replace_data, namespace=CLUSTER_INFO_NAMESPACE
            )
        self._claimed = True
        return _seconds_until_next_expiry(signing_tokens(tokens, now), now)


def _seconds_until_next_expiry(tokens: list[BootstrapToken], now: datetime) -> float | None:
    """When the next signing token expires (its signature must then go), if any will."""
    ends = [t.expiration for t in tokens if t.expiration is not None]
    if not ends:
        return None
    return max(0.0, (min(ends) - now).total_seconds()) + 0.5
