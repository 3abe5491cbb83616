"""Storage latency as kube-apiserver reports it: `etcd_request_duration_seconds{operation,type}`.

kube times every call its storage layer makes to etcd, and names the histogram after etcd whatever
the store, so its dashboards' storage panels work on any backend; `TimedBackend` does the same for
whichever backend this server runs on (SQLite or etcd). It wraps the backend the object store
writes and lists through: gets, lists (ranges), creates, updates, deletes and compactions are
timed; the watch cache's single watch stream and its history pages are not requests a client
waits on, and are left alone.

`type` is the stored resource, as kube names it (`deployments.apps`, `pods`), read from the key
(`/registry/<group or core>/<resource>/…`), so the label has one value per stored resource.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

from prometheus_client import Histogram

from flotilla.storage import Backend, Event, KeyValue, RangeResult

STORAGE_BUCKETS = (
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
)  # fmt: skip
"""kube's buckets for `etcd_request_duration_seconds` (the same as its request latency's)."""

Observe = Callable[[float], None]


def stored_resource(key: str) -> str:
    """The resource a storage key or prefix belongs to, as kube labels it (`deployments.apps`)."""
    parts = key.split("/", 4)
    if len(parts) < 4 or parts[1] != "registry" or not parts[3]:
        return ""
    group, resource = parts[2], parts[3]
    return resource if group in ("core", "") else f"{resource}.{group}"


class StorageLatency:
    """The histogram, with one child per (operation, type) kept at hand: the write path pays a dict
    lookup and an observation, not prometheus_client's label validation."""

    def __init__(self, histogram: Histogram) -> None:
        self.histogram = histogram
        self._children: dict[tuple[str, str], Observe] = {}

    def observer(self, operation: str, key: str) -> Observe:
        label = (operation, stored_resource(key))
        child = self._children.get(label)
        if child is None:
            child = self._children[label] = self.histogram.labels(*label).observe
        return child


def storage_latency_histogram() -> Histogram:
    return Histogram(
        "etcd_request_duration_seconds",
        "Storage request latency in seconds for each operation and object type (on any backend).",
        ["operation", "type"],
        buckets=STORAGE_BUCKETS,
        registry=None,
    )


class TimedBackend:
    """A `Backend` that times the calls a request waits on, then does what `inner` does."""

    def __init__(self, inner: Backend, latency: StorageLatency) -> None:
        self.inner = inner
        self._latency = latency

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        await self.inner.close()

    def current_revision(self) -> int:
        return self.inner.current_revision()

    async def latest_revision(self) -> int:
        return await self.inner.latest_revision()

    def compact_revision(self) -> int:
        return self.inner.compact_revision()

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        started = time.perf_counter()
        try:
            return await self.inner.get(key, revision=revision)
        finally:
            self._latency.observer("get", key)(time.perf_counter() - started)

    async def range(
        self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0
    ) -> RangeResult:
        started = time.perf_counter()
        try:
            return await self.inner.range(prefix, start_after=start_after, limit=limit, revision=revision)
        finally:
            self._latency.observer("list", prefix)(time.perf_counter() - started)

    async def create(self, key: str, value: bytes) -> int:
        started = time.perf_counter()
        try:
            return await self.inner.create(key, value)
        finally:
            self._latency.observer("create", key)(time.perf_counter() - started)

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        started = time.perf_counter()
        try:
            return await self.inner.update(key, value, mod_revision=mod_revision)
        finally:
            self._latency.observer("update", key)(time.perf_counter() - started)

    async def delete(self, key: str, *, mod_revision: int) -> int:
        started = time.perf_counter()
        try:
            return await self.inner.delete(key, mod_revision=mod_revision)
        finally:
            self._latency.observer("delete", key)(time.perf_counter() - started)

    def watch(self, prefix: str, *, after_revision: int) -> AsyncIterator[list[Event]]:
        return self.inner.watch(prefix, after_revision=after_revision)

    async def history(
        self, prefix: str, *, after_revision: int, until_revision: int, max_bytes: int
    ) -> list[Event]:
        return await self.inner.history(
            prefix, after_revision=after_revision, until_revision=until_revision, max_bytes=max_bytes
        )

    async def compact(self, revision: int) -> int:
        started = time.perf_counter()
        try:
            return await self.inner.compact(revision)
        finally:
            self._latency.observer("compact", "")(time.perf_counter() - started)
