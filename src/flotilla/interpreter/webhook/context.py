"""ResourceInterpreterContext: what an interpreter webhook is sent and what its answer means (no I/O).

The body both ways is Karmada's `config.karmada.io/v1alpha1` ResourceInterpreterContext. The
request carries a fresh `uid`, the object's `kind` (group, version, kind), `name`, `namespace`, the
`operation`, the `object`, and per operation the `observedObject` (Retain), `replicas` (the desired
count; Go always sends it, 0 when unused) and `aggregatedStatus` (AggregateStatus).

The answer is checked as Karmada's `VerifyResourceInterpreterContext` checks it: a `response` with
the request's `uid`; when `successful` is false a `status` (`code`, `message`) is required and the
call fails with it; otherwise InterpretReplica needs `replicas`, InterpretStatus `rawStatus`,
InterpretHealth `healthy`, InterpretDependency valid `dependencies`, and the operations that change
an object (ReviseReplica, Retain, AggregateStatus) a `patch` — base64 of an RFC 6902 JSON Patch —
with `patchType: JSONPatch`, or neither (the object unchanged).
"""

from __future__ import annotations

import base64
import binascii
import copy
from collections.abc import Mapping, Sequence
from typing import Any

import jsonpatch
import orjson

from flotilla.interpreter.lua.customizations import Operation
from flotilla.interpreter.webhook.configurations import CONTEXT_VERSION

API_VERSION = f"config.karmada.io/{CONTEXT_VERSION}"
KIND = "ResourceInterpreterContext"
JSON_PATCH = "JSONPatch"
PATCH_OPERATIONS = frozenset({Operation.REVISE_REPLICA, Operation.RETAIN, Operation.AGGREGATE_STATUS})


class InvalidResponse(ValueError):
    """The webhook's answer is unusable (Karmada: `received invalid webhook response: …`)."""


class UnsuccessfulResponse(ValueError):
    """The webhook answered `successful: false` (Karmada: `webhook call failed, get status code…`)."""


def interpreter_request(
    uid: str,
    operation: Operation,
    obj: Mapping[str, Any],
    *,
    observed: Mapping[str, Any] | None = None,
    replicas: int = 0,
    aggregated_status: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ResourceInterpreterContext sent for `operation` on `obj`."""
    api_version = str(obj.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/")
    metadata = obj.get("metadata") or {}
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": group, "version": version, "kind": str(obj.get("kind") or "")},
        "name": str(metadata.get("name") or ""),
        "operation": str(operation),
        "object": obj,
        "replicas": replicas,
    }
    if metadata.get("namespace"):
        request["namespace"] = metadata["namespace"]
    if observed is not None:
        request["observedObject"] = observed
    if aggregated_status:
        request["aggregatedStatus"] = list(aggregated_status)
    return {"apiVersion": API_VERSION, "kind": KIND, "request": request}


def read_response(uid: str, operation: Operation, body: bytes) -> dict[str, Any]:
    """The webhook's `response`, checked for `operation`; `InvalidResponse` or `UnsuccessfulResponse`."""
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise InvalidResponse(f"the answer is not JSON: {error}") from None
    if not isinstance(decoded, dict):
        raise InvalidResponse("the answer is not a ResourceInterpreterContext object")
    response = decoded.get("response")
    if not isinstance(response, dict):
        raise InvalidResponse("webhook response was absent")
    if response.get("uid") != uid:
        raise InvalidResponse(f'expected response.uid "{uid}", got "{response.get("uid", "")}"')
    if not response.get("successful"):
        status = response.get("status")
        if not isinstance(status, dict):
            raise InvalidResponse("webhook require response.status when response.successful is false")
        raise UnsuccessfulResponse(
            f"webhook call failed, get status code: {status.get('code', 0)}, msg: {status.get('message', '')}"
        )
    _verify(operation, response)
    return response


def _verify(operation: Operation, response: Mapping[str, Any]) -> None:
    if operation is Operation.INTERPRET_REPLICA:
        replicas = response.get("replicas")
        if replicas is None:
            raise InvalidResponse("webhook returned nil response.replicas")
        if not isinstance(replicas, int) or isinstance(replicas, bool):
            raise InvalidResponse(f"response.replicas must be an integer, got {replicas!r}")
        requirements = response.get("replicaRequirements")
        if requirements is not None and not isinstance(requirements, dict):
            raise InvalidResponse("response.replicaRequirements must be an object")
    elif operation is Operation.INTERPRET_STATUS:
        if response.get("rawStatus") is None:
            raise InvalidResponse("webhook returned nil response.rawStatus")
    elif operation is Operation.INTERPRET_HEALTH:
        healthy = response.get("healthy")
        if healthy is None:
            raise InvalidResponse("webhook returned nil response.healthy")
        if not isinstance(healthy, bool):
            raise InvalidResponse(f"response.healthy must be a boolean, got {healthy!r}")
    elif operation is Operation.INTERPRET_DEPENDENCY:
        _verify_dependencies(response.get("dependencies"))
    elif operation in PATCH_OPERATIONS:
        _verify_patch(response)


def _verify_dependencies(dependencies: Any) -> None:
    if dependencies is None:
        return
    if not isinstance(dependencies, list):
        raise InvalidResponse("response.dependencies must be a list")
    for index, dependency in enumerate(dependencies):
        if not isinstance(dependency, dict):
            raise InvalidResponse(f"dependencies[{index}] must be an object")
        for key in ("apiVersion", "kind"):
            if not dependency.get(key):
                raise InvalidResponse(f"dependencies[{index}].{key} is required")
        if not dependency.get("name") and not dependency.get("labelSelector"):
            raise InvalidResponse(
                f"dependencies[{index}]: name and labelSelector cannot be empty at the same time"
            )


def _verify_patch(response: Mapping[str, Any]) -> None:
    patch, patch_type = response.get("patch"), response.get("patchType")
    if not patch and patch_type is None:
        return
    if patch_type is None:
        raise InvalidResponse("webhook returned nil response.patchType")
    if not patch:
        raise InvalidResponse("webhook returned empty response.patch")
    if patch_type != JSON_PATCH:
        raise InvalidResponse(f'webhook returned invalid response.patchType of "{patch_type}"')


def apply_response_patch(obj: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """`obj` with the response's JSON Patch applied (a copy; `obj` unchanged without a patch)."""
    encoded = response.get("patch")
    if not encoded:
        return copy.deepcopy(dict(obj))
    if not isinstance(encoded, str):
        raise InvalidResponse("response.patch must be a base64 string")
    try:
        operations = orjson.loads(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError) as error:
        raise InvalidResponse(f"response.patch is not base64 of a JSON Patch: {error}") from None
    if not isinstance(operations, list):
        raise InvalidResponse("response.patch must be a JSON Patch (a list of operations)")
    try:
        patched = jsonpatch.apply_patch(dict(obj), operations, in_place=False)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError) as error:
        raise InvalidResponse(f"the patch does not apply: {error}") from None
    if not isinstance(patched, dict):
        raise InvalidResponse("the patched object is not an object")
    return patched
