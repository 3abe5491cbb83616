"""Which CertificateSigningRequests the cleaner deletes, and when (kube's csrcleaner rules)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from flotilla.apiserver.certificates.cleaner import expiry_reason
from flotilla.apiserver.pki.directory import create_ca
from flotilla.apiserver.pki.signing import SigningAuthority, issue_client_certificate
from tests.unit.apiserver.certificates.requests import (
    certificate_request,
    condition,
    signing_request,
    with_status,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
CSR = signing_request("bob", certificate_request("bob"))


def stamp(ago: timedelta) -> str:
    return (NOW - ago).strftime("%Y-%m-%dT%H:%M:%SZ")


def created(ago: timedelta) -> dict[str, object]:
    return {**CSR, "metadata": {"name": "bob", "creationTimestamp": stamp(ago)}}


def issued(lifetime: timedelta, signed_ago: timedelta) -> str:
    cert, key = create_ca("ca", NOW - timedelta(days=30))
    pem = issue_client_certificate(
        SigningAuthority(cert, key), certificate_request("bob"), ["client auth"], lifetime, NOW - signed_ago
    )
    assert pem.startswith(b"-----BEGIN CERTIFICATE")
    return base64.b64encode(pem).decode()


HOUR = timedelta(hours=1)


def decided(kind: str, ago: timedelta, *more: str) -> dict[str, object]:
    """A request created three hours ago, decided (`kind`, then `more`) `ago`."""
    entries = [condition(k, lastUpdateTime=stamp(ago)) for k in (kind, *more)]
    return with_status(created(HOUR * 3), *entries)


CASES = [
    ("fresh pending request", created(timedelta(hours=23)), ""),
    ("pending for a day", created(timedelta(hours=25)), "pending for more than a day"),
    ("denied a minute ago", decided("Denied", timedelta(minutes=1)), ""),
    ("denied two hours ago", decided("Denied", HOUR * 2), "denied more than an hour ago"),
    ("failed two hours ago", decided("Approved", HOUR * 2, "Failed"), "failed more than an hour ago"),
    ("approved, not issued, two hours ago", decided("Approved", HOUR * 2), ""),
]


@pytest.mark.parametrize(("case", "csr", "reason"), CASES, ids=[c[0] for c in CASES])
def test_decided_and_stale_requests_are_deleted_after_their_time(
    case: str, csr: dict[str, object], reason: str
) -> None:
    """Denied and failed after an hour, pending after a day; an unissued approval waits for its signer."""
    assert expiry_reason(csr, NOW) == reason


def test_issued_requests_go_an_hour_after_approval_or_when_the_certificate_expires() -> None:
    """kube keeps an issued request an hour after approval, and never past its certificate."""
    recent = condition("Approved", lastUpdateTime=stamp(timedelta(minutes=10)))
    long_ago = condition("Approved", lastUpdateTime=stamp(HOUR * 2))
    assert (
        expiry_reason(with_status(created(HOUR), recent, certificate=issued(HOUR, timedelta(0))), NOW) == ""
    )
    assert (
        expiry_reason(with_status(created(HOUR * 3), long_ago, certificate=issued(HOUR * 24, HOUR)), NOW)
        == "issued more than an hour ago"
    )
    expired = issued(timedelta(minutes=10), timedelta(minutes=20))
    assert (
        expiry_reason(with_status(created(HOUR), recent, certificate=expired), NOW)
        == "its certificate has expired"
    )


def test_a_certificate_that_does_not_parse_never_counts_as_expired() -> None:
    """Garbage in status.certificate does not make the cleaner act on its own."""
    recent = condition("Approved", lastUpdateTime=stamp(timedelta(minutes=10)))
    garbage = base64.b64encode(b"not a certificate").decode()
    assert expiry_reason(with_status(created(HOUR), recent, certificate=garbage), NOW) == ""
