"""The garbage collector: dependents follow their owners, as `ownerReferences` and deletes ask.

An object names its owners in `metadata.ownerReferences` (apiVersion, kind, name, uid). An owner
is present only if an object of that kind and name exists — in the dependent's namespace, or
cluster-wide for a cluster-scoped kind — with that very uid; a recreated namesake is not the
owner. From the `OwnerGraph` (kept current from the watch cache) the collector learns which
objects to look at; for each it re-reads the cache and does what kube-controller-manager's
garbage collector does:

- a dependent whose owners are all absent (or all deleting in the foreground) is deleted —
  Background unless it carries an `orphan` / `foregroundDeletion` finalizer, Foreground when a
  foreground-deleting owner waits on it and it has dependents of its own — so chains cascade;
- a dependent with a present owner only loses its references to absent and foreground-deleting
  owners;
- an owner deleted with the `orphan` finalizer: its references are removed from every dependent,
  then the finalizer;
- an owner deleted with the `foregroundDeletion` finalizer: its dependents are deleted first and
  the finalizer goes once no dependent with `blockOwnerDeletion: true` remains.

Like kube, a dependent naming an owner whose kind is not served is left alone and checked again
later, and a cluster-scoped dependent naming a namespaced kind is left alone for good (an owner
reference carries no namespace); an owner found by uid in another namespace is reported with an
`OwnerRefInvalidNamespace` Warning event. Deletes carry uid and resourceVersion preconditions, so
a dependent that changed since it was judged is judged again rather than deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import structlog

from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.housekeeping.ownergraph import (
    OwnerGraph,
    OwnerReference,
    deletion_finalizer,
    owner_references,
)
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent, bucket_prefix, split_key
from flotilla.apiserver.writes.deletion import (
    FOREGROUND_FINALIZER,
    ORPHAN_FINALIZER,
    DeleteOptions,
    delete_object,
)
from flotilla.apiserver.writes.pipeline import create_object, system_options, update_flow

log = structlog.get_logger("flotilla.apiserver.garbagecollector")

UNRESOLVABLE_RECHECK = 30.0
"""Seconds before a dependent naming an owner of an unserved kind is looked at again."""
EVENT_SOURCE = "garbage-collector-controller"
EVENT_GVK = GroupVersionKind("", "v1", "Event")
INVALID_NAMESPACE_REASON = "OwnerRefInvalidNamespace"


class Verdict(Enum):
    """What one owner reference of a dependent points at."""

    SOLID = "solid"
    """The owner exists and is not deleting in the foreground."""
    DANGLING = "dangling"
    """No object of that kind, name and uid exists where the owner would be."""
    WAITING = "waiting"
    """The owner is being deleted in the foreground and waits for its dependents."""
    UNRESOLVABLE = "unresolvable"
    """The owner's apiVersion and kind are not served (yet): nothing can be decided."""
    INVALID = "invalid"
    """A cluster-scoped dependent names a namespaced kind: no namespace to look in, ever."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a dependent after judging its owner references (the default: nothing)."""

    remove_owners: frozenset[str] = frozenset()
    """uids of the owners whose references are removed from the dependent."""
    unblock: bool = False
    """Clear `blockOwnerDeletion` on the dependent's references before deleting it (breaks cycles)."""
    propagation: str = ""
    """Delete the dependent with this propagation policy; "" keeps it."""
    retry: bool = False
    """An owner's kind is not served: look again later."""
    invalid: OwnerReference | None = None
    """A reference that can never resolve: the dependent is left alone."""


KEEP = Decision()


def decide(
    verdicts: Sequence[tuple[OwnerReference, Verdict]],
    *,
    finalizers: Sequence[str],
    has_dependents: bool,
    dependent_deleting_dependents: bool,
) -> Decision:
    """kube's attemptToDeleteItem rules for a dependent that is not itself being deleted.

    The first reference that cannot be resolved decides alone, as kube stops at its first error.
    """
    solid: list[OwnerReference] = []
    gone: list[OwnerReference] = []
    waiting = False
    for reference, verdict in verdicts:
        if verdict is Verdict.UNRESOLVABLE:
            return Decision(retry=True)
        if verdict is Verdict.INVALID:
            return Decision(invalid=reference)
        if verdict is Verdict.SOLID:
            solid.append(reference)
        else:
            gone.append(reference)
            waiting = waiting or verdict is Verdict.WAITING
    if not gone:
        return KEEP
    if solid:
        return Decision(remove_owners=frozenset(reference.uid for reference in gone))
    if waiting and has_dependents:
        return Decision(unblock=dependent_deleting_dependents, propagation="Foreground")
    if ORPHAN_FINALIZER in finalizers:
        return Decision(propagation="Orphan")
    if FOREGROUND_FINALIZER in finalizers:
        return Decision(propagation="Foreground")
    return Decision(propagation="Background")


