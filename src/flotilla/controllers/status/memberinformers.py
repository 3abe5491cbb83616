"""Informers on member clusters: one per (cluster, kind) that Works deliver, of managed objects only.

The work-status controller learns of member-side changes (a Deployment becoming ready, an object
deleted by hand) by watching the members themselves. An informer is started the first time a Work
delivers a kind to a cluster, lists and watches only objects labelled `karmada.io/managed=true`,
and is replaced when the cluster's client changes (new endpoint or credentials) or dropped when the
Cluster goes. Its events go to one handler, which enqueues the Work named in the object's
annotations.
"""

from __future__ import annotations

import asyncio
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.informer import Handler, Informer
from flotilla.runtime.members import MemberClientProvider

MANAGED_SELECTOR = f"{constants.MANAGED_BY_KARMADA_LABEL}=true"


class MemberInformers:
    def __init__(self, members: MemberClientProvider, handler: Handler, *, watch_timeout: int = 300) -> None:
        self._members = members
        self._handler = handler
        self._watch_timeout = watch_timeout
        self._informers: dict[tuple[str, GroupVersionKind], Informer] = {}

    async def informer(self, cluster: dict[str, Any], gvk: GroupVersionKind) -> Informer:
        """The running informer of `gvk` in `cluster`; `MemberCredentialsError` without credentials."""
        name = str((cluster.get("metadata") or {}).get("name") or "")
        client = await self._members.client_for(cluster)
        key = (name, gvk)
        existing = self._informers.get(key)
        if existing is not None and existing.client is client:
            return existing
        if existing is not None:
            await existing.stop()
        informer = Informer(client, gvk, label_selector=MANAGED_SELECTOR, watch_timeout=self._watch_timeout)
        informer.add_handler(self._handler)
        informer.start()
        self._informers[key] = informer
        return informer

    async def forget(self, cluster: str) -> None:
        """Stop the informers of a cluster that is gone."""
        keys = [key for key in self._informers if key[0] == cluster]
        await asyncio.gather(*(self._informers.pop(key).stop() for key in keys))

    async def stop(self) -> None:
        informers = list(self._informers.values())
        self._informers.clear()
        await asyncio.gather(*(informer.stop() for informer in informers))
