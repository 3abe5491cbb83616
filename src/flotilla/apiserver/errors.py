"""API errors: one exception per Kubernetes failure reason, rendered as a `Status` in one place.

Handlers raise these; the error middleware turns them into the JSON `Status` body kubectl prints as
`Error from server (<reason>): <message>` and the Python client raises as `ApiException`. Storage
errors are translated here too (`from_storage`), so no storage exception ever reaches a client.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flotilla.api.fielderrors import FieldError
from flotilla.api.scheme import GroupResource


class APIError(Exception):
    code = 500
    reason = "InternalError"

    def __init__(
        self,
        message: str,
        *,
        name: str = "",
        group: str = "",
        kind: str = "",
        causes: Sequence[dict[str, str]] = (),
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.name = name
        self.group = group
        self.kind = kind
        self.causes = list(causes)
        self.retry_after = retry_after

    def status(self) -> dict[str, Any]:
        """The `Status` object for this error."""
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        details: dict[str, Any] = {}
        if self.name:
            details["name"] = self.name
        if self.group:
            details["group"] = self.group
        if self.kind:
            details["kind"] = self.kind
        if self.causes:
            details["causes"] = self.causes
        if self.retry_after is not None:
            details["retryAfterSeconds"] = self.retry_after
        if details:
            body["details"] = details
        return body


class BadRequest(APIError):
    code = 400
    reason = "BadRequest"


class Unauthorized(APIError):
    code = 401
    reason = "Unauthorized"


class Forbidden(APIError):
    code = 403
    reason = "Forbidden"


class NotFound(APIError):
    code = 404
    reason = "NotFound"


class MethodNotAllowed(APIError):
    code = 405
    reason = "MethodNotAllowed"


class NotAcceptable(APIError):
    code = 406
    reason = "NotAcceptable"


class AlreadyExists(APIError):
    code = 409
    reason = "AlreadyExists"


class Conflict(APIError):
    code = 409
    reason = "Conflict"


class Gone(APIError):
    code = 410
    reason = "Expired"


class RequestEntityTooLarge(APIError):
    code = 413
    reason = "RequestEntityTooLarge"


class UnsupportedMediaType(APIError):
    code = 415
    reason = "UnsupportedMediaType"


class Invalid(APIError):
    code = 422
    reason = "Invalid"


class TooManyRequests(APIError):
    code = 429
    reason = "TooManyRequests"


class InternalError(APIError):
    code = 500
    reason = "InternalError"


class ServerTimeout(APIError):
    code = 504
    reason = "Timeout"


class ServiceUnavailable(APIError):
    code = 503
    reason = "ServiceUnavailable"


def not_found(resource: GroupResource, name: str) -> NotFound:
    return NotFound(f'{resource} "{name}" not found', name=name, group=resource.group, kind=resource.resource)


def already_exists(resource: GroupResource, name: str) -> AlreadyExists:
    return AlreadyExists(
        f'{resource} "{name}" already exists', name=name, group=resource.group, kind=resource.resource
    )


def conflict(resource: GroupResource, name: str, detail: str) -> Conflict:
    return Conflict(
        f'Operation cannot be fulfilled on {resource} "{name}": {detail}',
        name=name,
        group=resource.group,
        kind=resource.resource,
    )


STALE_OBJECT = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(kind: str, group: str, name: str, errors: Sequence[FieldError]) -> Invalid:
    """422 with one cause per field error, worded as kube-apiserver words it."""
    qualified = f"{kind}.{group}" if group else kind
    if len(errors) == 1:
        summary = str(errors[0])
    else:
        summary = "[" + ", ".join(str(e) for e in errors) + "]"
    return Invalid(
        f'{qualified} "{name}" is invalid: {summary}',
        name=name,
        group=group,
        kind=kind,
        causes=[e.cause() for e in errors],
    )


def path_not_found() -> NotFound:
    return NotFound("the server could not find the requested resource")
