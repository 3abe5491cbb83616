"""Clients of member clusters: built from Cluster objects and their credential Secrets, or given.

Controllers that reach members (execution, work status, cluster status) ask a `MemberClientProvider`
for the client of a Cluster. Two providers exist:

- `MemberClients`, in the controller manager, for Push clusters: a Push cluster names its API
  endpoint in `spec.apiEndpoint` and its credentials in the Secret at `spec.secretRef` (Karmada's
  keys `token` and `caBundle`; Flotilla also accepts a client certificate as `tls.crt`/`tls.key`).
  Clients are cached per cluster and rebuilt when the endpoint or credentials change.
- `LocalMemberClient`, in a Pull cluster's agent: the one member the agent runs beside, reached
  with the agent's own kubeconfig; any other cluster has no client there.

- Through the hub's cluster proxy (`proxied_config`): a Pull member, which only its agent can dial,
  is reached at `clusters/<name>/proxy` on the hub with the process's own hub credentials (the
  hub forwards through the tunnel the agent holds open). The controller manager's multi-cluster
  services do this (`client_for(..., pull_through_proxy=True)`); the CLI reads members this way.

Either way members are reached only through their API over the network.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
from dataclasses import replace
from typing import Any, Protocol

import orjson

from flotilla.api.karmada.constants import CLUSTER_GROUP, CLUSTERS, ClusterSyncMode
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.runtime.informers import SharedInformers

SECRET = GroupVersionKind("", "v1", "Secret")


class MemberCredentialsError(ValueError):
    """A Cluster's credentials are missing or unusable; the message says what to fix."""


def member_config(cluster: dict[str, Any], secret: dict[str, Any] | None) -> ClusterConfig:
    spec = cluster.get("spec") or {}
    name = (cluster.get("metadata") or {}).get("name", "")
    endpoint = spec.get("apiEndpoint")
    if not endpoint:
        raise MemberCredentialsError(f"cluster {name} has no spec.apiEndpoint")
    if secret is None:
        ref = spec.get("secretRef") or {}
        raise MemberCredentialsError(
            f"cluster {name}: credentials secret {ref.get('namespace', '')}/{ref.get('name', '')} not found"
        )
    data = secret.get("data") or {}

    def value(key: str) -> bytes | None:
        raw = data.get(key)
        return base64.b64decode(raw) if raw else None

    token = value("token")
    return ClusterConfig(
        server=str(endpoint).rstrip("/"),
        ca_pem=value("caBundle"),
        client_cert_pem=value("tls.crt"),
        client_key_pem=value("tls.key"),
        token=token.decode() if token else None,
        insecure_skip_tls_verify=bool(spec.get("insecureSkipTLSVerification")),
        cluster_name=name,
    )


def proxied_config(hub: ClusterConfig, cluster_name: str) -> ClusterConfig:
    """`hub`'s user reaching member `cluster_name` through the hub's cluster proxy (every hub endpoint)."""
    path = f"/apis/{CLUSTER_GROUP}/v1alpha1/{CLUSTERS.resource}/{cluster_name}/proxy"
    return replace(
        hub,
        server=hub.server.rstrip("/") + path,
        endpoints=tuple(endpoint.rstrip("/") + path for endpoint in hub.endpoints),
    )


class MemberClientProvider(Protocol):
    """Where controllers get the client of a member cluster."""

    async def client_for(self, cluster: dict[str, Any], *, pull_through_proxy: bool = False) -> Client:
        """The client of the member of `cluster`; `MemberCredentialsError` when there is none.

        `pull_through_proxy`: a Pull member is reached through the hub's cluster proxy, where the
        provider knows the hub (otherwise a Pull member has no client here)."""

    async def forget(self, name: str) -> None:
        """Drop what is kept for a cluster that is gone."""

    async def close(self) -> None:
        """Close every client."""


class MemberClients:
    """Clients of Push members, from their Cluster objects and credential Secrets on the hub; of Pull
    members through the hub's cluster proxy, when asked and given the hub's connection (`hub`)."""

    def __init__(
        self,
        informers: SharedInformers,
        *,
        field_manager: str,
        timeout: float = 10.0,
        hub: ClusterConfig | None = None,
    ) -> None:
        self._informers = informers
        self._hub = hub
        self._field_manager = field_manager
        self._timeout = timeout
        self._clients: dict[str, tuple[str, Client]] = {}

    async def _secret(self, cluster: dict[str, Any]) -> dict[str, Any] | None:
        """The credentials Secret, from its informer (waiting briefly for the informer's first list)."""
        ref = (cluster.get("spec") or {}).get("secretRef") or {}
        if not ref.get("name"):
            return None
        namespace = ref.get("namespace", "")
        informer = self._informers.get(SECRET, namespace)
        if not informer.synced:
            with contextlib.suppress(TimeoutError):
                await informer.wait_synced(self._timeout)
        return informer.get(ref["name"], namespace=namespace)

    async def client_for(self, cluster: dict[str, Any], *, pull_through_proxy: bool = False) -> Client:
        """The client of a member cluster (raises MemberCredentialsError when it cannot be built)."""
        name = (cluster.get("metadata") or {}).get("name", "")
        pull = (cluster.get("spec") or {}).get("syncMode") == ClusterSyncMode.PULL
        if pull and pull_through_proxy and self._hub is not None:
            config = proxied_config(self._hub, name)
            fingerprint = "proxy " + config.server
        else:
            secret = await self._secret(cluster)
            config = member_config(cluster, secret)
            fingerprint = hashlib.sha256(
                orjson.dumps([config.server, (secret or {}).get("data"), config.insecure_skip_tls_verify])
            ).hexdigest()
        cached = self._clients.get(name)
        if cached is not None and cached[0] == fingerprint:
            return cached[1]
        if cached is not None:
            await cached[1].close()
        client = Client(
            config,
            field_manager=self._field_manager,
            timeout=self._timeout,
            user_agent="flotilla-controller-manager",
        )
        self._clients[name] = (fingerprint, client)
        return client

    async def forget(self, name: str) -> None:
        cached = self._clients.pop(name, None)
        if cached is not None:
            await cached[1].close()

    async def close(self) -> None:
        for _, client in self._clients.values():
            await client.close()
        self._clients.clear()


class LocalMemberClient:
    """The member an agent runs beside: one cluster's client, given, and no other cluster's.

    The client outlives the agent's hub sessions (a certificate renewal replaces the hub client,
    not the member's), so `forget` keeps it and only `close` closes it.
    """

    def __init__(self, cluster_name: str, client: Client) -> None:
        self.cluster_name = cluster_name
        self.client = client

    async def client_for(self, cluster: dict[str, Any], *, pull_through_proxy: bool = False) -> Client:
        name = (cluster.get("metadata") or {}).get("name", "")
        if name != self.cluster_name:
            raise MemberCredentialsError(
                f"cluster {name} is not reachable from the agent of cluster {self.cluster_name}"
            )
        return self.client

    async def forget(self, name: str) -> None:
        return None

    async def close(self) -> None:
        await self.client.close()
