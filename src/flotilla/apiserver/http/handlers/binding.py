"""POST `pods/<name>/binding`: a Binding read and checked as kube reads it, then `writes/binding.py`."""

from __future__ import annotations

from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import read_body
from flotilla.apiserver.http.handlers.writes import write_options
from flotilla.apiserver.http.responses import json_response, success_status
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.writes.binding import bind_pod


async def create_binding(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    """POST pods/<name>/binding with a Binding `{target: {kind: Node, name: <node>}}`."""
    body = (await read_body(await request.read(), request.headers.get("Content-Type"))).obj
    if not isinstance(body, dict) or not isinstance(body.get("target"), dict):
        raise errors.BadRequest('a Binding needs a target: {"target": {"kind": "Node", "name": "node-1"}}')
    node = body["target"].get("name")
    if not node:
        raise errors.Invalid(
            f'Binding "{info.name}" is invalid: target.name: Required value',
            name=info.name,
            kind="Binding",
            causes=[{"reason": "FieldValueRequired", "message": "Required value", "field": "target.name"}],
        )
    await bind_pod(ctx, info.namespace, info.name, str(node), write_options(request))
    return json_response(success_status(), status=201)
