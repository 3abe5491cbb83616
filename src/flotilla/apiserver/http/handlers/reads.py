"""GET of one object and LIST of a collection, served from the watch cache.

resourceVersion rules (kube 1.32): unset means "most recent" (the cache first catches up with every
acknowledged write), "0" means "any" (the cache as it is), "N" means "not older than N" (waiting up
to a few seconds for the cache to reach N, then 504), and `resourceVersionMatch=Exact` lists exactly
at N from the store. Pages of a paginated list are one consistent snapshot: later pages come from
the cache while the collection is unchanged since the first page, otherwise from the store at the
first page's revision (410 once that revision is compacted away). Objects leave at the version the
URL names (`store/conversion.py`): selectors judge them, and tables print them, at that version.
"""

from __future__ import annotations

from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http import views
from flotilla.apiserver.http.content import View, negotiate
from flotilla.apiserver.http.filters import predicate
from flotilla.apiserver.http.handlers.params import (
    decode_continue,
    encode_continue,
    include_object,
    list_options,
    parse_resource_version,
)
from flotilla.apiserver.http.responses import json_response, object_response
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.conversion import all_at_version_bounded, at_version, matching_at_version
from flotilla.apiserver.store.watchcache import CachedObject


async def wait_for_revision(ctx: APIContext, resource_version: str) -> None:
    """Apply the resourceVersion semantics of reads: catch up, or wait for N, or 504."""
    if resource_version == "0":
        return
    if not resource_version:
        await ctx.cache.wait_current()
        return
    target = parse_resource_version(resource_version)
    if not await ctx.cache.wait_for(target, ctx.settings.future_revision_wait):
        raise errors.ServerTimeout(
            f"Too large resource version: {target}, current: {ctx.cache.revision}",
            causes=[{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            retry_after=1,
        )


def get_current(ctx: APIContext, served: ServedResource, info: RequestInfo) -> CachedObject:
    item = ctx.store.get(served, info.namespace, info.name)
    if item is None:
        raise errors.not_found(served.type.group_resource, info.name)
    return item


async def get(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    await wait_for_revision(ctx, request.query.get("resourceVersion", ""))
    item = at_version(served, get_current(ctx, served, info))
    return object_response(request, ctx, served, item)


async def list_(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = list_options(request.query)
    negotiated = negotiate(request.headers.get("Accept"))
    matches = matching_at_version(served, predicate(served, options.label_selector, options.field_selector))
    namespace = info.namespace if served.namespaced else ""
    prefix = served.storage_prefix

    if options.continue_token:
        token = decode_continue(options.continue_token)
        revision, start_after = token.revision, token.start_after
        if ctx.cache.unchanged_since(prefix, revision):
            candidates = ctx.cache.list(prefix, namespace, after=start_after)
            page, more_token, remaining = _paginate(candidates, matches, options.limit, revision)
        else:
            page, more_token = await _page_from_store(
                ctx, served, namespace, revision, start_after, options.limit, matches
            )
            remaining = None
    elif options.resource_version_match == "Exact" and not ctx.cache.unchanged_since(
        prefix, int(options.resource_version)
    ):
        revision = int(options.resource_version)
        page, more_token = await _page_from_store(
            ctx, served, namespace, revision, "", options.limit, matches
        )
        remaining = None
    else:
        await wait_for_revision(ctx, options.resource_version)
        revision = ctx.cache.revision
        if options.resource_version_match == "Exact":
            revision = int(options.resource_version)
        candidates = ctx.cache.list(prefix, namespace)
        limit = options.limit if options.resource_version != "0" else 0
        page, more_token, remaining = _paginate(candidates, matches, limit, revision)

    page = list(await all_at_version_bounded(served, page))
    if negotiated.view is View.TABLE:
        body = views.table(
            served,
            page,
            now=ctx.clock(),
            include_object=include_object(request.query),
            meta_version=negotiated.meta_version,
            revision=revision,
            continue_token=more_token,
        )
        return json_response(body, content_type=negotiated.content_type)
    if negotiated.view in (View.METADATA, View.METADATA_LIST):
        body = views.partial_metadata_list(page, revision, more_token, negotiated.meta_version)
        return json_response(
            body,
            content_type=negotiated.content_type.replace(
                "=PartialObjectMetadata;", "=PartialObjectMetadataList;"
            ),
        )
    raw = views.list_body(served, page, revision, more_token, remaining)
    return web.Response(body=raw, content_type="application/json")


def _paginate(
    items: list[CachedObject], matches: object, limit: int, revision: int
) -> tuple[list[CachedObject], str, int | None]:
    selected = items if matches is None else [i for i in items if matches(i)]  # type: ignore[operator]
    if limit <= 0 or len(selected) <= limit:
        return selected, "", None
    page = selected[:limit]
    return page, encode_continue(revision, page[-1].key), len(selected) - limit


async def _page_from_store(
    ctx: APIContext,
    served: ServedResource,
    namespace: str,
    revision: int,
    start_after: str,
    limit: int,
    matches: object,
) -> tuple[list[CachedObject], str]:
    page: list[CachedObject] = []
    cursor = start_after
    while True:
        batch, more = await ctx.store.list_at(served, namespace, revision, cursor, limit or 0)
        page.extend(item for item in batch if matches is None or matches(item))  # type: ignore[operator]
        if batch:
            cursor = batch[-1].key
        if limit and len(page) > limit:
            page = page[:limit]
            return page, encode_continue(revision, page[-1].key)
        if not more:
            return page, ""
        if limit and len(page) == limit:
            return page, encode_continue(revision, cursor)
