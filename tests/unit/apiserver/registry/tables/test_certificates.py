from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.apiserver.registry.tables.certificates import CERTIFICATE_SIGNING_REQUEST, request_condition

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def test_signing_request_row() -> None:
    """A CSR prints age, signer, requesting user, requested duration and its condition summary."""
    request = {
        "metadata": {"name": "agent-member-1", "creationTimestamp": "2025-03-01T11:58:00Z"},
        "spec": {
            "signerName": "kubernetes.io/kube-apiserver-client",
            "username": "system:bootstrap:abc123",
            "expirationSeconds": 86400,
            "request": "LS0t",
        },
        "status": {"conditions": [{"type": "Approved", "status": "True"}], "certificate": "LS0t"},
    }
    assert CERTIFICATE_SIGNING_REQUEST.cells(request, NOW) == [
        "agent-member-1",
        "2m",
        "kubernetes.io/kube-apiserver-client",
        "system:bootstrap:abc123",
        "24h",
        "Approved,Issued",
    ]


@pytest.mark.parametrize(
    ("types", "certificate", "expected"),
    [
        ([], "", "Pending"),
        (["Approved", "Denied"], "", "Denied"),
        (["Approved", "Failed"], "", "Approved,Failed"),
    ],
)
def test_request_condition_precedence(types: list[str], certificate: str, expected: str) -> None:
    """Denied beats Approved beats Pending; Failed and Issued are appended."""
    request: dict[str, Any] = {
        "status": {"conditions": [{"type": t} for t in types], "certificate": certificate}
    }
    assert request_condition(request) == expected


def test_signing_request_without_duration_or_signer() -> None:
    """Unset signer and duration print `<none>`."""
    assert CERTIFICATE_SIGNING_REQUEST.cells({"metadata": {"name": "x"}}, NOW)[2:5] == [
        "<none>",
        "",
        "<none>",
    ]
