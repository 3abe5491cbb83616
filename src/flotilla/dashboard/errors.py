"""Every failure the dashboard answers with, as a Kubernetes `Status`, rendered in one place.

A hub error keeps its code, reason and field causes (a 403 from RBAC is the user's 403); a hub that
does not answer is a 502; bad input is a 400 or a 422 with causes. The browser shows `message`; no
traceback ever leaves the server.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from flotilla.client import APIStatusError


class DashboardError(Exception):
    """A failure with its HTTP status and Kubernetes reason."""

    def __init__(
        self, code: int, reason: str, message: str, causes: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.causes = causes or []


def bad_request(message: str) -> DashboardError:
    return DashboardError(400, "BadRequest", message)


def invalid(message: str, field: str) -> DashboardError:
    cause = {"type": "FieldValueInvalid", "field": field, "message": message}
    return DashboardError(422, "Invalid", message, [cause])


def unauthorized(message: str = "sign in first") -> DashboardError:
    return DashboardError(401, "Unauthorized", message)


def forbidden(message: str) -> DashboardError:
    return DashboardError(403, "Forbidden", message)


def from_hub(error: APIStatusError) -> DashboardError:
    return DashboardError(error.code, error.reason or "Failure", error.message, list(error.causes))


def status_response(error: DashboardError) -> web.Response:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": error.message,
        "reason": error.reason,
        "code": error.code,
        "details": {"causes": error.causes} if error.causes else {},
    }
    return web.json_response(body, status=error.code)
