"""The client's errors: a Kubernetes Status answered by the server, or the server not answering."""

from __future__ import annotations

import json
from typing import Any


class ClientError(Exception):
    """Base of every client failure."""


class Unavailable(ClientError):
    """The server could not be reached or did not answer in time (connection refused, timeout, TLS)."""


class APIStatusError(ClientError):
    """The server answered with a failure Status."""

    code = 0

    def __init__(self, code: int, status: dict[str, Any]) -> None:
        self.code = code
        self.status = status
        self.reason = str(status.get("reason") or "")
        self.message = str(status.get("message") or f"HTTP {code}")
        super().__init__(f"{code} {self.reason}: {self.message}")

    @property
    def causes(self) -> list[dict[str, Any]]:
        details = self.status.get("details") or {}
        causes: list[dict[str, Any]] = details.get("causes") or []
        return causes


class NotFound(APIStatusError):
    pass


class AlreadyExists(APIStatusError):
    pass


class Conflict(APIStatusError):
    pass


class Gone(APIStatusError):
    """410: the resourceVersion asked for is older than the server's history; relist."""


class ContinueExpired(Gone):
    """410 on a later page of a list: the server compacted past the revision the list is read at.
    The pages read so far are no longer one consistent list; list again, whole."""


class Invalid(APIStatusError):
    pass


class Forbidden(APIStatusError):
    pass


class Unauthorized(APIStatusError):
    pass


def status_error(code: int, status: dict[str, Any]) -> APIStatusError:
    """The error class for a failure Status."""
    reason = status.get("reason")
    if code == 404:
        return NotFound(code, status)
    if code == 409:
        return AlreadyExists(code, status) if reason == "AlreadyExists" else Conflict(code, status)
    if code == 410:
        return Gone(code, status)
    if code == 422:
        return Invalid(code, status)
    if code == 403:
        return Forbidden(code, status)
    if code == 401:
        return Unauthorized(code, status)
    return APIStatusError(code, status)


def status_of_answer(code: int, raw: bytes) -> dict[str, Any]:
    """The Status a failed request answered with; one made of its text when the body is not a Status
    (a proxy's error page, a plain-text message)."""
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict) or body.get("kind") != "Status":
        text = raw.decode(errors="replace").strip()[:500]
        return {"kind": "Status", "status": "Failure", "code": code, "message": text or f"HTTP {code}"}
    return body


REJECTED_REQUEST_CODES = frozenset({400, 413, 422})
"""Bad request, too large, invalid: the server refused the request itself."""


def is_rejected_request(error: BaseException) -> bool:
    """Whether the server refused the request as it is (sending it again fails the same way), as
    opposed to a conflict, a throttle or a server that could not answer."""
    return isinstance(error, APIStatusError) and error.code in REJECTED_REQUEST_CODES
