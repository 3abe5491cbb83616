"""Shared informers: one list+watch per kind (and namespace), shared by every controller that reads it.

A controller asks for the informer of a kind across all namespaces (`get(gvk)`); what "all" means
is the factory's business. The controller manager sees the whole hub. A Pull cluster's agent may
read only its own corner of it — the Works of its execution namespace, its own Cluster — so its
factory is built with `scopes`: the request for a kind's informer across all namespaces is then
served by an informer restricted to the scope's namespace and field selector. The same controllers
thus run unchanged in both places, and an agent never lists what RBAC forbids it.

The informers are compact (`flotilla.client.compactstore`): a hub of 100,000 Works is held as
their JSON, not as dicts six times that size, and listed a page at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

from flotilla.api.scheme import GroupVersionKind
from flotilla.client.informer import Informer
from flotilla.client.interfaces import ListerWatcher


@dataclass(frozen=True, slots=True)
class InformerScope:
    """What an informer of a kind lists and watches instead of every object of that kind."""

    namespace: str = ""
    """Only this namespace ("" for every namespace)."""
    field_selector: str = ""
    """Only objects matching this field selector (`metadata.name=<name>` for one object)."""


class SharedInformers:
    def __init__(
        self,
        client: ListerWatcher,
        *,
        watch_timeout: int = 300,
        scopes: Mapping[GroupVersionKind, InformerScope] | None = None,
        compact: bool = True,
    ) -> None:
        self._compact = compact
        self._client = client
        self._informers: dict[tuple[GroupVersionKind, str], Informer] = {}
        self._started = False
        self._watch_timeout = watch_timeout
        self._scopes = dict(scopes or {})

    def get(self, gvk: GroupVersionKind, namespace: str = "") -> Informer:
        """The informer of a kind; created on first use (started at once if the factory already runs).

        Asked for every namespace of a scoped kind, it is the scope's informer.
        """
        scope = self._scopes.get(gvk) if not namespace else None
        if scope is not None:
            namespace = scope.namespace
        key = (gvk, namespace)
        informer = self._informers.get(key)
        if informer is None:
            informer = Informer(
                self._client,
                gvk,
                namespace=namespace,
                field_selector=scope.field_selector if scope is not None else "",
                watch_timeout=self._watch_timeout,
                compact=self._compact,
            )
            self._informers[key] = informer
            if self._started:
                informer.start()
        return informer

    def start(self) -> None:
        self._started = True
        for informer in self._informers.values():
            if not informer.running:
                informer.start()

    async def wait_synced(self, timeout: float | None = None) -> None:
        await asyncio.gather(*(i.wait_synced(timeout) for i in self._informers.values()))

    async def stop(self) -> None:
        await asyncio.gather(*(i.stop() for i in self._informers.values()))
        self._started = False

    @property
    def synced(self) -> bool:
        return all(i.synced for i in self._informers.values())
