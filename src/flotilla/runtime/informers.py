"""Shared informers: one list+watch per kind (and namespace), shared by every controller that reads it."""

from __future__ import annotations

import asyncio

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client
from flotilla.client.informer import Informer


class SharedInformers:
    def __init__(self, client: Client, *, watch_timeout: int = 300) -> None:
        self._client = client
        self._informers: dict[tuple[GroupVersionKind, str], Informer] = {}
        self._started = False
        self._watch_timeout = watch_timeout

    def get(self, gvk: GroupVersionKind, namespace: str = "") -> Informer:
        """The informer of a kind; created on first use (started at once if the factory already runs)."""
        key = (gvk, namespace)
        informer = self._informers.get(key)
        if informer is None:
            informer = Informer(self._client, gvk, namespace=namespace, watch_timeout=self._watch_timeout)
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
