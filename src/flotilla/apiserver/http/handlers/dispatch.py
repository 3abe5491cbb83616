"""Route a resource request to its verb handler, after checking the resource and verb exist."""

from __future__ import annotations

from aiohttp import web

from flotilla.api.scheme import GroupResource
from flotilla.apiserver import errors
from flotilla.apiserver.context import CONTEXT, SubresourceHandler
from flotilla.apiserver.http.handlers import binding, deletes, reads, reviews, tokenrequest, watch, writes
from flotilla.apiserver.requestinfo import request_info

Handler = SubresourceHandler

_MAIN: dict[str, Handler] = {
    "get": reads.get,
    "list": reads.list_,
    "watch": watch.watch,
    "create": writes.create,
    "update": writes.update,
    "patch": writes.patch,
    "delete": deletes.delete,
    "deletecollection": deletes.delete_collection,
}
_STATUS: dict[str, Handler] = {"get": reads.get, "update": writes.update, "patch": writes.patch}
_SCALE: dict[str, Handler] = {
    "get": writes.get_scale,
    "update": writes.write_scale,
    "patch": writes.write_scale,
}
SUBRESOURCE_HANDLERS: dict[str, dict[str, Handler]] = {
    "status": _STATUS,
    "scale": _SCALE,
    "finalize": {"update": writes.update},
    "binding": {"create": binding.create_binding},
    "token": {"create": tokenrequest.create_token},
}
"""Handlers of subresources by name and verb; other components register theirs here at start."""
VIRTUAL_HANDLERS: dict[GroupResource, dict[str, Handler]] = {
    resource: {"create": reviews.create_review} for resource in reviews.REVIEW_RESOURCES
}
"""Handlers of resources that are computed per request and never stored (access reviews)."""


async def handle_resource(request: web.Request) -> web.StreamResponse:
    ctx = request.app[CONTEXT]
    info = request_info(request)
    if info is None:
        raise errors.path_not_found()
    served = ctx.registry.lookup(info.group, info.version, info.resource)
    if served is None:
        raise errors.path_not_found()
    if served.namespaced and not info.namespace and info.verb not in ("list", "watch"):
        raise errors.path_not_found()
    if not served.namespaced and info.namespace and served.type.plural != "namespaces":
        raise errors.path_not_found()
    if info.subresource:
        served_by_component = ctx.subresource_handlers.get(
            (served.type.group, served.type.plural, info.subresource)
        )
        if served_by_component is not None and served.type.subresource(info.subresource) is None:
            # A subresource the kind does not declare, served by a component (the cluster proxy on
            # the Cluster CRD): the component's verbs are the only ones.
            component_handler = served_by_component.get(info.verb)
            if component_handler is None:
                raise _not_allowed(request)
            return await component_handler(request, ctx, info, served)
        sub = served.type.subresource(info.subresource)
        handlers = SUBRESOURCE_HANDLERS.get(info.subresource) if sub else None
        extra = ctx.subresource_handlers.get((served.type.group, served.type.plural, info.subresource))
        handler = extra.get(info.verb) if extra else (handlers or {}).get(info.verb)
        if sub is None or handler is None or info.verb not in sub.verbs:
            if sub is None and handlers is None and extra is None:
                raise errors.path_not_found()
            raise _not_allowed(request)
        return await handler(request, ctx, info, served)
    if info.verb not in served.type.verbs:
        raise _not_allowed(request)
    if (info.name and info.verb == "create") or (not info.name and info.verb in ("update", "patch")):
        raise _not_allowed(request)
    verb_handlers = ctx.computed_resources.get(served.type.group_resource)
    if verb_handlers is None:
        verb_handlers = VIRTUAL_HANDLERS.get(served.type.group_resource, _MAIN)
    handler = verb_handlers.get(info.verb)
    if handler is None:
        raise _not_allowed(request)
    return await handler(request, ctx, info, served)


def _not_allowed(request: web.Request) -> errors.MethodNotAllowed:
    return errors.MethodNotAllowed("the server does not allow this method on the requested resource")
