"""POST, PUT and PATCH (all four patch types, server-side apply included), and the scale subresource.

These handlers only read the request — body, content type, query options, user — and hand the work
to the write pipeline (`pipeline.py`), which every kind and in-process controller shares.
"""

from __future__ import annotations

import functools
from typing import Any

from aiohttp import web

from flotilla.api import fielderrors
from flotilla.api.objects import copy_object
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import APPLY_PATCH, read_body
from flotilla.apiserver.http.handlers.params import dry_run, field_manager, field_validation
from flotilla.apiserver.http.handlers.reads import get_current, wait_for_revision
from flotilla.apiserver.http.responses import json_response, object_response
from flotilla.apiserver.registry import apply as ssa
from flotilla.apiserver.registry import scale
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.requestwarnings import request_warnings
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.users import ANONYMOUS, USER_KEY, UserInfo
from flotilla.apiserver.writes import normalize
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.offloop import OFF_LOOP_BYTES, on_or_off_loop
from flotilla.apiserver.writes.patching import (
    apply_decoded_patch_async,
    patch_stored_object,
    patch_type_of,
    pinned_resource_version,
    read_apply_body,
    read_patch,
)
from flotilla.apiserver.writes.pipeline import WriteOptions, create_object, invalid, update_flow


def request_user(request: web.Request) -> UserInfo:
    """The authenticated user of a request (set by the API middleware)."""
    found = request.get(USER_KEY)
    return found if isinstance(found, UserInfo) else ANONYMOUS


def write_options(request: web.Request) -> WriteOptions:
    """The write's options; its warnings list is the request's, so they reach the client even on failure."""
    return WriteOptions(
        dry_run=dry_run(request.query),
        validation=field_validation(request.query),
        manager=field_manager(request.query, request.headers.get("User-Agent", "")),
        user=request_user(request),
        warnings=request_warnings(request),
    )


# -- create ---------------------------------------------------------------------------------------


