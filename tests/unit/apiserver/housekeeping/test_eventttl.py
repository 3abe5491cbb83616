"""Event expiry deletes events whose last occurrence is older than the TTL, and only those."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.eventttl import EventExpiry, last_seen
from flotilla.storage.memory import MemoryBackend

EVENT = GroupVersionKind("", "v1", "Event")


def event(name: str, last: datetime) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Started",
        "message": "started",
        "type": "Normal",
        "lastTimestamp": last.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "firstTimestamp": last.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def test_last_seen_prefers_last_timestamp_then_event_time_then_creation() -> None:
    """The age of an event is read from lastTimestamp, else eventTime, else creationTimestamp."""
    assert last_seen({"lastTimestamp": "2026-01-01T00:00:00Z"}) == datetime(2026, 1, 1, tzinfo=UTC)
    assert last_seen({"eventTime": "2026-01-02T00:00:00.000000Z"}) == datetime(2026, 1, 2, tzinfo=UTC)
    assert last_seen({"metadata": {"creationTimestamp": "2026-01-03T00:00:00Z"}}) == datetime(
        2026, 1, 3, tzinfo=UTC
    )
    assert last_seen({}) is None


async def test_expired_events_are_deleted_and_recent_ones_kept() -> None:
    """With a one-hour TTL an event last seen two hours ago goes and one from a minute ago stays."""
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    try:
        now = datetime.now(UTC)
        client = api.client("test")
        await client.create(EVENT, event("old", now - timedelta(hours=2)))
        await client.create(EVENT, event("new", now - timedelta(minutes=1)))
        expiry = EventExpiry(api.context, timedelta(hours=1))
        assert await expiry.expire_once() == 1
        assert [e["metadata"]["name"] for e in client.list(EVENT, namespace="default")] == ["new"]
    finally:
        await api.stop()
