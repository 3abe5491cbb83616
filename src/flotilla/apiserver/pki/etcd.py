"""Certificates for an etcd cluster the API servers keep their store in, laid out as kubeadm does.

etcd speaks TLS on two sides: to its clients (the API servers, etcdctl) and to its peers (the other
members, for Raft). Both sides are mutual: etcd checks the client's certificate
(`--client-cert-auth`, `--peer-client-cert-auth`) against one CA of its own, which signs nothing
else — a certificate of the hub's CA (an admin's, an agent's) opens no door to the raw store. The
files carry kubeadm's names, so its documentation and habits apply:

    <directory>/ca.crt, ca.key                         the etcd CA (10 years)
    <directory>/<member>/server.crt, server.key        a member's client-facing certificate
    <directory>/<member>/peer.crt, peer.key            a member's peer certificate
    <directory>/apiserver-etcd-client.crt, .key        what the API servers present to etcd
    <directory>/healthcheck-client.crt, .key           what operators and health probes present

Server and peer certificates name the member's addresses (SANs) and are used both ways, as serving
and as client certificates, because a member dials its peers with its peer certificate. Leaves last
a year. `ensure_etcd_pki` creates what is missing and reissues a leaf that expires within 30 days
or lacks an address; running it again changes nothing else, so it is safe on every start.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.apiserver.pki.directory import IPAddress, create_ca, issue

CA_NAME = "etcd-ca"
APISERVER_CLIENT_NAME = "kube-apiserver-etcd-client"
HEALTHCHECK_CLIENT_NAME = "kube-etcd-healthcheck-client"
RENEW_BEFORE = timedelta(days=30)
LOOPBACK = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))


@dataclass(frozen=True, slots=True)
class EtcdPKIPaths:
    """Where the etcd cluster's certificates live (see the module docstring for the layout)."""

    directory: Path

    @property
    def ca_cert(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.directory / "ca.key"

    @property
    def apiserver_client_cert(self) -> Path:
        return self.directory / "apiserver-etcd-client.crt"

    @property
    def apiserver_client_key(self) -> Path:
        return self.directory / "apiserver-etcd-client.key"

    @property
    def healthcheck_client_cert(self) -> Path:
        return self.directory / "healthcheck-client.crt"

    @property
    def healthcheck_client_key(self) -> Path:
        return self.directory / "healthcheck-client.key"

    def server_cert(self, member: str) -> Path:
        return self.directory / member / "server.crt"

    def server_key(self, member: str) -> Path:
        return self.directory / member / "server.key"

    def peer_cert(self, member: str) -> Path:
        return self.directory / member / "peer.crt"

    def peer_key(self, member: str) -> Path:
        return self.directory / member / "peer.key"


def ensure_etcd_pki(
    directory: Path,
    members: Sequence[str],
    addresses: Sequence[IPAddress] = LOOPBACK,
    now: datetime | None = None,
) -> EtcdPKIPaths:
    """Create the etcd CA and every certificate `members` need that is missing, stale or too narrow.

    `addresses` are the IPs every member's server and peer certificates name (besides `localhost`
    and the member's name): loopback for a cluster on one machine.
    """
    now = now or datetime.now(UTC)
    paths = EtcdPKIPaths(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)  # private keys live here
    if not paths.ca_cert.exists() or not paths.ca_key.exists():
        ca_cert, ca_key = create_ca(CA_NAME, now)
        _write(paths.ca_key, _key_pem(ca_key), 0o600)
        _write(paths.ca_cert, ca_cert.public_bytes(serialization.Encoding.PEM), 0o644)
    ca_cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    loaded = serialization.load_pem_private_key(paths.ca_key.read_bytes(), password=None)
    if not isinstance(loaded, ec.EllipticCurvePrivateKey):
        raise TypeError(f"{paths.ca_key} must hold an ECDSA key")
    authority = _Authority(ca_cert, loaded, now)
    for member in members:
        (directory / member).mkdir(exist_ok=True, mode=0o700)
        dns = ("localhost", member)
        for cert, key in (
            (paths.server_cert(member), paths.server_key(member)),
            (paths.peer_cert(member), paths.peer_key(member)),
        ):
            authority.ensure(cert, key, member, dns=dns, ips=tuple(addresses), server=True)
    authority.ensure(paths.apiserver_client_cert, paths.apiserver_client_key, APISERVER_CLIENT_NAME)
    authority.ensure(paths.healthcheck_client_cert, paths.healthcheck_client_key, HEALTHCHECK_CLIENT_NAME)
    return paths


@dataclass(frozen=True, slots=True)
class _Authority:
    certificate: x509.Certificate
    key: ec.EllipticCurvePrivateKey
    now: datetime

    def ensure(
        self,
        cert_path: Path,
        key_path: Path,
        common_name: str,
        *,
        dns: tuple[str, ...] = (),
        ips: tuple[IPAddress, ...] = (),
        server: bool = False,
    ) -> None:
        """Issue the leaf at `cert_path` unless a fresh one from this CA with these names is there."""
        if self._current(cert_path, key_path, dns, ips):
            return
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        cert, key = issue(
            self.certificate,
            self.key,
            subject,
            now=self.now,
            server=server,
            client=True,
            dns_names=dns,
            ips=ips,
        )
        _write(key_path, _key_pem(key), 0o600)
        _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)

    def _current(
        self, cert_path: Path, key_path: Path, dns: tuple[str, ...], ips: tuple[IPAddress, ...]
    ) -> bool:
        if not cert_path.exists() or not key_path.exists():
            return False
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if not self._signed(cert) or cert.not_valid_after_utc <= self.now + RENEW_BEFORE:
            return False
        if not dns and not ips:
            return True
        try:
            names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        except x509.ExtensionNotFound:
            return False
        return set(dns) <= set(names.get_values_for_type(x509.DNSName)) and set(ips) <= set(
            names.get_values_for_type(x509.IPAddress)
        )

    def _signed(self, cert: x509.Certificate) -> bool:
        """Whether this CA issued `cert` (a CA made anew has the same name but another key)."""
        try:
            identifier = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
        except x509.ExtensionNotFound:
            return False
        own = x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()).digest
        return cert.issuer == self.certificate.subject and identifier.key_identifier == own


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write(path: Path, data: bytes, mode: int) -> None:
    """Replace `path` atomically with `data`, created with `mode` (a key is never readable by others)."""
    temporary = path.with_name(f".{path.name}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
