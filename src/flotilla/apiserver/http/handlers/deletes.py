"""DELETE of an object and of a collection: DeleteOptions read from the query and the body as kube
reads them, then `writes/deletion.py`. The objects a DELETE answers with are at the URL's version."""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from aiohttp import web

from flotilla.api.fielderrors import not_supported
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import read_body
from flotilla.apiserver.http import views
from flotilla.apiserver.http.filters import predicate
from flotilla.apiserver.http.handlers.params import INT64_MAX, dry_run, list_options, parse_int64, query_bool
from flotilla.apiserver.http.handlers.writes import request_user
from flotilla.apiserver.http.responses import json_response, object_response, success_status
from flotilla.apiserver.registry.objectbounds import INT64_MIN
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.conversion import all_at_version, at_version, matching_at_version
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.deletion import PROPAGATION_POLICIES, DeleteOptions, delete_object

T = TypeVar("T")


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
    return object_response(request, ctx, served, at_version(served, item))


async def delete_collection(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = await delete_options(request)
    listing = list_options(request.query)
    matches = matching_at_version(served, predicate(served, listing.label_selector, listing.field_selector))
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
        body=views.list_body(served, all_at_version(served, deleted), ctx.cache.revision),
        content_type="application/json",
    )
