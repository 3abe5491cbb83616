"""The per-session list cache: a copy expires after its TTL unless a live stream keeps it current."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.dashboard.listcache import ListCache

KIND = GroupVersionKind("work.karmada.io", "v1alpha2", "ResourceBinding")


def item(name: str, note: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "ns"}, "note": note}


class FakeHub:
    """Answers lists from a dict and counts them: the cache's own logic is under test, not a hub."""

    def __init__(self) -> None:
        self.objects = {"a": item("a"), "b": item("b")}
        self.lists = 0

    async def list(self, gvk: GroupVersionKind, **_: Any) -> tuple[list[dict[str, Any]], str]:
        self.lists += 1
        return list(self.objects.values()), str(self.lists)


async def test_a_copy_is_reused_within_its_ttl_and_read_again_after() -> None:
    now = [0.0]
    cache, hub = ListCache(ttl=2, clock=lambda: now[0]), FakeHub()
    assert len(await cache.items("s", hub, KIND)) == 2  # type: ignore[arg-type]
    await cache.items("s", hub, KIND)  # type: ignore[arg-type]
    assert hub.lists == 1
    now[0] = 3
    await cache.items("s", hub, KIND)  # type: ignore[arg-type]
    assert hub.lists == 2
    await cache.items("other-session", hub, KIND)  # type: ignore[arg-type]
    assert hub.lists == 3


async def test_a_followed_copy_follows_watch_events_and_does_not_expire() -> None:
    now = [0.0]
    cache, hub = ListCache(ttl=2, clock=lambda: now[0]), FakeHub()
    assert await cache.follow("s", hub, KIND) == "1"  # type: ignore[arg-type]
    cache.apply("s", KIND, "ADDED", item("c"))
    cache.apply("s", KIND, "MODIFIED", item("a", "changed"))
    cache.apply("s", KIND, "DELETED", item("b"))
    now[0] = 100
    cache.invalidate("s")
    found = await cache.items("s", hub, KIND)  # type: ignore[arg-type]
    assert [(x["metadata"]["name"], x["note"]) for x in found] == [("a", "changed"), ("c", "")]
    assert hub.lists == 1
    cache.unfollow("s", KIND)
    await cache.items("s", hub, KIND)  # type: ignore[arg-type]
    assert hub.lists == 2


async def test_following_reuses_a_fresh_copy_and_rereads_when_told() -> None:
    """A page opened right after another reuses the copy (its watch replays what changed since);
    after a 410 the stream asks for a fresh read."""
    now = [0.0]
    cache, hub = ListCache(ttl=2, clock=lambda: now[0]), FakeHub()
    await cache.items("s", hub, KIND)  # type: ignore[arg-type]
    assert await cache.follow("s", hub, KIND) == "1"  # type: ignore[arg-type]
    assert hub.lists == 1
    assert await cache.follow("s", hub, KIND, reread=True) == "2"  # type: ignore[arg-type]
    assert hub.lists == 2
