"""The operations model (`operations.py`) written as OpenAPI 3.0 path items, as `/openapi/v3` has them.

OpenAPI 3.0 puts a parameter's type under `schema`, a request body under `requestBody.content`
(one entry per media type) and each response's media types under its own `content`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .components import schema_ref
from .operations import Body, Operation, PathItem, Response
from .parameters import Parameter


def v3_paths(path_items: Iterable[PathItem]) -> dict[str, dict[str, Any]]:
    """The `paths` object of a v3 document, by URL."""
    return {item.path: v3_path_item(item) for item in path_items}


def v3_path_item(item: PathItem) -> dict[str, Any]:
    path_item: dict[str, Any] = {operation.method: _operation(operation) for operation in item.operations}
    if item.parameters:
        path_item["parameters"] = [_parameter(parameter) for parameter in item.parameters]
    return path_item


def _operation(operation: Operation) -> dict[str, Any]:
    written: dict[str, Any] = {"description": operation.description, "operationId": operation.operation_id}
    if operation.parameters:
        written["parameters"] = [_parameter(parameter) for parameter in operation.parameters]
    if operation.body is not None:
        written["requestBody"] = _request_body(operation.body)
    written["responses"] = {response.code: _response(response) for response in operation.responses}
    written["tags"] = [operation.tag]
    written.update(operation.extensions())
    return written


def _parameter(parameter: Parameter) -> dict[str, Any]:
    written: dict[str, Any] = {
        "description": parameter.description,
        "in": parameter.location,
        "name": parameter.name,
    }
    if parameter.required:
        written["required"] = True
    written["schema"] = {"type": parameter.type, "uniqueItems": True}
    return written


def _request_body(body: Body) -> dict[str, Any]:
    written: dict[str, Any] = {"content": _content(body.media_types, body.schema)}
    if body.required:
        written["required"] = True
    return written


def _response(response: Response) -> dict[str, Any]:
    if response.schema is None:
        return {"description": response.description}
    return {"content": _content(response.media_types, response.schema), "description": response.description}


def _content(media_types: tuple[str, ...], schema: str) -> dict[str, Any]:
    return {media_type: {"schema": schema_ref(schema)} for media_type in media_types}
