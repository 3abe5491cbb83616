"""One method per interpreter operation, answered by the webhook whose rules match the object.

Each method returns None when no webhook answers the operation for the object's kind (the next
interpreter answers), and raises `WebhookInterpreterError` — naming the configuration, the webhook
and the operation — when the call fails or its answer is unusable. The call itself is injected
(`call(webhook, body) -> answer body`, raising `WebhookCallFailed` with the HTTP client's words):
this module builds requests and reads answers, the runtime sends them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from flotilla.interpreter.lua.customizations import Operation
from flotilla.interpreter.webhook.configurations import CONTEXT_VERSION, InterpreterWebhook, WebhookIndex
from flotilla.interpreter.webhook.context import (
    InvalidResponse,
    UnsuccessfulResponse,
    apply_response_patch,
    interpreter_request,
    read_response,
)


class WebhookCallFailed(Exception):
    """The webhook could not be called; `reason` in the Go client's words (`Post "…": …`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


WebhookCall = Callable[[InterpreterWebhook, bytes], bytes]
"""Posts a body to a webhook and returns its 2xx answer, or raises `WebhookCallFailed`."""


class WebhookInterpreterError(Exception):
    """An interpreter webhook failed; says which configuration, webhook and operation."""

    def __init__(self, webhook: InterpreterWebhook, operation: Operation, message: str) -> None:
        super().__init__(
            f'ResourceInterpreterWebhookConfiguration "{webhook.configuration}" {operation}: '
            f'failed calling webhook "{webhook.uid}": {message}'
        )
        self.configuration = webhook.configuration
        self.webhook = webhook.uid
        self.operation = operation
        self.detail = f'failed calling webhook "{webhook.uid}": {message}'


def _target(obj: Mapping[str, Any]) -> tuple[str, str]:
    return str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")


class WebhookInterpreter:
    """The hub's interpreter webhooks, called through `call`."""

    def __init__(self, index: WebhookIndex, call: WebhookCall) -> None:
        self.index = index
        self._call = call

    def covers(self, obj: Mapping[str, Any], operation: Operation) -> bool:
        return self.index.first(*_target(obj), operation) is not None

    def _interpret(
        self, obj: Mapping[str, Any], operation: Operation, **request: Any
    ) -> tuple[InterpreterWebhook, dict[str, Any]] | None:
        webhook = self.index.first(*_target(obj), operation)
        if webhook is None:
            return None
        if CONTEXT_VERSION not in webhook.context_versions:
            raise WebhookInterpreterError(
                webhook,
                operation,
                "could not create ResourceInterpreterContext objects: webhook does not accept known "
                f"ResourceInterpreterContext versions ({CONTEXT_VERSION})",
            )
        uid = str(uuid.uuid4())
        body = orjson.dumps(interpreter_request(uid, operation, obj, **request))
        try:
            answer = self._call(webhook, body)
            return webhook, read_response(uid, operation, answer)
        except WebhookCallFailed as error:
            raise WebhookInterpreterError(webhook, operation, error.reason) from error
        except InvalidResponse as error:
            raise WebhookInterpreterError(
                webhook, operation, f"received invalid webhook response: {error}"
            ) from error
        except UnsuccessfulResponse as error:
            raise WebhookInterpreterError(webhook, operation, str(error)) from error

    def _patched(self, obj: Mapping[str, Any], operation: Operation, **request: Any) -> dict[str, Any] | None:
        found = self._interpret(obj, operation, **request)
        if found is None:
            return None
        webhook, response = found
        try:
            return apply_response_patch(obj, response)
        except InvalidResponse as error:
            raise WebhookInterpreterError(webhook, operation, str(error)) from error

    # -- operations ---------------------------------------------------------------------------------

    def get_replicas(self, obj: Mapping[str, Any]) -> tuple[int, dict[str, Any] | None] | None:
        found = self._interpret(obj, Operation.INTERPRET_REPLICA)
        if found is None:
            return None
        _, response = found
        requirements = response.get("replicaRequirements")
        return int(response["replicas"]), dict(requirements) if requirements else None

    def revise_replica(self, obj: Mapping[str, Any], replicas: int) -> dict[str, Any] | None:
        return self._patched(obj, Operation.REVISE_REPLICA, replicas=replicas)

    def retain(self, desired: Mapping[str, Any], observed: Mapping[str, Any]) -> dict[str, Any] | None:
        return self._patched(desired, Operation.RETAIN, observed=observed)

    def reflect_status(self, observed: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self._interpret(observed, Operation.INTERPRET_STATUS)
        if found is None:
            return None
        webhook, response = found
        status = response["rawStatus"]
        if not isinstance(status, dict):
            raise WebhookInterpreterError(
                webhook,
                Operation.INTERPRET_STATUS,
                "received invalid webhook response: rawStatus is not an object",
            )
        return status

    def interpret_health(self, observed: Mapping[str, Any]) -> bool | None:
        found = self._interpret(observed, Operation.INTERPRET_HEALTH)
        return None if found is None else bool(found[1]["healthy"])

    def aggregate_status(
        self, template: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any] | None:
        return self._patched(template, Operation.AGGREGATE_STATUS, aggregated_status=items)

    def get_dependencies(self, obj: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        found = self._interpret(obj, Operation.INTERPRET_DEPENDENCY)
        if found is None:
            return None
        return [dict(dependency) for dependency in found[1].get("dependencies") or []]
