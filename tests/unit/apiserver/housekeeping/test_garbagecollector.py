"""The garbage collector: its decision rules, and the collector running on an in-memory API server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.context import APIContext, APISettings
from flotilla.apiserver.housekeeping.bootstrap import ensure_default_namespaces
from flotilla.apiserver.housekeeping.garbagecollector import KEEP, Decision, GarbageCollector, Verdict, decide
from flotilla.apiserver.housekeeping.ownergraph import OwnerReference
from flotilla.apiserver.registry.resources import ResourceRegistry, ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject, WatchCache
from flotilla.apiserver.writes.deletion import DeleteOptions, delete_object
from flotilla.apiserver.writes.pipeline import create_object, system_options, update_flow
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async

A = OwnerReference("v1", "ConfigMap", "a", "u-a")
B = OwnerReference("v1", "ConfigMap", "b", "u-b")


def judged(*verdicts: tuple[OwnerReference, Verdict], **facts: Any) -> Decision:
    options: dict[str, Any] = {
        "finalizers": [],
        "has_dependents": False,
        "dependent_deleting_dependents": False,
    }
    return decide(verdicts, **{**options, **facts})


# -- the rules ---------------------------------------------------------------------------------


def test_a_dependent_with_present_owners_is_kept() -> None:
    """Solid owners only: nothing to do."""
    assert judged((A, Verdict.SOLID), (B, Verdict.SOLID)) is KEEP


def test_a_dependent_with_one_present_owner_only_loses_the_absent_one() -> None:
    """A solid owner keeps the dependent; references to absent and foreground-deleting owners go."""
    assert judged((A, Verdict.SOLID), (B, Verdict.DANGLING)) == Decision(remove_owners=frozenset({"u-b"}))
    assert judged((A, Verdict.WAITING), (B, Verdict.SOLID)) == Decision(remove_owners=frozenset({"u-a"}))


def test_a_dependent_whose_owners_are_all_absent_is_deleted_in_the_background() -> None:
    """No owner left: Background deletion, so its own dependents follow."""
    assert judged((A, Verdict.DANGLING), (B, Verdict.DANGLING)) == Decision(propagation="Background")


def test_an_orphaned_dependent_keeps_its_own_deletion_finalizer() -> None:
    """A dependent already carrying orphan or foregroundDeletion is deleted with that policy."""
    assert judged((A, Verdict.DANGLING), finalizers=["orphan"]).propagation == "Orphan"
    assert judged((A, Verdict.DANGLING), finalizers=["foregroundDeletion"]).propagation == "Foreground"


def test_a_dependent_with_dependents_of_a_foreground_owner_is_deleted_in_the_foreground() -> None:
    """A waiting owner makes a dependent that owns others go in the foreground too."""
    assert judged((A, Verdict.WAITING), has_dependents=True) == Decision(propagation="Foreground")
    assert judged((A, Verdict.WAITING), has_dependents=False) == Decision(propagation="Background")


def test_a_foreground_chain_with_a_deleting_dependent_is_unblocked_first() -> None:
    """When a dependent of the dependent is itself deleting dependents, references are unblocked (cycles)."""
    decision = judged((A, Verdict.WAITING), has_dependents=True, dependent_deleting_dependents=True)
    assert decision == Decision(unblock=True, propagation="Foreground")


def test_the_first_unresolvable_reference_decides_alone() -> None:
    """As kube stops at its first error: unresolvable → retry, invalid → leave alone, whatever follows."""
    assert judged((A, Verdict.UNRESOLVABLE), (B, Verdict.DANGLING)) == Decision(retry=True)
    assert judged((A, Verdict.INVALID), (B, Verdict.UNRESOLVABLE)) == Decision(invalid=A)
    assert judged((A, Verdict.DANGLING), (B, Verdict.UNRESOLVABLE)) == Decision(retry=True)


# -- the collector on an in-memory API server ----------------------------------------------------

CONFIGMAP = GroupVersionKind("", "v1", "ConfigMap")


class Harness:
    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.collector: GarbageCollector | None = None

    def served(self, gvk: GroupVersionKind = CONFIGMAP) -> ServedResource:
        found = self.ctx.registry.by_kind(gvk)
        assert found is not None
        return found

    def start_collector(self) -> GarbageCollector:
        self.collector = GarbageCollector(self.ctx)
        self.collector.start()
        return self.collector

    async def configmap(
        self,
        name: str,
        *owners: CachedObject | dict[str, Any],
        namespace: str = "default",
        blocking: bool = False,
        finalizers: tuple[str, ...] = (),
    ) -> CachedObject:
        meta: dict[str, Any] = {"name": name, "namespace": namespace}
        if owners:
            meta["ownerReferences"] = [reference(owner, blocking=blocking) for owner in owners]
        if finalizers:
            meta["finalizers"] = list(finalizers)
        obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
        return await create_object(self.ctx, self.served(), obj, system_options("test"))

    async def delete(self, item: CachedObject, policy: str) -> None:
        await delete_object(self.ctx, self.served(), item.namespace, item.name, DeleteOptions(False, policy))

    async def drop_finalizers(self, item: CachedObject) -> None:
        def compute(current: CachedObject) -> dict[str, Any]:
            obj = current.copy()
            obj["metadata"].pop("finalizers", None)
            return obj

        info = RequestInfo("", "v1", item.namespace, "configmaps", item.name, "", "patch")
        await update_flow(self.ctx, self.served(), info, system_options("test"), compute)

    def get(self, item: CachedObject) -> CachedObject | None:
        return self.ctx.cache.get(item.key)

    def gone(self, item: CachedObject) -> bool:
        return self.get(item) is None

    def events(self, namespace: str) -> list[CachedObject]:
        return self.ctx.cache.list("/registry/core/events/", namespace)


def reference(owner: CachedObject | dict[str, Any], *, blocking: bool = False) -> dict[str, Any]:
    if isinstance(owner, dict):
        return owner
    return {
        "apiVersion": owner.obj["apiVersion"],
        "kind": owner.obj["kind"],
        "name": owner.name,
        "uid": owner.metadata["uid"],
        "blockOwnerDeletion": blocking,
    }


async def quiet(api: Harness) -> None:
    """Wait until the collector has reconciled every change so far (negative checks): from then on,
    what it has not done it will not do, which no fixed wait could promise."""
    collector = api.collector
    assert collector is not None
    await eventually_async(
        lambda: api.ctx.cache.revision == api.ctx.backend.current_revision() and collector.queue.idle,
        what="the collector has caught up",
    )


@pytest.fixture
async def api() -> AsyncIterator[Harness]:
    backend = MemoryBackend()
    await backend.start()
    cache = WatchCache(backend)
    await cache.start()
    ctx = APIContext(backend, cache, ResourceRegistry(), APISettings())
    await ensure_default_namespaces(ctx)
    harness = Harness(ctx)
    yield harness
    if harness.collector is not None:
        await harness.collector.stop()
    await cache.stop()
    await backend.close()


async def test_background_deletion_collects_a_three_level_chain(api: Harness) -> None:
    """Deleting the top of owner → child → grandchild in the background removes all three."""
    api.start_collector()
    top = await api.configmap("top")
    child = await api.configmap("child", top)
    grandchild = await api.configmap("grandchild", child)
    await api.delete(top, "Background")
    await eventually_async(lambda: api.gone(child) and api.gone(grandchild))


async def test_a_dependent_whose_owner_uid_matches_nothing_is_collected(api: Harness) -> None:
    """A reference to a namesake with another uid is dangling: the dependent goes."""
    api.start_collector()
    await api.configmap("owner")
    fake = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "not-the-owner"}
    dependent = await api.configmap("dependent", fake)
    await eventually_async(lambda: api.gone(dependent))


async def test_a_dependent_with_two_owners_survives_one_of_them(api: Harness) -> None:
    """Deleting one of two owners only removes the reference to it."""
    api.start_collector()
    first = await api.configmap("first")
    second = await api.configmap("second")
    shared = await api.configmap("shared", first, second)
    await api.delete(first, "Background")

    def references() -> list[str]:
        current = api.get(shared)
        assert current is not None
        return [ref["uid"] for ref in current.metadata.get("ownerReferences") or []]

    await eventually_async(lambda: references() == [second.metadata["uid"]])


async def test_orphan_deletion_keeps_dependents_without_the_reference(api: Harness) -> None:
    """Orphan: dependents stay with the reference removed, then the owner goes."""
    api.start_collector()
    owner = await api.configmap("owner")
    dependents = [await api.configmap(f"dep-{i}", owner, blocking=True) for i in range(3)]
    await api.delete(owner, "Orphan")
    await eventually_async(lambda: api.gone(owner))
    for dependent in dependents:
        current = api.get(dependent)
        assert current is not None and "ownerReferences" not in current.metadata


async def test_foreground_deletion_waits_for_a_blocking_dependent(api: Harness) -> None:
    """The owner stays while a blocking dependent held by a finalizer exists, and goes after it."""
    api.start_collector()
    owner = await api.configmap("owner")
    held = await api.configmap("held", owner, blocking=True, finalizers=("example.com/hold",))
    loose = await api.configmap("loose", owner)
    await api.delete(owner, "Foreground")

    def held_is_deleting() -> bool:
        current = api.get(held)
        return current is not None and bool(current.metadata.get("deletionTimestamp"))

    await eventually_async(lambda: held_is_deleting() and api.gone(loose))
    await quiet(api)
    waiting = api.get(owner)
    assert waiting is not None and waiting.metadata["finalizers"] == ["foregroundDeletion"]
    await api.drop_finalizers(held)
    await eventually_async(lambda: api.gone(owner))


async def test_foreground_deletion_of_a_chain_goes_bottom_up(api: Harness) -> None:
    """A blocking middle dependent is deleted in the foreground, so it waits for its own dependent."""
    api.start_collector()
    top = await api.configmap("top")
    middle = await api.configmap("middle", top, blocking=True)
    bottom = await api.configmap("bottom", middle, blocking=True, finalizers=("example.com/hold",))
    await api.delete(top, "Foreground")

    def middle_waits() -> bool:
        current = api.get(middle)
        return current is not None and "foregroundDeletion" in (current.metadata.get("finalizers") or [])

    await eventually_async(middle_waits)
    await quiet(api)
    assert api.get(top) is not None
    await api.drop_finalizers(bottom)
    await eventually_async(lambda: api.gone(top) and api.gone(middle) and api.gone(bottom))


async def test_objects_stored_before_the_collector_starts_are_collected(api: Harness) -> None:
    """At start, a dependent whose owners are all gone is collected without any new event."""
    owner = await api.configmap("owner")
    dependent = await api.configmap("dependent", owner)
    keeper = await api.configmap("keeper")
    kept = await api.configmap("kept", keeper)
    await api.delete(owner, "Background")
    assert api.get(dependent) is not None
    api.start_collector()
    await eventually_async(lambda: api.gone(dependent))
    assert api.get(kept) is not None


async def test_an_orphan_deletion_pending_at_start_is_finished(api: Harness) -> None:
    """An owner left with the orphan finalizer before the collector ran is orphaned and removed at start."""
    owner = await api.configmap("owner")
    dependent = await api.configmap("dependent", owner)
    await api.delete(owner, "Orphan")
    api.start_collector()
    await eventually_async(lambda: api.gone(owner))
    current = api.get(dependent)
    assert current is not None and "ownerReferences" not in current.metadata


async def test_an_owner_in_another_namespace_does_not_count(api: Harness) -> None:
    """A reference never crosses namespaces: the dependent goes, and a Warning event says why."""
    api.start_collector()
    owner = await api.configmap("owner", namespace="kube-public")
    dependent = await api.configmap("dependent", owner)
    await eventually_async(lambda: api.gone(dependent))
    events = [e.obj for e in api.events("default")]
    assert [e["reason"] for e in events] == ["OwnerRefInvalidNamespace"]
    assert events[0]["involvedObject"]["name"] == "dependent"
    assert events[0]["message"].endswith('does not exist in namespace "default"')


async def test_a_cluster_scoped_dependent_of_a_namespaced_owner_is_left_alone(api: Harness) -> None:
    """As in kube, the reference can never resolve: the dependent stays and an event is reported."""
    api.start_collector()
    owner = await api.configmap("owner")
    namespace = api.served(GroupVersionKind("", "v1", "Namespace"))
    obj = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "owned-namespace", "ownerReferences": [reference(owner)]},
    }
    dependent = await create_object(api.ctx, namespace, obj, system_options("test"))
    await eventually_async(lambda: len(api.events("default")) == 1)
    await api.delete(owner, "Background")
    await quiet(api)
    assert api.get(dependent) is not None
    assert api.events("default")[0].obj["involvedObject"] == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "name": "owned-namespace",
        "uid": dependent.metadata["uid"],
    }


async def test_a_dependent_of_an_unserved_kind_is_left_alone(api: Harness) -> None:
    """An owner whose kind is not served cannot be judged absent, so the dependent stays."""
    api.start_collector()
    unknown = {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "u-w"}
    dependent = await api.configmap("dependent", unknown)
    await quiet(api)
    assert api.get(dependent) is not None


async def test_a_dependent_waiting_on_its_own_dependents_stops_blocking_its_owner(api: Harness) -> None:
    """A dependent whose dependent deletes in the foreground unblocks its references; its owner goes."""
    api.start_collector()
    top = await api.configmap("top")
    middle = await api.configmap("middle", top, blocking=True)
    lower = await api.configmap("lower", middle, blocking=True)
    bottom = await api.configmap("bottom", lower, blocking=True, finalizers=("example.com/hold",))
    await api.delete(lower, "Foreground")
    await api.delete(top, "Foreground")
    await eventually_async(lambda: api.gone(top))
    current = api.get(middle)
    assert current is not None and current.metadata.get("deletionTimestamp")
    assert current.metadata["ownerReferences"][0]["blockOwnerDeletion"] is False
    await api.drop_finalizers(bottom)
    await eventually_async(lambda: api.gone(middle) and api.gone(lower) and api.gone(bottom))
