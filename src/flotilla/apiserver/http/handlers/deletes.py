"""DELETE of an object and of a collection.

An object without finalizers is removed at once. One with finalizers — and a namespace, whose
`spec.finalizers` hold its content cleanup — gets a `deletionTimestamp` and stays until the last
finalizer is gone (the update that removes it deletes the object). Repeated deletes of an object
that is already being deleted change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import orjson
from aiohttp import web

from flotilla.api.builtin import DEFAULT_NAMESPACES
from flotilla.api.fielderrors import not_supported
from flotilla.apiserver import errors
from flotilla.apiserver.admission.attributes import SYSTEM_USER, UserInfo
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http import views
from flotilla.apiserver.http.content import read_body
from flotilla.apiserver.http.filters import predicate
from flotilla.apiserver.http.handlers.params import (
    INT64_MAX,
    FieldValidation,
    dry_run,
    list_options,
    parse_int64,
    query_bool,
)
from flotilla.apiserver.http.handlers.writes import request_user
from flotilla.apiserver.http.responses import json_response, object_response, success_status
from flotilla.apiserver.registry import objectmeta
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.objectbounds import INT64_MIN
from flotilla.apiserver.store.objectstore import StaleRevision
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.pipeline import WriteOptions, admit_delete, is_namespace

PROPAGATION_POLICIES = ("Orphan", "Background", "Foreground")
T = TypeVar("T")


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


async def delete_options(request: web.Request) -> DeleteOptions:
    body: dict[str, Any] = {}
    raw = await request.read()
    if raw.strip():
        decoded = (await read_body(raw, request.headers.get("Content-Type"))).obj
        if not isinstance(decoded, dict):
            raise errors.BadRequest("the body of a DELETE must be a DeleteOptions object")
        body = decoded
    query = request.query
    policy = _body_field(body, "propagationPolicy", str) or query.get("propagationPolicy", "")
    orphan = _body_field(body, "orphanDependents", bool)
    if orphan is None:
        orphan = query_bool(query, "orphanDependents")
    if not policy and orphan:
        policy = "Orphan"
    if policy and policy not in PROPAGATION_POLICIES:
        problem = not_supported("propagationPolicy", policy, ["Foreground", "Background", "Orphan"])
        raise errors.Invalid(f'DeleteOptions.meta.k8s.io "" is invalid: {problem}', causes=[problem.cause()])
    grace = _body_field(body, "gracePeriodSeconds", int)
    if grace is None and query.get("gracePeriodSeconds"):
        grace = parse_int64("gracePeriodSeconds", query["gracePeriodSeconds"])
    preconditions = _body_field(body, "preconditions", dict) or {}
    body_dry_run = _body_field(body, "dryRun", list) or []
    if body_dry_run not in ([], ["All"]):
        raise errors.BadRequest(
            f"Invalid dryRun value: {orjson.dumps(body_dry_run).decode()[:200]}; the only supported value "
            'is ["All"]'
        )
    return DeleteOptions(
        dry_run=dry_run(query) or body_dry_run == ["All"],
        propagation_policy=policy or "Background",
        grace_period_seconds=grace,
        precondition_uid=_body_field(preconditions, "uid", str, "preconditions.") or "",
        precondition_revision=_body_field(preconditions, "resourceVersion", str, "preconditions.") or "",
        user=request_user(request),
        explicit_policy=bool(policy),
    )


_JSON_TYPES = {str: "a string", bool: "a boolean", int: "an integer", dict: "an object", list: "a list"}


def _body_field(body: dict[str, Any], name: str, kind: type[T], prefix: str = "") -> T | None:
    """A DeleteOptions field of the JSON type kube's typed decoding expects (400 otherwise)."""
    value = body.get(name)
    if value is None:
        return None
    fits = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if kind is int and fits and not INT64_MIN <= value <= INT64_MAX:
        fits = False
    if not fits:
        raise errors.BadRequest(
            f'DeleteOptions in version "v1" cannot be handled as a DeleteOptions: {prefix}{name} must be '
            f"{_JSON_TYPES[kind]}, got {orjson.dumps(value).decode()[:64]}"
        )
    checked: T = value
    return checked


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
            meta["deletionTimestamp"] = objectmeta.now_rfc3339(ctx.clock() + timedelta(seconds=grace))
            meta["deletionGracePeriodSeconds"] = grace
            if served.tracks_generation:
                objectmeta.bump_generation(new)
            if is_namespace(served):
                new.setdefault("status", {})["phase"] = "Terminating"
        elif grace < int(meta.get("deletionGracePeriodSeconds") or 0):
            meta["deletionTimestamp"] = objectmeta.now_rfc3339(ctx.clock() + timedelta(seconds=grace))
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


async def delete(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = await delete_options(request)
    item, gone = await delete_object(ctx, served, info.namespace, info.name, options)
    if gone and not served.delete_returns_object:
        details = {"name": info.name, "kind": served.type.plural, "uid": item.metadata.get("uid", "")}
        if served.type.group:
            details["group"] = served.type.group
        return json_response(success_status(details))
    return object_response(request, ctx, served, item)


async def delete_collection(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = await delete_options(request)
    listing = list_options(request.query)
    matches = predicate(served, listing.label_selector, listing.field_selector)
    await ctx.cache.wait_current()
    namespace = info.namespace if served.namespaced else ""
    deleted: list[CachedObject] = []
    for item in ctx.cache.list(served.storage_prefix, namespace):
        if matches is not None and not matches(item):
            continue
        try:
            last, _ = await delete_object(ctx, served, item.namespace, item.name, options)
        except errors.NotFound:
            continue
        deleted.append(last)
    return web.Response(
        body=views.list_body(served, deleted, ctx.cache.revision), content_type="application/json"
    )
