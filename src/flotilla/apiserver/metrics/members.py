"""Asking every Ready member for its metrics, in parallel, through the hub's own cluster proxy.

The members are asked as the hub (its admin credentials against its own proxy, which forwards to a
Push member with the member's credentials and to a Pull member through its agent's tunnel), as
Karmada's adapter asks them with the cluster credentials the hub holds: the caller was already
authorized on the hub, and a user needs no rights inside any member to read its usage. Each member
gets `member_timeout` seconds; one that is not Ready, is being deleted, times out or answers with
an error is left out (logged), and a 404 from a get by name means "not here".
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

import structlog

from flotilla.api.karmada.constants import CLUSTER_CONDITION_READY
from flotilla.apiserver.metrics.merging import MemberAnswer
from flotilla.client import Client, ClientError, ClusterConfig, NotFound
from flotilla.runtime.members import proxied_config

log = structlog.get_logger("flotilla.apiserver.metrics")

USER_AGENT = "flotilla-metrics-adapter"


def ready_clusters(clusters: Iterable[Mapping[str, Any]]) -> list[str]:
    """The names of the Clusters whose Ready condition is True and that are not being deleted, sorted."""
    names = []
    for cluster in clusters:
        metadata = cluster.get("metadata") or {}
        if metadata.get("deletionTimestamp"):
            continue
        for condition in (cluster.get("status") or {}).get("conditions") or ():
            if condition.get("type") == CLUSTER_CONDITION_READY and condition.get("status") == "True":
                names.append(str(metadata.get("name", "")))
                break
    return sorted(name for name in names if name)


class MemberMetrics:
    """Clients of the members through the hub's proxy (one per member, kept while it is Ready)."""

    def __init__(self, hub: ClusterConfig, member_timeout: float) -> None:
        self.hub = hub
        self.member_timeout = member_timeout
        self._clients: dict[str, Client] = {}

    def _client(self, cluster: str) -> Client:
        client = self._clients.get(cluster)
        if client is None:
            config = proxied_config(self.hub, cluster)
            client = self._clients[cluster] = Client(
                config, user_agent=USER_AGENT, timeout=self.member_timeout
            )
        return client

    async def _forget_others(self, clusters: list[str]) -> None:
        for name in [name for name in self._clients if name not in clusters]:
            await self._clients.pop(name).close()

    async def _ask(self, cluster: str, path: str, query: Mapping[str, str]) -> MemberAnswer | None:
        try:
            answer = await asyncio.wait_for(
                self._client(cluster).request("GET", path, query=query, timeout=self.member_timeout),
                self.member_timeout,
            )
        except NotFound:
            return None
        except (ClientError, TimeoutError, OSError) as exc:
            log.info(
                "metrics.member_skipped", cluster=cluster, path=path, error=str(exc) or type(exc).__name__
            )
            return None
        if not isinstance(answer, Mapping):
            log.info("metrics.member_skipped", cluster=cluster, path=path, error="not a JSON object")
            return None
        return cluster, answer

    async def ask_all(self, clusters: list[str], path: str, query: Mapping[str, str]) -> list[MemberAnswer]:
        """`GET path?query` of every member in `clusters`; the answers of those that gave one, in order."""
        await self._forget_others(clusters)
        answers = await asyncio.gather(*(self._ask(cluster, path, query) for cluster in clusters))
        return [answer for answer in answers if answer is not None]

    async def close(self) -> None:
        await self._forget_others([])
