"""The accurate estimator's shell: how long it waits for a member's informers to list."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import WatchEvent
from flotilla.client.informer import Informer
from flotilla.controllers.cluster import probe
from flotilla.scheduler.nodesnapshots import NODE, POD, UNFINISHED_PODS, SyncWindow


class Member:
    """Lists `nodes` once `listing` is set (at once by default); its watches stay open and quiet."""

    def __init__(self, nodes: list[dict[str, Any]], *, answers: bool = True) -> None:
        self.nodes = nodes
        self.listing = asyncio.Event()
        if answers:
            self.listing.set()

    async def list(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], str]:
        await self.listing.wait()
        return (self.nodes if gvk == NODE else []), "1"

    async def list_pages(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> AsyncIterator[tuple[list[dict[str, Any]], str]]:
        yield await self.list(gvk)

    async def watch(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        timeout_seconds: int = 300,
        bookmarks: bool = True,
    ) -> AsyncIterator[WatchEvent]:
        await asyncio.Event().wait()
        yield WatchEvent("BOOKMARK", {})  # never reached: the stream stays open


async def started(member: Member) -> tuple[Informer, Informer]:
    nodes = Informer(member, NODE)
    pods = Informer(member, POD, field_selector=UNFINISHED_PODS)
    nodes.start()
    pods.start()
    return nodes, pods


async def test_a_member_that_lists_is_waited_for() -> None:
    """Informers that list within the window are reported synced."""
    member = Member([{"metadata": {"name": "a"}}])
    nodes, pods = await started(member)
    try:
        assert await SyncWindow(5.0).synced("member1", nodes, pods)
    finally:
        await nodes.stop()
        await pods.stop()


async def test_a_member_that_never_lists_costs_one_window() -> None:
    """After the window has passed, callers are told 'not synced' without waiting again."""
    member = Member([], answers=False)
    nodes, pods = await started(member)
    window = SyncWindow(0.05)
    try:
        assert not await window.synced("member1", nodes, pods)
        later = asyncio.ensure_future(window.synced("member1", nodes, pods))
        await asyncio.sleep(0)  # one turn of the loop: an answer that needs no waiting is there
        assert later.done() and not later.result()
        member.listing.set()
        await nodes.wait_synced(5)
        await pods.wait_synced(5)
        assert await window.synced("member1", nodes, pods)
    finally:
        await nodes.stop()
        await pods.stop()


async def test_new_informers_open_a_new_window() -> None:
    """Replaced informers (a new client for the member) get their own wait."""
    silent = Member([], answers=False)
    window = SyncWindow(0.05)
    old = await started(silent)
    fresh_member = Member([])
    fresh = await started(fresh_member)
    try:
        assert not await window.synced("member1", *old)
        assert await window.synced("member1", *fresh)
    finally:
        for informer in (*old, *fresh):
            await informer.stop()


def test_the_estimator_asks_for_the_informers_the_status_collection_keeps() -> None:
    """Same kinds and field selector as the cluster status collection: one watch of a member serves both."""
    assert (NODE, POD, UNFINISHED_PODS) == (probe.NODE, probe.POD, probe.UNFINISHED_PODS)
