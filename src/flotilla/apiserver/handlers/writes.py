"""Create, update and patch: one pipeline for every kind, subresource and patch type.

Create: decode → name (generateName) → system metadata → defaults → kind preparation →
validation → namespace checks → store (retrying generated-name collisions).

Update and patch share `update_flow`: read the current object, compute the new one (a PUT body, a
patched copy, a status or scale change), keep what clients may not change, default, bump the
generation when the desired state changed, validate, and write guarded by the current revision.
Losing a race with another writer re-runs the computation on the fresh object — unless the client
pinned a resourceVersion, which then answers 409 as kube-apiserver does. An update that changes
nothing writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from flotilla.api import fielderrors
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver import errors, objectmeta, scale
from flotilla.apiserver.content import decode_body
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.handlers import normalize
from flotilla.apiserver.handlers.params import FieldValidation, dry_run, field_manager, field_validation
from flotilla.apiserver.handlers.patching import apply_patch, patch_type_of
from flotilla.apiserver.handlers.reads import get_current, wait_for_revision
from flotilla.apiserver.objectstore import StaleRevision
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.resources import ServedResource
from flotilla.apiserver.responses import add_warning, json_response, object_response
from flotilla.apiserver.watchcache import CachedObject

GENERATE_NAME_ATTEMPTS = 8


@dataclass(slots=True)
class WriteOptions:
    dry_run: bool
    validation: FieldValidation
    manager: str
    warnings: list[str] = field(default_factory=list)

    @staticmethod
    def of(request: web.Request) -> WriteOptions:
        return WriteOptions(
            dry_run=dry_run(request.query),
            validation=field_validation(request.query),
            manager=field_manager(request.query, request.headers.get("User-Agent", "")),
        )

    def flush(self, request: web.Request) -> None:
        for text in self.warnings:
            add_warning(request, text)


def _invalid(served: ServedResource, name: str, found: list[FieldError]) -> errors.Invalid:
    return errors.invalid(served.type.kind, served.type.group, name, normalize.dedupe(found))


# -- create ---------------------------------------------------------------------------------------


async def create(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = WriteOptions.of(request)
    decoded = decode_body(
        await request.read(),
        request.headers.get("Content-Type"),
        find_duplicates=options.validation is FieldValidation.STRICT,
    )
    obj = normalize.check_kind(served, decoded.obj)
    normalize.check_namespace(served, obj, info.namespace)
    value_errors = normalize.decode_fields(
        ctx, served, obj, options.validation, decoded.duplicate_fields, options.warnings
    )
    item = await create_object(ctx, served, obj, options, value_errors)
    options.flush(request)
    return object_response(request, ctx, served, item, status=201)


async def create_object(
    ctx: APIContext,
    served: ServedResource,
    obj: dict[str, Any],
    options: WriteOptions,
    value_errors: list[FieldError] | None = None,
) -> CachedObject:
    """Run the create pipeline on a decoded, normalised object and store it."""
    meta = obj["metadata"]
    if meta.get("resourceVersion"):
        raise errors.BadRequest("resourceVersion should not be set on objects to be created")
    generate = meta.get("generateName", "")
    if not meta.get("name") and generate:
        meta["name"] = objectmeta.generate_name(generate)
    objectmeta.prepare_create_metadata(obj, ctx.clock(), tracks_generation=served.tracks_generation)
    if served.has_status and not served.keeps_status_on_create:
        obj.pop("status", None)
    strategy = ctx.strategy(served)
    strategy.default(obj)
    strategy.prepare_create(obj, ctx.strategy_env)
    found = list(value_errors or [])
    found += normalize.check_values(ctx, served, obj)
    found += strategy.validate_create(obj)
    if found:
        raise _invalid(served, meta.get("name", ""), found)
    if served.namespaced:
        check_namespace_open(ctx, meta["namespace"])
    if options.dry_run:
        return _unsaved(served, obj)
    for attempt in range(GENERATE_NAME_ATTEMPTS):
        try:
            return await ctx.store.create(served, obj)
        except errors.AlreadyExists:
            if not generate or attempt == GENERATE_NAME_ATTEMPTS - 1:
                raise
            meta["name"] = objectmeta.generate_name(generate)
    raise AssertionError("unreachable")


def check_namespace_open(ctx: APIContext, namespace: str) -> None:
    """Creating in a missing namespace is 404; in a terminating one, 403."""
    found = ctx.cache.get(f"/registry/core/namespaces/{namespace}")
    if found is None:
        raise errors.NotFound(f'namespaces "{namespace}" not found', name=namespace, kind="namespaces")
    if (
        found.metadata.get("deletionTimestamp")
        or (found.obj.get("status") or {}).get("phase") == "Terminating"
    ):
        raise errors.Forbidden(
            f"unable to create new content in namespace {namespace} because it is being terminated",
            name=namespace,
            kind="namespaces",
            causes=[
                {
                    "reason": "NamespaceTerminating",
                    "message": f"namespace {namespace} is being terminated",
                    "field": "metadata.namespace",
                }
            ],
        )


def _unsaved(served: ServedResource, obj: dict[str, Any]) -> CachedObject:
    meta = obj["metadata"]
    return CachedObject(
        served.key(meta.get("namespace", ""), meta["name"]), meta.get("namespace", ""), meta["name"], 0, obj
    )


# -- update and patch -------------------------------------------------------------------------------


ComputeNew = Callable[[CachedObject], dict[str, Any]]
"""Given the current object, the object the client wants stored (a private dict)."""


async def update_flow(
    ctx: APIContext,
    served: ServedResource,
    info: RequestInfo,
    options: WriteOptions,
    compute: ComputeNew,
    *,
    pinned_revision: Callable[[dict[str, Any]], str] | None = None,
    subresource: str = "",
) -> CachedObject:
    """Compute, check and store an update, re-running `compute` when a concurrent write wins."""
    await ctx.cache.wait_current()
    strategy = ctx.strategy(served)
    for _ in range(ctx.settings.max_retries):
        current = ctx.store.get(served, info.namespace, info.name)
        if current is None:
            raise errors.not_found(served.type.group_resource, info.name)
        new = compute(current)
        wanted = pinned_revision(new) if pinned_revision else ""
        if wanted and wanted != str(current.revision):
            raise errors.conflict(served.type.group_resource, info.name, errors.STALE_OBJECT)
        old = current.obj
        new = _merge_subresource(served, subresource, new, old)
        objectmeta.carry_over_metadata(new, old)
        _check_finalizers(new, old)
        strategy.default(new)
        strategy.prepare_update(new, old, ctx.strategy_env, subresource)
        if served.tracks_generation and objectmeta.spec_changed(
            new, old, status_is_separate=served.has_status
        ):
            objectmeta.bump_generation(new)
        found = normalize.check_values(ctx, served, new) + strategy.validate_update(new, old)
        if found:
            raise _invalid(served, info.name, found)
        if objectmeta.same_object(new, old):
            return current
        if options.dry_run:
            return _unsaved(served, new)
        try:
            namespace_kind = served.builtin and served.type.plural == "namespaces" and not served.type.group
            if new["metadata"].get("deletionTimestamp") and not objectmeta.has_finalizers(
                new, is_namespace=namespace_kind
            ):
                return await ctx.store.delete(served, current)
            return await ctx.store.update(served, new, current.revision)
        except StaleRevision:
            if wanted:
                raise errors.conflict(served.type.group_resource, info.name, errors.STALE_OBJECT) from None
    raise errors.conflict(
        served.type.group_resource, info.name, "too many concurrent writes to this object; try again"
    )


def _merge_subresource(
    served: ServedResource, subresource: str, new: dict[str, Any], old: dict[str, Any]
) -> dict[str, Any]:
    """Keep to each endpoint its part: status writes change only status, main writes never status."""
    if subresource == "finalize":
        merged = _copy(old)
        merged.setdefault("spec", {})["finalizers"] = list((new.get("spec") or {}).get("finalizers") or [])
        return merged
    if subresource == "status":
        merged = {k: v for k, v in old.items() if k != "status"}
        merged["metadata"] = {**(old.get("metadata") or {})}
        if "status" in new:
            merged["status"] = new["status"]
        # Labels, annotations and finalizers may not change through /status.
        return _copy(merged)
    if served.has_status:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
    return new


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = orjson.loads(orjson.dumps(obj))
    return copied


def _check_finalizers(new: dict[str, Any], old: dict[str, Any]) -> None:
    old_meta = old.get("metadata") or {}
    if not old_meta.get("deletionTimestamp"):
        return
    added = set(new["metadata"].get("finalizers") or []) - set(old_meta.get("finalizers") or [])
    if added:
        raise errors.Invalid(
            "no new finalizers can be added if the object is being deleted",
            causes=[
                fielderrors.forbidden(
                    "metadata.finalizers",
                    "no new finalizers can be added if the "
                    f"object is being deleted, found new finalizers {sorted(added)}",
                ).cause()
            ],
        )


async def update(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PUT of an object, or of its status."""
    options = WriteOptions.of(request)
    decoded = decode_body(
        await request.read(),
        request.headers.get("Content-Type"),
        find_duplicates=options.validation is FieldValidation.STRICT,
    )
    obj = normalize.check_kind(served, decoded.obj)
    normalize.check_namespace(served, obj, info.namespace)
    body_name = obj["metadata"].get("name")
    if body_name not in (None, "") and body_name != info.name:
        raise errors.BadRequest(
            f"the name of the object ({body_name}) does not match the name on the URL ({info.name})"
        )
    obj["metadata"]["name"] = info.name
    value_errors = normalize.decode_fields(
        ctx, served, obj, options.validation, decoded.duplicate_fields, options.warnings
    )
    if value_errors:
        raise _invalid(served, info.name, value_errors)
    pinned = str(obj["metadata"].get("resourceVersion") or "")
    item = await update_flow(
        ctx,
        served,
        info,
        options,
        lambda _: _copy(obj),
        pinned_revision=lambda _: pinned,
        subresource=info.subresource,
    )
    options.flush(request)
    return object_response(request, ctx, served, item)


