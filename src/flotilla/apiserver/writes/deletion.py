"""Deleting one object, as every client deletes it: HTTP handlers, in-process controllers, the GC.

An object without finalizers is removed at once. One with finalizers — and a namespace, whose
`spec.finalizers` hold its content cleanup — gets a `deletionTimestamp` and stays until the last
finalizer is gone (the update that removes it deletes the object). Repeated deletes of an object
that is already being deleted change nothing. Orphan and Foreground propagation are the garbage
collector's finalizers; a scheduled pod gets its grace period.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flotilla.api.builtin import DEFAULT_NAMESPACES
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry import objectmeta
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.objectstore import StaleRevision
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.users import SYSTEM_USER, UserInfo
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.pipeline import WriteOptions, admit_delete, is_namespace

PROPAGATION_POLICIES = ("Orphan", "Background", "Foreground")


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    dry_run: bool
    propagation_policy: str
    grace_period_seconds: int | None = None
    precondition_uid: str = ""
    precondition_revision: str = ""
    user: UserInfo = SYSTEM_USER
    explicit_policy: bool = True

    def write_options(self) -> WriteOptions:
        return WriteOptions(self.dry_run, FieldValidation.IGNORE, "", self.user)


def _check_preconditions(served: ServedResource, current: CachedObject, options: DeleteOptions) -> None:
    meta = current.metadata
    if options.precondition_uid and options.precondition_uid != meta.get("uid"):
        raise errors.conflict(
            served.type.group_resource,
            current.name,
            f"Precondition failed: UID in precondition: {options.precondition_uid}, "
            f"UID in object meta: {meta.get('uid')}",
        )
    if options.precondition_revision and options.precondition_revision != meta.get("resourceVersion"):
        raise errors.conflict(
            served.type.group_resource,
            current.name,
            f"Precondition failed: ResourceVersion in precondition: {options.precondition_revision}, "
            f"ResourceVersion in object meta: {meta.get('resourceVersion')}",
        )


ORPHAN_FINALIZER = "orphan"
FOREGROUND_FINALIZER = "foregroundDeletion"


def _gc_finalizers(finalizers: list[str], policy: str) -> list[str]:
    """The object's finalizers after a delete with `policy` (the garbage collector acts on these two)."""
    kept = [f for f in finalizers if f not in (ORPHAN_FINALIZER, FOREGROUND_FINALIZER)]
    if policy == "Orphan":
        kept.append(ORPHAN_FINALIZER)
    elif policy == "Foreground":
        kept.append(FOREGROUND_FINALIZER)
    return kept


async def delete_object(
    ctx: APIContext, served: ServedResource, namespace: str, name: str, options: DeleteOptions
) -> tuple[CachedObject, bool]:
    """Delete one object; returns its last state and whether it is gone (False: finalizers pending).

    Orphan and Foreground deletions add the garbage collector's `orphan` / `foregroundDeletion`
    finalizer; any finalizer keeps the object, marked with a deletionTimestamp, until it is removed.
    """
    if is_namespace(served) and name in DEFAULT_NAMESPACES:
        raise errors.Forbidden(
            f'namespaces "{name}" is forbidden: this namespace may not be deleted',
            name=name,
            kind="namespaces",
        )
    await ctx.cache.wait_current()
    for _ in range(ctx.settings.max_retries):
        current = ctx.store.get(served, namespace, name)
        if current is None:
            raise errors.not_found(served.type.group_resource, name)
        current = current.readable()  # decoded once for the whole deletion
        _check_preconditions(served, current, options)
        existing = list(current.metadata.get("finalizers") or [])
        finalizers = _gc_finalizers(existing, options.propagation_policy)
        if options.propagation_policy == "Background" and not options.explicit_policy:
            finalizers = existing  # no policy given: leave pending orphan/foreground decisions alone
        new = current.copy()
        if finalizers:
            new["metadata"]["finalizers"] = finalizers
        else:
            new["metadata"].pop("finalizers", None)
        if not current.metadata.get("deletionTimestamp"):
            await admit_delete(ctx, served, current, options.write_options())
        grace = _grace_period(served, current.obj, options)
        if grace == 0 and not objectmeta.has_finalizers(new, is_namespace=is_namespace(served)):
            if options.dry_run:
                return current, True
            try:
                return await ctx.store.delete(served, current), True
            except StaleRevision:
                continue
        meta = new["metadata"]
        if not meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = format_time(ctx.clock() + timedelta(seconds=grace))
            meta["deletionGracePeriodSeconds"] = grace
            if served.tracks_generation:
                objectmeta.bump_generation(new)
            if is_namespace(served):
                new.setdefault("status", {})["phase"] = "Terminating"
        elif grace < int(meta.get("deletionGracePeriodSeconds") or 0):
            meta["deletionTimestamp"] = format_time(ctx.clock() + timedelta(seconds=grace))
            meta["deletionGracePeriodSeconds"] = grace
        elif finalizers == existing:
            return current, False
        if options.dry_run:
            return current, False
        try:
            return await ctx.store.update(served, new, current.revision), False
        except StaleRevision:
            continue
    raise errors.conflict(
        served.type.group_resource, name, "too many concurrent writes to this object; try again"
    )


def _grace_period(served: ServedResource, obj: dict[str, Any], options: DeleteOptions) -> int:
    """Seconds a pod gets to stop (its kubelet finishes the delete); 0 for everything else.

    A pod that is not scheduled, or has already finished, goes at once, as in kube-apiserver.
    """
    if not (served.builtin and served.type.group == "" and served.type.plural == "pods"):
        return 0
    spec = obj.get("spec") or {}
    if not spec.get("nodeName") or (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return 0
    if options.grace_period_seconds is not None:
        return max(0, options.grace_period_seconds)
    return max(0, int(spec.get("terminationGracePeriodSeconds", 30)))
