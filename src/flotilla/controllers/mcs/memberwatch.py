"""Watches on member clusters for the multi-cluster service controllers: one informer per (cluster, kind).

The process's shared `MemberInformers` watch only what Works delivered (the `karmada.io/managed`
label) or call no handlers; multi-cluster services need whole kinds of a member — its
ServiceExports, Services, EndpointSlices, Namespaces, ServiceImports — with their events, so each
controller keeps its own here. An informer starts the first time it is asked for, is replaced when
the cluster's client changes (new endpoint or credentials) and is stopped when the cluster goes;
its events reach the controller's handler with the cluster's name. Informers are asked for only
while multi-cluster services are in use, so a hub without any costs the members nothing but one
watch of the kind that turns them on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.informer import Informer
from flotilla.runtime.hubcontroller import ControllerContext
from flotilla.runtime.members import MemberClientProvider

MemberHandler = Callable[[str, GroupVersionKind, dict[str, Any] | None, dict[str, Any] | None], None]
"""(cluster, kind, new object, old object): called for every event of a member informer."""


def reaches(ctx: ControllerContext, cluster: Mapping[str, Any]) -> bool:
    """Whether multi-cluster services in this process take `cluster` in: in the controller manager every
    member, a Pull one through the hub's cluster proxy (its agent's tunnel); elsewhere what the
    process reaches anyway."""
    return ctx.reaches(cluster) or ctx.sync_mode == ClusterSyncMode.PUSH


def cluster_ready(cluster: Mapping[str, Any]) -> bool:
    """Whether the hub says the member is Ready (a member that is not neither exports nor imports)."""
    conditions = (cluster.get("status") or {}).get("conditions") or []
    return any(
        c.get("type") == constants.CLUSTER_CONDITION_READY and c.get("status") == "True" for c in conditions
    )


class MemberWatches:
    def __init__(
        self, members: MemberClientProvider, handler: MemberHandler, *, watch_timeout: int = 300
    ) -> None:
        self._members = members
        self._handler = handler
        self._watch_timeout = watch_timeout
        self._informers: dict[tuple[str, GroupVersionKind], Informer] = {}
        self._stopped = False

    def running(self, cluster: str, gvk: GroupVersionKind) -> Informer | None:
        """The informer of `gvk` in `cluster` if one runs (never starts one)."""
        return self._informers.get((cluster, gvk))

    async def informer(self, cluster: Mapping[str, Any], gvk: GroupVersionKind) -> Informer:
        """The running informer of every `gvk` object of `cluster` (`MemberCredentialsError` without
        credentials)."""
        name = str((cluster.get("metadata") or {}).get("name") or "")
        client = await self._members.client_for(dict(cluster), pull_through_proxy=True)
        existing = self._informers.get((name, gvk))
        if existing is not None and existing.client is client:
            return existing
        informer = Informer(client, gvk, watch_timeout=self._watch_timeout)

        def forward(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            self._handler(name, gvk, new, old)

        informer.add_handler(forward)
        self._informers[(name, gvk)] = informer
        if not self._stopped:
            informer.start()
        if existing is not None:
            await existing.stop()
        return informer

    def clusters(self) -> set[str]:
        return {cluster for cluster, _ in self._informers}

    async def forget(self, cluster: str) -> None:
        keys = [key for key in self._informers if key[0] == cluster]
        await asyncio.gather(*(self._informers.pop(key).stop() for key in keys))

    async def stop(self) -> None:
        self._stopped = True
        informers = list(self._informers.values())
        self._informers.clear()
        await asyncio.gather(*(informer.stop() for informer in informers))
