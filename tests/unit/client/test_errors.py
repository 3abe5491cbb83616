"""The client's error tree: which failures are the request's own fault."""

from __future__ import annotations

import pytest

from flotilla.client import Unavailable
from flotilla.client.errors import is_rejected_request, status_error


@pytest.mark.parametrize(
    ("code", "reason", "rejected"),
    [
        (400, "BadRequest", True),
        (413, "RequestEntityTooLarge", True),
        (422, "Invalid", True),
        (409, "Conflict", False),
        (409, "AlreadyExists", False),
        (403, "Forbidden", False),
        (429, "TooManyRequests", False),
        (500, "InternalError", False),
        (504, "Timeout", False),
    ],
)
def test_only_a_request_refused_as_it_is_counts_as_rejected(code: int, reason: str, rejected: bool) -> None:
    """Bad, too large or invalid requests fail the same way again; conflicts, throttles and
    server failures may not."""
    assert is_rejected_request(status_error(code, {"reason": reason})) is rejected


def test_a_server_that_did_not_answer_did_not_reject_anything() -> None:
    assert is_rejected_request(Unavailable("connection refused")) is False
