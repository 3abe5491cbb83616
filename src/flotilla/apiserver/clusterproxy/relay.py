"""Tunnels among several API servers: which one holds a Pull cluster's tunnel, and relaying to it.

An agent's tunnel lands on one API server process; with several of them on one store (`--workers`,
`flotilla up --ha`) a proxy request for that cluster reaches any of them. The holder announces the
tunnel in the store — a Lease `karmada-cluster/flotilla-tunnel-<cluster>` whose holderIdentity is the
URL its peers reach it at — and withdraws it when the tunnel closes. A server without the tunnel
relays the request to the holder's `clusters/<name>/proxy` as itself (the hub's admin
certificate, shared by every API server of a hub) impersonating the user, so the holder
authorizes the user again and forwards through its tunnel; a relayed request carries
`RELAYED_HEADER` and is never relayed twice (two servers with briefly different views of the Lease
cannot bounce a request between them). A holder that died leaves its Lease until the agent
reconnects elsewhere and announces again; meanwhile relays answer 503.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from flotilla.api.karmada.constants import KARMADA_CLUSTER_NAMESPACE
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time
from flotilla.apiserver import errors
from flotilla.apiserver.clusterproxy.headers import RELAYED_HEADER
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.runtime.members import proxied_config

log = structlog.get_logger("flotilla.apiserver.clusterproxy")

LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
LEASE_PREFIX = "flotilla-tunnel-"
MANAGER = "flotilla-cluster-proxy"


@dataclass(frozen=True, slots=True)
class RelayCredentials:
    """How this API server reaches its peers: the hub's CA and the admin certificate every peer trusts."""

    ca_cert: Path
    client_cert: Path
    client_key: Path

    def config_for(self, holder_url: str, cluster: str) -> ClusterConfig:
        peer = ClusterConfig(
            server=holder_url,
            ca_pem=self.ca_cert.read_bytes(),
            client_cert_pem=self.client_cert.read_bytes(),
            client_key_pem=self.client_key.read_bytes(),
        )
        return proxied_config(peer, cluster)


def lease_name(cluster: str) -> str:
    return LEASE_PREFIX + cluster


def relayed(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`headers` of a request this server relays to a peer, marked so the peer relays it no further."""
    return [*headers, (RELAYED_HEADER, "1")]


class TunnelDirectory:
    """The Leases that say which API server holds each Pull cluster's tunnel."""

    def __init__(self, ctx: APIContext, own_url: str) -> None:
        self.ctx = ctx
        self.own_url = own_url
        self._client = LocalClient(ctx, MANAGER)

    def holder(self, cluster: str) -> str | None:
        """The relay URL of the API server holding `cluster`'s tunnel, as the store says (None: nobody)."""
        lease = self._client.get(LEASE, lease_name(cluster), namespace=KARMADA_CLUSTER_NAMESPACE)
        holder = ((lease or {}).get("spec") or {}).get("holderIdentity")
        return str(holder) if holder else None

    async def announce(self, cluster: str) -> None:
        """Record that this server holds `cluster`'s tunnel (a failure is logged: peers then answer 503)."""
        spec = {"holderIdentity": self.own_url, "renewTime": format_micro_time(self.ctx.clock())}
        try:
            if self._client.get(LEASE, lease_name(cluster), namespace=KARMADA_CLUSTER_NAMESPACE) is None:
                lease = {
                    "apiVersion": "coordination.k8s.io/v1",
                    "kind": "Lease",
                    "metadata": {"name": lease_name(cluster), "namespace": KARMADA_CLUSTER_NAMESPACE},
                    "spec": spec,
                }
                await self._client.create(LEASE, lease)
            else:
                await self._client.patch(
                    LEASE, lease_name(cluster), {"spec": spec}, namespace=KARMADA_CLUSTER_NAMESPACE
                )
        except errors.APIError as exc:
            log.warning("clusterproxy.tunnel_not_announced", cluster=cluster, error=str(exc))

    async def withdraw(self, cluster: str) -> None:
        """Clear the record of `cluster`'s tunnel if it is still this server's (compare and swap: a peer
        that announced meanwhile keeps its record)."""

        def clear(lease: dict[str, Any]) -> None:
            spec = lease.setdefault("spec", {})
            if spec.get("holderIdentity") != self.own_url:
                raise _HeldElsewhere
            spec.pop("holderIdentity", None)

        try:
            await self._client.mutate(LEASE, lease_name(cluster), clear, namespace=KARMADA_CLUSTER_NAMESPACE)
        except (_HeldElsewhere, errors.NotFound):
            return
        except errors.APIError as exc:
            log.info("clusterproxy.tunnel_not_withdrawn", cluster=cluster, error=str(exc))


class _HeldElsewhere(Exception):
    """The Lease names another server: nothing to withdraw."""
