"""What only the etcd backend has: its key layout, endpoint failover and a lost etcd.

The contract itself is held against etcd by the property tests (the `etcd` kind); these run on the
same shared member (`backends.shared_etcd`).
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from flotilla.storage.backend import CompactedError, StorageError
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings, parse_endpoints
from tests.support.waiting import eventually_async
from tests.unit.storage.backends import shared_etcd
from tests.unit.storage.etcdserver import ETCD, MISSING_REASON

pytestmark = pytest.mark.skipif(ETCD is None, reason=MISSING_REASON)


def dead_endpoint() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
async def hub_backend() -> AsyncIterator[EtcdBackend]:
    """A backend as the API server opens it: keys under /registry, in etcd under a prefix of its own."""
    backend = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=f"/hub-{uuid.uuid4().hex}"))
    await backend.start()
    yield backend
    await backend.close()


async def test_the_prefix_takes_the_place_of_the_registry_root(hub_backend: EtcdBackend) -> None:
    """/registry/core/configmaps/ns/a is stored at <prefix>/core/configmaps/ns/a and read back as it was."""
    revision = await hub_backend.create("/registry/core/configmaps/ns/a", b"{}")
    prefix = hub_backend._settings.prefix
    raw = shared_etcd().ctl("get", f"{prefix}/core/configmaps/ns/a", "--print-value-only").stdout
    assert raw.strip() == b"{}"
    page = await hub_backend.range("/registry/core/configmaps/")
    assert [kv.key for kv in page.kvs] == ["/registry/core/configmaps/ns/a"]
    assert page.kvs[0].mod_revision == revision


async def test_keys_outside_the_registry_root_are_refused(hub_backend: EtcdBackend) -> None:
    with pytest.raises(StorageError, match="outside the store's root"):
        await hub_backend.create("/elsewhere/x", b"")


async def test_reads_and_writes_fail_over_to_the_next_endpoint() -> None:
    """With the first endpoint dead the backend starts on the next one; later calls stay there."""
    settings = EtcdSettings(
        (dead_endpoint(), shared_etcd().url), prefix=f"/t-{uuid.uuid4().hex}", request_timeout=5
    )
    backend = EtcdBackend(settings, root="")
    await backend.start()
    try:
        revision = await backend.create("/k", b"v")
        kv = await backend.get("/k")
        assert kv is not None and kv.mod_revision == revision
    finally:
        await backend.close()


async def test_an_unreachable_etcd_is_a_prompt_storage_error() -> None:
    """No member answers: start fails with a StorageError naming the endpoint, well within the deadline."""
    url = dead_endpoint()
    backend = EtcdBackend(EtcdSettings((url,), request_timeout=3), root="")
    started = time.monotonic()
    with pytest.raises(StorageError, match=url.removeprefix("http://")):
        await backend.start()
    await backend.close()
    assert time.monotonic() - started < 10


async def test_a_watch_from_before_an_outside_compaction_is_compacted(hub_backend: EtcdBackend) -> None:
    """Another process compacted etcd: a watch from before that point fails, it does not replay part."""
    first = await hub_backend.create("/registry/k", b"1")
    second = await hub_backend.update("/registry/k", b"2", mod_revision=first)
    shared_etcd().ctl("compact", str(second))
    with pytest.raises(CompactedError):
        await anext(hub_backend.watch("/registry/", after_revision=first))
    with pytest.raises(CompactedError):
        await hub_backend.history(
            "/registry/", after_revision=first, until_revision=second, max_bytes=1 << 20
        )


async def test_the_current_revision_follows_writes_through_another_process(hub_backend: EtcdBackend) -> None:
    """Two backends on one prefix (two API servers): one's current revision moves with the other's writes."""
    other = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=hub_backend._settings.prefix))
    await other.start()
    try:
        revision = await other.create("/registry/from-the-other", b"")
        await eventually_async(
            hub_backend.current_revision, until=lambda seen: seen == revision, what="the other's revision"
        )
    finally:
        await other.close()


async def test_history_holds_no_event_of_another_prefix_sharing_etcd(hub_backend: EtcdBackend) -> None:
    """Two hubs on one etcd, prefixes of the same length: a history page holds only its own hub's writes."""
    neighbour = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=f"/hub-{uuid.uuid4().hex}"))
    await neighbour.start()
    try:
        start = hub_backend.current_revision()
        await neighbour.create("/registry/core/configmaps/ns/theirs", b"n")
        mine = await hub_backend.create("/registry/core/configmaps/ns/mine", b"m")
        page = await hub_backend.history(
            "/registry/core/configmaps/", after_revision=start, until_revision=mine, max_bytes=1 << 20
        )
        assert [(event.kv.key, event.revision) for event in page] == [
            ("/registry/core/configmaps/ns/mine", mine)
        ]
    finally:
        await neighbour.close()


async def test_a_watch_of_the_whole_store_stands_in_for_the_revision_follower(
    hub_backend: EtcdBackend,
) -> None:
    """While a watch of the whole store is open (the watch cache's), the follower's stream is closed
    and the current revision still moves with another process's writes; it resumes when that ends."""
    other = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=hub_backend._settings.prefix))
    await other.start()
    watch = hub_backend.watch("/registry/", after_revision=hub_backend.current_revision())
    try:
        first = await other.create("/registry/core/configmaps/ns/covered", b"")
        batch = await anext(watch)
        assert batch[-1].revision == first and hub_backend.current_revision() >= first
        assert hub_backend._following is None
        second = await other.create("/registry/core/configmaps/ns/covered-2", b"")
        await anext(watch)
        assert hub_backend.current_revision() >= second
        await watch.aclose()
        await eventually_async(lambda: hub_backend._following is not None, what="the follower resuming")
        third = await other.create("/registry/core/configmaps/ns/after", b"")
        await eventually_async(
            hub_backend.current_revision, until=lambda seen: seen >= third, what="the other's revision"
        )
    finally:
        await watch.aclose()
        await other.close()


def test_endpoint_urls_are_checked() -> None:
    assert [e.target for e in parse_endpoints("https://a:2379, http://b:4001")] == ["a:2379", "b:4001"]
    assert parse_endpoints("127.0.0.1:2379")[0].secure is False
    with pytest.raises(ValueError, match="not an http"):
        parse_endpoints("unix:///run/etcd.sock")
    with pytest.raises(ValueError, match="no etcd endpoint"):
        parse_endpoints(" , ")


async def test_the_latest_revision_counts_another_processes_write_at_once(hub_backend: EtcdBackend) -> None:
    """A write through another backend on the same prefix: `latest_revision` includes it at once,
    however late the news reaches `current_revision` (here: never, the follower watch is stopped)."""
    assert hub_backend._follower is not None
    hub_backend._follower.cancel()
    other = EtcdBackend(hub_backend._settings)
    await other.start()
    try:
        for index in range(5):
            written = await other.create(f"/registry/core/configmaps/ns/latest-{index}", b"{}")
            assert hub_backend.current_revision() < written
            assert await hub_backend.latest_revision() >= written
    finally:
        await other.close()
