"""The etcd cluster's certificates: one CA, mutual TLS for clients and peers, reissued only when needed."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from flotilla.apiserver.pki.etcd import ensure_etcd_pki

NOW = datetime(2026, 1, 1, tzinfo=UTC)
MEMBERS = ["etcd-1", "etcd-2"]


def load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def usages(cert: x509.Certificate) -> set[x509.ObjectIdentifier]:
    return set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)


def test_members_serve_and_dial_with_certificates_of_the_etcd_ca(tmp_path: Path) -> None:
    """Server and peer certificates name loopback and the member, and are server and client certs."""
    paths = ensure_etcd_pki(tmp_path, MEMBERS, now=NOW)
    ca = load(paths.ca_cert)
    for member in MEMBERS:
        for path in (paths.server_cert(member), paths.peer_cert(member)):
            cert = load(path)
            cert.verify_directly_issued_by(ca)
            names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
            assert member in names.get_values_for_type(x509.DNSName)
            assert usages(cert) == {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
        assert paths.server_key(member).stat().st_mode & 0o077 == 0
    client = load(paths.apiserver_client_cert)
    client.verify_directly_issued_by(ca)
    assert usages(client) == {ExtendedKeyUsageOID.CLIENT_AUTH}
    assert paths.apiserver_client_key.stat().st_mode & 0o077 == 0


def test_running_it_again_keeps_every_file_and_adds_a_new_member(tmp_path: Path) -> None:
    """Nothing is reissued on a later start; a member that was not there gets its certificates."""
    paths = ensure_etcd_pki(tmp_path, MEMBERS, now=NOW)
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    ensure_etcd_pki(tmp_path, [*MEMBERS, "etcd-3"], now=NOW + timedelta(days=1))
    assert {path: path.read_bytes() for path in before} == before
    load(paths.server_cert("etcd-3")).verify_directly_issued_by(load(paths.ca_cert))


def test_a_leaf_near_its_end_or_of_another_ca_is_reissued(tmp_path: Path) -> None:
    """30 days before expiry a leaf is renewed; a CA made anew (its key lost) reissues every leaf."""
    paths = ensure_etcd_pki(tmp_path, MEMBERS, now=NOW)
    old = paths.peer_cert("etcd-1").read_bytes()
    ensure_etcd_pki(tmp_path, MEMBERS, now=NOW + timedelta(days=340))
    assert paths.peer_cert("etcd-1").read_bytes() != old
    paths.ca_key.unlink()
    ensure_etcd_pki(tmp_path, MEMBERS, now=NOW + timedelta(days=341))
    load(paths.apiserver_client_cert).verify_directly_issued_by(load(paths.ca_cert))
