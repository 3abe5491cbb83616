"""Issuing kube-apiserver client certificates from requests with the server's CA."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from flotilla.apiserver.pki.clusterbinding import binding_name, bound_cluster_uids
from flotilla.apiserver.pki.directory import create_ca, ensure_pki
from flotilla.apiserver.pki.signing import (
    MAX_DURATION,
    SigningAuthority,
    client_usage_problem,
    issue_client_certificate,
    load_signing_authority,
    signing_duration,
)
from tests.unit.apiserver.certificates.requests import certificate_request

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def authority() -> SigningAuthority:
    cert, key = create_ca("test-ca", NOW)
    return SigningAuthority(cert, key)


@pytest.mark.parametrize(
    ("usages", "problem"),
    [
        (["client auth"], ""),
        (["digital signature", "key encipherment", "client auth"], ""),
        (["digital signature"], "missing required usage for client certificate: client auth"),
        (["client auth", "server auth"], "invalid usage for client certificate: server auth"),
    ],
)
def test_client_certificates_need_client_auth_and_nothing_beyond_signature_and_encipherment(
    usages: list[str], problem: str
) -> None:
    """kube's kube-apiserver-client signer accepts exactly these usages."""
    assert client_usage_problem(usages) == problem


def test_the_lifetime_is_what_was_asked_capped_at_a_year() -> None:
    """expirationSeconds is honoured up to the cluster signing duration; absent, a year."""
    assert signing_duration(3600) == timedelta(hours=1)
    assert signing_duration(10 * 365 * 86400) == MAX_DURATION
    assert signing_duration(None) == MAX_DURATION


def test_the_certificate_carries_the_request_s_subject_names_and_key(authority: SigningAuthority) -> None:
    """Subject, alternative names and public key come from the request; issuer is the CA."""
    request = certificate_request("bob", ("dev", "ops"), dns_names=("bob.example",), ips=("10.0.0.1",))
    pem = issue_client_certificate(authority, request, ["client auth"], timedelta(hours=1), NOW)
    issued = x509.load_pem_x509_certificate(pem)
    assert issued.subject == request.subject
    assert issued.issuer == authority.certificate.subject
    assert issued.public_key() == request.public_key()
    names = issued.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["bob.example"]
    assert names.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("10.0.0.1")]
    assert list(issued.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH
    ]
    assert issued.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    with pytest.raises(x509.ExtensionNotFound):
        issued.extensions.get_extension_for_class(x509.KeyUsage)
    issued.verify_directly_issued_by(authority.certificate)


def test_the_certificate_is_backdated_and_expires_after_the_duration(authority: SigningAuthority) -> None:
    """Valid from five minutes before signing, for the duration; key usages as requested."""
    usages = ["digital signature", "key encipherment", "client auth"]
    issued = x509.load_pem_x509_certificate(
        issue_client_certificate(authority, certificate_request("bob"), usages, timedelta(days=1), NOW)
    )
    assert issued.not_valid_before_utc == NOW - timedelta(minutes=5)
    assert issued.not_valid_after_utc == NOW + timedelta(days=1)
    key_usage = issued.extensions.get_extension_for_class(x509.KeyUsage).value
    assert key_usage.digital_signature and key_usage.key_encipherment and not key_usage.key_cert_sign


def test_no_certificate_outlives_its_ca(authority: SigningAuthority) -> None:
    """Near the CA's end, certificates end with it."""
    late = authority.certificate.not_valid_after_utc - timedelta(days=2)
    issued = x509.load_pem_x509_certificate(
        issue_client_certificate(authority, certificate_request("bob"), ["client auth"], MAX_DURATION, late)
    )
    assert issued.not_valid_after_utc == authority.certificate.not_valid_after_utc


def test_the_authority_is_loaded_from_the_server_s_pki_directory(tmp_path: Path) -> None:
    """The signer uses the very CA that verifies client certificates."""
    paths = ensure_pki(tmp_path / "pki", [], NOW)
    loaded = load_signing_authority(paths.directory)
    assert loaded.certificate == x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    assert "PRIVATE" not in repr(loaded)


def test_only_the_signer_binds_a_certificate_to_a_cluster(authority: SigningAuthority) -> None:
    """A request's own `urn:uuid:` names are dropped; the signer's binding is written; the rest kept."""
    request = certificate_request(
        "system:karmada:agent:east",
        ("system:karmada:agents",),
        dns_names=("a.example",),
        uris=("urn:uuid:forged",),
    )
    forged = x509.load_pem_x509_certificate(
        issue_client_certificate(authority, request, ["client auth"], timedelta(hours=1), NOW)
    )
    assert bound_cluster_uids(forged) == []
    bound = x509.load_pem_x509_certificate(
        issue_client_certificate(
            authority, request, ["client auth"], timedelta(hours=1), NOW, binding=[binding_name("uid-1")]
        )
    )
    assert bound_cluster_uids(bound) == ["uid-1"]
    names = bound.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["a.example"]