async def patch(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PATCH of an object or its status, with any of the four patch types."""
    options = WriteOptions.of(request)
    kind = patch_type_of(request.headers.get("Content-Type"), served)
    body = await request.read()

    pinned = [""]

    def compute(current: CachedObject) -> dict[str, Any]:
        start = current.copy()
        start["metadata"].pop("resourceVersion", None)
        patched = apply_patch(kind, start, body, served)
        obj = normalize.check_kind(served, patched)
        # A patch that sets resourceVersion makes it a precondition, as in kube-apiserver.
        pinned[0] = str(obj["metadata"].get("resourceVersion") or "")
        normalize.check_namespace(served, obj, info.namespace)
        if obj["metadata"].get("name") != info.name:
            raise errors.BadRequest(
                f"the name of the object ({obj['metadata'].get('name')}) does not match the name on the URL "
                f"({info.name}); a patch cannot rename an object"
            )
        value_errors = normalize.decode_fields(ctx, served, obj, options.validation, [], options.warnings)
        if value_errors:
            raise _invalid(served, info.name, value_errors)
        return obj

    item = await update_flow(
        ctx, served, info, options, compute, pinned_revision=lambda _: pinned[0], subresource=info.subresource
    )
    options.flush(request)
    return object_response(request, ctx, served, item)


# -- scale -----------------------------------------------------------------------------------------


async def get_scale(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    await wait_for_revision(ctx, request.query.get("resourceVersion", ""))
    return json_response(scale.scale_of(served, get_current(ctx, served, info).obj))


async def write_scale(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """PUT or PATCH of `scale`: the new replica count lands in the workload's spec."""
    options = WriteOptions.of(request)
    body = await request.read()
    is_patch = request.method == "PATCH"
    kind = patch_type_of(request.headers.get("Content-Type"), None) if is_patch else ""
    if not is_patch:
        decoded = decode_body(body, request.headers.get("Content-Type"))
    pinned: list[str] = [""]

    def compute(current: CachedObject) -> dict[str, Any]:
        current_scale = scale.scale_of(served, current.obj)
        if is_patch:
            current_scale["metadata"].pop("resourceVersion", None)
            wanted = apply_patch(kind, current_scale, body, None)
        else:
            wanted = normalize.check_kind(
                served, decoded.obj, expected_kind="Scale", expected_api_version="autoscaling/v1"
            )
        pinned[0] = str((wanted.get("metadata") or {}).get("resourceVersion") or "")
        replicas = (wanted.get("spec") or {}).get("replicas")
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise errors.Invalid(
                f'Scale.autoscaling "{info.name}" is invalid: spec.replicas: Invalid value: {replicas}: '
                "must be greater than or equal to 0",
                name=info.name,
                group="autoscaling",
                kind="Scale",
                causes=[
                    fielderrors.invalid(
                        "spec.replicas", replicas, "must be greater than or equal to 0"
                    ).cause()
                ],
            )
        return scale.with_replicas(served, current.copy(), replicas)

    item = await update_flow(ctx, served, info, options, compute, pinned_revision=lambda _: pinned[0])
    options.flush(request)
    return json_response(scale.scale_of(served, item.obj))
