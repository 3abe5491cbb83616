"""The operations model (`operations.py`) written as Swagger 2.0 path items, as `/openapi/v2` has them.

Swagger 2.0 says with parameters and lists what OpenAPI 3.0 says with `content` maps: a parameter's
type sits on the parameter, a request body is the parameter `in: body` (first, as kube lists it),
the body's media types are the operation's `consumes`, every response's media types together its
`produces`, and a response names its schema directly. kube also marks every operation
`schemes: [https]`.

kubectl 1.27 and 1.28 read this document: their field-validation check looks, on each path's PATCH
operation, for `x-kubernetes-group-version-kind` equal to the object's kind and then for a query
parameter named `fieldValidation`; `apply`, `diff` and `explain` read the `definitions`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .components import Dialect, schema_ref
from .operations import Body, Operation, PathItem, Response
from .parameters import Parameter

SWAGGER_VERSION = "2.0"
SCHEMES = ("https",)


def v2_paths(path_items: Iterable[PathItem]) -> dict[str, dict[str, Any]]:
    """The `paths` object of a v2 document, by URL."""
    return {item.path: v2_path_item(item) for item in path_items}


def v2_path_item(item: PathItem) -> dict[str, Any]:
    path_item: dict[str, Any] = {operation.method: _operation(operation) for operation in item.operations}
    if item.parameters:
        path_item["parameters"] = [_parameter(parameter) for parameter in item.parameters]
    return path_item


def _operation(operation: Operation) -> dict[str, Any]:
    written: dict[str, Any] = {}
    parameters = [_parameter(parameter) for parameter in operation.parameters]
    if operation.body is not None:
        written["consumes"] = list(operation.body.media_types)
        parameters.insert(0, _body_parameter(operation.body))
    written["description"] = operation.description
    written["operationId"] = operation.operation_id
    if parameters:
        written["parameters"] = parameters
    written["produces"] = _produces(operation.responses)
    written["responses"] = {response.code: _response(response) for response in operation.responses}
    written["schemes"] = list(SCHEMES)
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
    written["type"] = parameter.type
    written["uniqueItems"] = True
    return written


def _body_parameter(body: Body) -> dict[str, Any]:
    written: dict[str, Any] = {"in": "body", "name": "body"}
    if body.required:
        written["required"] = True
    written["schema"] = schema_ref(body.schema, Dialect.SWAGGER_2)
    return written


def _produces(responses: Iterable[Response]) -> list[str]:
    media_types: list[str] = []
    for response in responses:
        if response.schema is not None:
            media_types.extend(media for media in response.media_types if media not in media_types)
    return media_types


def _response(response: Response) -> dict[str, Any]:
    written: dict[str, Any] = {"description": response.description}
    if response.schema is not None:
        written["schema"] = schema_ref(response.schema, Dialect.SWAGGER_2)
    return written
