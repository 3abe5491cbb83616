"""The `approval` subresource: approving and denying CertificateSigningRequests.

`kubectl certificate approve|deny` reads the request, appends an Approved or Denied condition and
PUTs the whole object (protobuf) to `…/certificatesigningrequests/<name>/approval`; controllers
may PATCH it. Whatever the body holds, an approval write changes only `status.conditions` (kube's
approval strategy): the spec, the certificate and the metadata stay as stored, new conditions get
their timestamps, and the result must pass the condition rules (`conditions.py`: Approved and
Denied exclusive, none removed). The RBAC check of the request path (`update` on
`certificatesigningrequests/approval`) is followed by admission's `approve` on the signer.

The write runs its own short read-compute-write loop instead of the generic update pipeline, whose
subresource handling keeps a stored status for every subresource but `status`: the loop keeps the
pipeline's contract otherwise (admission with subresource `approval`, field ownership under
subresource `approval`, no write when nothing changes, retry on a lost race unless the client
pinned a resourceVersion). The agent approver (`approver.py`) uses the same loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from aiohttp import web

from flotilla.api.objects import copy_object
from flotilla.apiserver import errors
from flotilla.apiserver.admission import AdmissionAttributes
from flotilla.apiserver.certificates.admission import APPROVAL
from flotilla.apiserver.certificates.conditions import populate_timestamps, update_errors
from flotilla.apiserver.certificates.signingrequests import conditions
from flotilla.apiserver.context import APIContext, SubresourceHandler
from flotilla.apiserver.encoding.bodies import APPLY_PATCH
from flotilla.apiserver.http.handlers import reads
from flotilla.apiserver.http.handlers.writes import read_put_body, write_options
from flotilla.apiserver.http.responses import object_response
from flotilla.apiserver.registry import apply as ssa
from flotilla.apiserver.registry.objectmeta import same_object
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.objectstore import StaleRevision
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.patching import (
    patch_stored_object,
    patch_type_of,
    pinned_resource_version,
    read_patch,
)
from flotilla.apiserver.writes.pipeline import WriteOptions, invalid, unsaved

Wanted = Callable[[CachedObject], dict[str, Any] | Awaitable[dict[str, Any]]]
"""Given the stored request, the object the client sent (only its conditions count), or a coroutine
that makes it (a costly patch is applied in a worker thread), as the update pipeline's `ComputeNew`."""


def with_conditions(wanted: dict[str, Any], old: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The stored request with `wanted`'s conditions, timestamps filled (kube's approval strategy)."""
    new = copy_object(old)
    chosen = copy_object({"c": conditions(wanted)})["c"]
    populate_timestamps(chosen, conditions(old), now)
    status = new.setdefault("status", {})
    if chosen:
        status["conditions"] = chosen
    else:
        status.pop("conditions", None)
    return new


def _record_fields(
    ctx: APIContext, served: ServedResource, old: dict[str, Any], new: dict[str, Any], manager: str
) -> dict[str, Any]:
    """managedFields for the write, as the pipeline records a non-apply subresource update."""
    managed = ssa.record_update(
        old,
        new,
        manager=manager,
        schema=served.schema,
        managed_fields=ssa.managed_fields_for_write(old, new, subresource=APPROVAL),
        api_version=served.type.api_version,
        now=ctx.clock(),
        subresource=APPROVAL,
        # Like `status`, `approval` owns only status fields (of which it changes the conditions).
        reset_fields=ssa.default_reset_fields("status", old, new),
    )
    if managed:
        new["metadata"]["managedFields"] = managed
    else:
        new["metadata"].pop("managedFields", None)
    return ssa.strip_time_only_changes(old, new)


async def write_approval(
    ctx: APIContext,
    served: ServedResource,
    name: str,
    options: WriteOptions,
    wanted: Wanted,
    pinned: Callable[[dict[str, Any]], str] | None = None,
) -> CachedObject:
    """Store the conditions `wanted` returns, re-reading and retrying when another writer wins."""
    await ctx.cache.wait_current()
    resource = served.type.group_resource
    for _ in range(ctx.settings.max_retries):
        current = ctx.store.get(served, "", name)
        if current is None:
            raise errors.not_found(resource, name)
        wanted_body = wanted(current)
        body = await wanted_body if inspect.isawaitable(wanted_body) else wanted_body
        revision = pinned(body) if pinned else ""
        if revision and revision != str(current.revision):
            raise errors.conflict(resource, name, errors.STALE_OBJECT)
        old = current.obj
        new = with_conditions(body, old, ctx.clock())
        attributes = AdmissionAttributes(
            operation="UPDATE",
            resource=served,
            subresource=APPROVAL,
            namespace="",
            name=name,
            user=options.user,
            dry_run=options.dry_run,
            options=options.admission_options("UPDATE"),
        )
        options.warnings.extend(await ctx.admission.mutate(attributes, new, old))
        new = with_conditions(new, old, ctx.clock())  # admission too may change only the conditions
        found = update_errors(new, old, approval=True)
        if found:
            raise invalid(served, name, found)
        new = _record_fields(ctx, served, old, new, options.manager)
        if same_object(new, old):
            return current
        options.warnings.extend(await ctx.admission.validate(attributes, new, old))
        if options.dry_run:
            return unsaved(served, new)
        try:
            return await ctx.store.update(served, new, current.revision)
        except StaleRevision:
            continue  # again on the fresh object, whose revision a pinned one then no longer matches
    raise errors.conflict(resource, name, "too many concurrent writes to this object; try again")


# -- HTTP -----------------------------------------------------------------------------------------------


async def replace_approval(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PUT …/approval: the body's conditions become the request's."""
    options = write_options(request)
    obj = await read_put_body(request, ctx, info, served, options)
    pinned = str(obj["metadata"].get("resourceVersion") or "")
    item = await write_approval(ctx, served, info.name, options, lambda _: obj, lambda _: pinned)
    return object_response(request, ctx, served, item)


async def patch_approval(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PATCH …/approval with a JSON, merge or strategic merge patch, decoded once before the write
    (YAML in a worker thread) and applied as the generic PATCH applies it (a costly one off the loop)."""
    kind = patch_type_of(request.headers.get("Content-Type"), served)
    if kind == APPLY_PATCH:
        raise errors.UnsupportedMediaType(
            "server-side apply is not supported on the approval subresource; use a merge or JSON patch"
        )
    options = write_options(request)
    decoded = await read_patch(kind, await request.read())
    pinned = [""]

    async def patched(current: CachedObject) -> dict[str, Any]:
        obj = normalize.check_kind(served, await patch_stored_object(current, decoded, served))
        pinned[0] = pinned_resource_version(obj)
        value_errors = normalize.decode_fields(ctx, served, obj, options.validation, [], options.warnings)
        if value_errors:
            raise invalid(served, info.name, value_errors)
        return obj

    item = await write_approval(ctx, served, info.name, options, patched, lambda _: pinned[0])
    return object_response(request, ctx, served, item)


APPROVAL_HANDLERS: dict[str, SubresourceHandler] = {
    "get": reads.get,
    "update": replace_approval,
    "patch": patch_approval,
}
"""The `approval` subresource's verbs, registered on the context by `install.py`."""