def without_owners(obj: dict[str, Any], uids: frozenset[str]) -> dict[str, Any]:
    """`obj` with its references to the owners `uids` removed (the field goes when emptied)."""
    meta = obj["metadata"]
    kept = [ref for ref in meta.get("ownerReferences") or [] if ref.get("uid") not in uids]
    if kept:
        meta["ownerReferences"] = kept
    else:
        meta.pop("ownerReferences", None)
    return obj


def unblocked(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` with `blockOwnerDeletion` cleared on every owner reference that set it."""
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("blockOwnerDeletion") is True:
            ref["blockOwnerDeletion"] = False
    return obj


def without_finalizer(obj: dict[str, Any], finalizer: str) -> dict[str, Any]:
    meta = obj["metadata"]
    meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != finalizer]
    return obj


class GarbageCollector(CacheController):
    NAME = "garbage-collector"

    def __init__(self, ctx: APIContext) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.graph = OwnerGraph()

    def start(self) -> None:
        # Objects stored before this start have no events coming: index them and look at each
        # dependent and each deleting owner once.
        for key in self.graph.rebuild(self._cached_objects()):
            self.queue.add(key)
        super().start()

    def _cached_objects(self) -> Iterator[CachedObject]:
        seen: set[str] = set()
        for served in self.ctx.registry.all():
            if served.storage_prefix not in seen:
                seen.add(served.storage_prefix)
                yield from self.ctx.cache.list(served.storage_prefix)

    def keys_for(self, event: CacheEvent) -> list[Any]:
        return self.graph.observe(event)

    async def reconcile(self, key: str) -> float | None:
        await self.ctx.cache.wait_current()
        item = self.ctx.cache.get(key)
        if item is None:
            return None
        item = item.readable()  # decoded once for the whole look
        meta = item.metadata
        finalizer = deletion_finalizer(meta)
        if finalizer == ORPHAN_FINALIZER:
            await self._orphan_dependents(item)
        elif finalizer == FOREGROUND_FINALIZER:
            await self._delete_dependents_first(item)
        elif meta.get("ownerReferences") and not meta.get("deletionTimestamp"):
            return await self._judge_dependent(item)
        return None

    # -- a dependent -----------------------------------------------------------------------------

    async def _judge_dependent(self, item: CachedObject) -> float | None:
        verdicts = []
        for reference in owner_references(item.metadata):
            verdict = self._classify(item, reference)
            verdicts.append((reference, verdict))
            if verdict in (Verdict.DANGLING, Verdict.INVALID):
                await self._report_other_namespace(item, reference)
        uid = str(item.metadata.get("uid", ""))
        decision = decide(
            verdicts,
            finalizers=item.metadata.get("finalizers") or [],
            has_dependents=self.graph.has_dependents(uid),
            dependent_deleting_dependents=self.graph.any_dependent_deleting_dependents(uid),
        )
        context = self._log_context(item)
        if decision.retry:
            log.debug("gc.unresolvable_owner", **context)
            return UNRESOLVABLE_RECHECK
        if decision.invalid is not None:
            log.warning(
                "gc.invalid_owner_reference",
                owner_kind=decision.invalid.kind,
                owner_name=decision.invalid.name,
                error="cluster-scoped objects cannot refer to namespaced owners",
                **context,
            )
        if decision.remove_owners:
            log.info("gc.removing_owner_references", owners=sorted(decision.remove_owners), **context)
            await self._update(item, lambda obj: without_owners(obj, decision.remove_owners))
        if decision.unblock:
            log.info("gc.unblocking_owner_references", **context)
            current = await self._update(item, unblocked)
            if current is None:
                return None
            item = current  # the delete below is guarded by this new resourceVersion
        if decision.propagation:
            await self._delete(item, decision.propagation)
        return None

    def _classify(self, item: CachedObject, reference: OwnerReference) -> Verdict:
        version = GroupVersion.parse(reference.api_version)
        gvk = GroupVersionKind(version.group, version.version, reference.kind)
        served = self.ctx.registry.by_kind(gvk) if version.version else None
        if served is None:
            return Verdict.UNRESOLVABLE
        if served.namespaced and not item.namespace:
            return Verdict.INVALID
        owner = self.ctx.cache.get(served.key(item.namespace if served.namespaced else "", reference.name))
        if owner is None or owner.metadata.get("uid") != reference.uid:
            return Verdict.DANGLING
        if deletion_finalizer(owner.metadata) == FOREGROUND_FINALIZER:
            return Verdict.WAITING
        return Verdict.SOLID

    async def _delete(self, item: CachedObject, propagation: str) -> None:
        served = self._served_for(item)
        if served is None:
            return
        log.info("gc.deleting_dependent", propagation=propagation, **self._log_context(item))
        options = DeleteOptions(
            dry_run=False,
            propagation_policy=propagation,
            precondition_uid=str(item.metadata.get("uid", "")),
            precondition_revision=str(item.revision),
        )
        with contextlib.suppress(errors.NotFound):
            await delete_object(self.ctx, served, item.namespace, item.name, options)

    # -- an owner being deleted ------------------------------------------------------------------

    async def _orphan_dependents(self, owner: CachedObject) -> None:
        uid = str(owner.metadata.get("uid", ""))
        dependents = [d for d in map(self.ctx.cache.get, self.graph.dependents(uid)) if d is not None]
        log.info("gc.orphaning_dependents", dependents=len(dependents), **self._log_context(owner))
        for dependent in dependents:
            await self._update(dependent, lambda obj: without_owners(obj, frozenset({uid})))
        await self._remove_finalizer(owner, ORPHAN_FINALIZER)

    async def _delete_dependents_first(self, owner: CachedObject) -> None:
        uid = str(owner.metadata.get("uid", ""))
        blocking = []
        for key in self.graph.dependents(uid):
            dependent = self.ctx.cache.get(key)
            if dependent is not None and any(
                reference.uid == uid and reference.block_owner_deletion
                for reference in owner_references(dependent.metadata)
            ):
                blocking.append(key)
        if not blocking:
            await self._remove_finalizer(owner, FOREGROUND_FINALIZER)
            return
        log.debug("gc.waiting_for_dependents", blocking=len(blocking), **self._log_context(owner))
        for key in blocking:
            if not self.graph.is_deleting_dependents(key):
                self.queue.add(key)

    async def _remove_finalizer(self, item: CachedObject, finalizer: str) -> None:
        log.info("gc.removing_finalizer", finalizer=finalizer, **self._log_context(item))
        await self._update(item, lambda obj: without_finalizer(obj, finalizer))

    def _log_context(self, item: CachedObject) -> dict[str, str]:
        return {
            "controller": self.NAME,
            "kind": str(item.obj.get("kind", "")),
            "namespace": item.namespace,
            "name": item.name,
        }

    # -- writes ------------------------------------------------------------------------------------

    async def _update(
        self, item: CachedObject, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> CachedObject | None:
        """Apply `change` to the current version of `item` (not to a namesake that replaced it).

        Returns the object as stored afterwards, or None when it is gone.
        """
        served = self._served_for(item)
        if served is None:
            return None
        uid = item.metadata.get("uid")

        def compute(current: CachedObject) -> dict[str, Any]:
            obj = current.copy()
            return change(obj) if current.metadata.get("uid") == uid else obj

        info = RequestInfo(
            served.type.group, served.type.version, item.namespace, served.type.plural, item.name, "", "patch"
        )
        try:
            return await update_flow(self.ctx, served, info, system_options(self.NAME), compute)
        except errors.NotFound:
            return None

    def _served_for(self, item: CachedObject) -> ServedResource | None:
        """The served resource of a stored object: its own apiVersion and kind, else its storage."""
        version = GroupVersion.parse(str(item.obj.get("apiVersion", "")))
        gvk = GroupVersionKind(version.group, version.version, str(item.obj.get("kind", "")))
        served = self.ctx.registry.by_kind(gvk)
        if served is not None and served.key(item.namespace, item.name) == item.key:
            return served
        prefix = bucket_prefix(item.key)
        for candidate in self.ctx.registry.all():
            if candidate.storage_prefix == prefix:
                return candidate
        log.warning("gc.unserved_object", **self._log_context(item))
        return None

    async def _report_other_namespace(self, item: CachedObject, reference: OwnerReference) -> None:
        """kube's OwnerRefInvalidNamespace event: the owner's uid lives in another namespace."""
        owner_key = self.graph.key_of(reference.uid)
        owner_namespace = split_key(owner_key)[0] if owner_key else ""
        if not owner_namespace or owner_namespace == item.namespace:
            return
        served = self.ctx.registry.by_kind(EVENT_GVK)
        if served is None:
            return
        digest = hashlib.sha256(f"{item.metadata.get('uid')}/{reference.uid}".encode()).hexdigest()[:16]
        now = format_time(self.ctx.clock())
        involved = {
            "apiVersion": item.obj.get("apiVersion", ""),
            "kind": item.obj.get("kind", ""),
            "name": item.name,
            "uid": item.metadata.get("uid", ""),
        }
        if item.namespace:
            involved["namespace"] = item.namespace
        coordinates = (
            f"[{reference.api_version}/{reference.kind}, namespace: {item.namespace}, "
            f"name: {reference.name}, uid: {reference.uid}]"
        )
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{item.name[:236]}.{digest}", "namespace": item.namespace or "default"},
            "involvedObject": involved,
            "reason": INVALID_NAMESPACE_REASON,
            "message": f'ownerRef {coordinates} does not exist in namespace "{item.namespace}"',
            "type": "Warning",
            "source": {"component": EVENT_SOURCE},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
        }
        log.warning("gc.owner_in_other_namespace", owner=owner_key, **self._log_context(item))
        try:
            await create_object(self.ctx, served, event, system_options(self.NAME))
        except errors.AlreadyExists:
            return
        except errors.APIError as exc:  # events are best effort, as kube's event recorder is
            log.info("gc.event_failed", error=exc.message, **self._log_context(item))