async def create(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = write_options(request)
    raw = await request.read()
    decoded = await read_body(
        raw, request.headers.get("Content-Type"), find_duplicates=options.validation is FieldValidation.STRICT
    )
    obj = normalize.check_kind(served, decoded.obj)
    normalize.check_namespace(served, obj, info.namespace)
    decode = functools.partial(
        normalize.decode_fields,
        ctx,
        served,
        obj,
        options.validation,
        decoded.duplicate_fields,
        options.warnings,
    )
    value_errors = await on_or_off_loop(len(raw) > OFF_LOOP_BYTES, decode)
    item = await create_object(ctx, served, obj, options, value_errors)
    return object_response(request, ctx, served, item, status=201)


# -- update and patch -------------------------------------------------------------------------------


async def read_put_body(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource, options: WriteOptions
) -> dict[str, Any]:
    """A PUT's object: decoded, of the served kind and namespace, named as the URL, its values checked."""
    raw = await request.read()
    decoded = await read_body(
        raw, request.headers.get("Content-Type"), find_duplicates=options.validation is FieldValidation.STRICT
    )
    obj = normalize.check_kind(served, decoded.obj)
    normalize.check_namespace(served, obj, info.namespace)
    body_name = obj["metadata"].get("name")
    if body_name not in (None, "") and body_name != info.name:
        raise errors.BadRequest(
            f"the name of the object ({body_name}) does not match the name on the URL ({info.name})"
        )
    obj["metadata"]["name"] = info.name
    decode = functools.partial(
        normalize.decode_fields,
        ctx,
        served,
        obj,
        options.validation,
        decoded.duplicate_fields,
        options.warnings,
    )
    value_errors = await on_or_off_loop(len(raw) > OFF_LOOP_BYTES, decode)
    if value_errors:
        raise invalid(served, info.name, value_errors)
    return obj


async def update(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PUT of an object, or of its status or finalizers."""
    options = write_options(request)
    obj = await read_put_body(request, ctx, info, served, options)
    pinned = str(obj["metadata"].get("resourceVersion") or "")
    item = await update_flow(
        ctx,
        served,
        info,
        options,
        lambda _: copy_object(obj),
        pinned_revision=lambda _: pinned,
        subresource=info.subresource,
    )
    return object_response(request, ctx, served, item)


async def patch(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PATCH of an object or its status, with any of the four patch types."""
    kind = patch_type_of(request.headers.get("Content-Type"), served)
    if kind == APPLY_PATCH:
        return await server_side_apply(request, ctx, info, served)
    options = write_options(request)
    decoded = await read_patch(kind, await request.read())
    pinned = [""]

    async def compute(current: CachedObject) -> dict[str, Any]:
        obj = normalize.check_kind(served, await patch_stored_object(current, decoded, served))
        pinned[0] = pinned_resource_version(obj)
        normalize.check_namespace(served, obj, info.namespace)
        if obj["metadata"].get("name") != info.name:
            raise errors.BadRequest(
                f"the name of the object ({obj['metadata'].get('name')}) does not match the name on the "
                f"URL ({info.name}); a patch cannot rename an object"
            )
        decode = functools.partial(
            normalize.decode_fields,
            ctx,
            served,
            obj,
            options.validation,
            [],
            options.warnings,
            patched=current,
        )
        value_errors = await on_or_off_loop(len(current.raw) > OFF_LOOP_BYTES, decode)
        if value_errors:
            raise invalid(served, info.name, value_errors)
        return obj

    item = await update_flow(
        ctx, served, info, options, compute, pinned_revision=lambda _: pinned[0], subresource=info.subresource
    )
    return object_response(request, ctx, served, item)


async def server_side_apply(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PATCH with application/apply-patch+yaml: merge by field ownership, create if absent."""
    options = write_options(request)
    if not request.query.get("fieldManager"):
        raise errors.Invalid(
            'PatchOptions.meta.k8s.io "" is invalid: '
            "fieldManager: Required value: is required for apply patch",
            kind="PatchOptions",
            group="meta.k8s.io",
            causes=[fielderrors.required("fieldManager", "is required for apply patch").cause()],
        )
    options.applied = True
    force = request.query.get("force", "") in ("true", "1")
    raw = await request.read()
    applied = normalize.check_kind(served, await read_apply_body(raw))
    normalize.check_namespace(served, applied, info.namespace)
    name = applied["metadata"].get("name")
    if name not in (None, "") and name != info.name:
        raise errors.BadRequest(
            f"the name of the object ({name}) does not match the name on the URL ({info.name})"
        )
    applied["metadata"]["name"] = info.name
    decode = functools.partial(
        normalize.decode_fields, ctx, served, applied, options.validation, [], options.warnings
    )
    value_errors = await on_or_off_loop(len(raw) > OFF_LOOP_BYTES, decode)
    if value_errors:
        raise invalid(served, info.name, value_errors)
    pinned = str(applied["metadata"].get("resourceVersion") or "")

    def merged(live: dict[str, Any] | None) -> dict[str, Any]:
        try:
            result = ssa.apply(
                live,
                applied,
                manager=options.manager,
                schema=served.schema,
                managed_fields=(live or {}).get("metadata", {}).get("managedFields"),
                force=force,
                api_version=served.type.api_version,
                now=ctx.clock(),
                subresource=info.subresource,
                # A status write's result is copied by the pipeline (merge_subresource) anyway; a
                # main write's is edited in place, so it must not share the live object's parts.
                share=info.subresource == "status",
            )
        except ssa.ApplyConflict as conflict:
            raise errors.Conflict(
                conflict.message,
                name=info.name,
                group=served.type.group,
                kind=served.type.plural,
                causes=conflict.causes(),
            ) from conflict
        except ssa.ApplyError as exc:
            raise errors.BadRequest(str(exc)) from exc
        obj: dict[str, Any] = result.obj
        return obj

    await ctx.cache.wait_current()
    current = ctx.store.get(served, info.namespace, info.name)
    if current is None and not info.subresource:
        if pinned:
            raise errors.not_found(served.type.group_resource, info.name)
        created = await on_or_off_loop(len(raw) > OFF_LOOP_BYTES, lambda: merged(None))
        item = await create_object(ctx, served, created, options)
        return object_response(request, ctx, served, item, status=201)

    async def merged_with(live: CachedObject) -> dict[str, Any]:
        costly = len(raw) > OFF_LOOP_BYTES or len(live.raw) > OFF_LOOP_BYTES
        return await on_or_off_loop(costly, lambda: merged(live.obj))

    item = await update_flow(
        ctx,
        served,
        info,
        options,
        merged_with,
        pinned_revision=lambda _: pinned,
        subresource=info.subresource,
    )
    return object_response(request, ctx, served, item)


# -- scale -----------------------------------------------------------------------------------------

INT32_MAX = 2**31 - 1


def _scale_replicas(wanted: dict[str, Any], name: str) -> int:
    """The replicas of a Scale as kube decodes one: spec and metadata objects, replicas an int32
    (absent is 0) — else 400 — and not negative, else 422."""
    spec, metadata = wanted.get("spec") or {}, wanted.get("metadata") or {}
    replicas = spec.get("replicas", 0) if isinstance(spec, dict) else None
    if not isinstance(metadata, dict) or not isinstance(spec, dict):
        problem = "metadata and spec must be objects"
    elif type(replicas) is not int or replicas > INT32_MAX:
        problem = f"spec.replicas must be a 32-bit integer, got {fielderrors.format_value(replicas)}"
    else:
        problem = ""
    if problem:
        raise errors.BadRequest(f'Scale in version "v1" cannot be handled as a Scale: {problem}')
    assert isinstance(replicas, int)
    if replicas < 0:
        error = fielderrors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")
        raise errors.Invalid(
            f'Scale.autoscaling "{name}" is invalid: {error}',
            name=name,
            group="autoscaling",
            kind="Scale",
            causes=[error.cause()],
        )
    return replicas


async def get_scale(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    await wait_for_revision(ctx, request.query.get("resourceVersion", ""))
    return json_response(scale.scale_of(served, get_current(ctx, served, info).obj))


async def write_scale(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PUT or PATCH of `scale`: the new replica count lands in the workload's spec."""
    options = write_options(request)
    body = await request.read()
    content_type = request.headers.get("Content-Type")
    patch = await read_patch(patch_type_of(content_type, None), body) if request.method == "PATCH" else None
    decoded = None if patch is not None else await read_body(body, content_type)
    pinned = [""]

    async def compute(current: CachedObject) -> dict[str, Any]:
        current_scale = scale.scale_of(served, current.obj)
        if patch is not None:
            wanted = await apply_decoded_patch_async(current_scale, patch, None)
        else:
            assert decoded is not None
            wanted = normalize.check_kind(
                served, decoded.obj, expected_kind="Scale", expected_api_version="autoscaling/v1"
            )
        replicas = _scale_replicas(wanted, info.name)
        pinned[0] = pinned_resource_version(wanted)
        return scale.with_replicas(served, current.copy(), replicas)

    item = await update_flow(
        ctx, served, info, options, compute, pinned_revision=lambda _: pinned[0], subresource="scale"
    )
    return json_response(scale.scale_of(served, item.obj))
