"""The server's certificates: a CA, a serving certificate and an admin client certificate.

On first start the API server creates, under `<data-dir>/pki`, a CA (10 years), a serving
certificate (1 year) whose SANs cover every name a client may use — localhost, loopback addresses,
the host name, every local interface address and any extra names given — and an admin client
certificate in group `system:masters`. On later starts it keeps them, but reissues the serving
certificate when a needed name is missing (a new interface address, a new extra SAN), so nobody
has to reinstall because a certificate lacks the node's IP. Keys are ECDSA P-256.
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import itertools
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_LIFETIME = timedelta(days=3650)
LEAF_LIFETIME = timedelta(days=365)
ADMIN_USER = "kubernetes-admin"
ADMIN_GROUP = "system:masters"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class PKIPaths:
    directory: Path

    @property
    def ca_cert(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.directory / "ca.key"

    @property
    def serving_cert(self) -> Path:
        return self.directory / "apiserver.crt"

    @property
    def serving_key(self) -> Path:
        return self.directory / "apiserver.key"

    @property
    def admin_cert(self) -> Path:
        return self.directory / "admin.crt"

    @property
    def admin_key(self) -> Path:
        return self.directory / "admin.key"


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _write_public(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _name(common_name: str, organizations: tuple[str, ...] = ()) -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    return x509.Name(attributes)


def create_ca(common_name: str, now: datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = _new_key()
    name = _name(common_name)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + CA_LIFETIME)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def issue(
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    subject: x509.Name,
    *,
    now: datetime,
    server: bool = False,
    client: bool = False,
    dns_names: tuple[str, ...] = (),
    ips: tuple[IPAddress, ...] = (),
    lifetime: timedelta = LEAF_LIFETIME,
    key: ec.EllipticCurvePrivateKey | None = None,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = key or _new_key()
    usages = []
    if server:
        usages.append(ExtendedKeyUsageOID.SERVER_AUTH)
    if client:
        usages.append(ExtendedKeyUsageOID.CLIENT_AUTH)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(min(now + lifetime, ca_cert.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_encipherment=True,
                content_commitment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
    )
    if dns_names or ips:
        sans: list[x509.GeneralName] = [x509.DNSName(d) for d in dns_names]
        sans += [x509.IPAddress(ip) for ip in ips]
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def local_addresses() -> set[IPAddress]:
    """Every address of this host's interfaces (Linux /proc), plus what the host name resolves to."""
    found: set[IPAddress] = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
    with contextlib.suppress(OSError):
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
        for previous, line in itertools.pairwise(lines):
            if "/32 host LOCAL" in line:
                candidate = previous.strip().split()[-1]
                with contextlib.suppress(ValueError):
                    found.add(ipaddress.ip_address(candidate))
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            hexaddr = line.split()[0]
            with contextlib.suppress(ValueError):
                found.add(ipaddress.ip_address(":".join(hexaddr[i : i + 4] for i in range(0, 32, 4))))
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None):
            with contextlib.suppress(ValueError):
                found.add(ipaddress.ip_address(str(info[4][0]).split("%")[0]))
    return found


def split_sans(names: list[str]) -> tuple[set[str], set[IPAddress]]:
    dns: set[str] = set()
    ips: set[IPAddress] = set()
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        try:
            ips.add(ipaddress.ip_address(name))
        except ValueError:
            dns.add(name)
    return dns, ips


def _covers(cert: x509.Certificate, dns: set[str], ips: set[IPAddress]) -> bool:
    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    have_dns = set(sans.get_values_for_type(x509.DNSName))
    have_ips = set(sans.get_values_for_type(x509.IPAddress))
    return dns <= have_dns and ips <= have_ips


def _load_key(path: Path) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise TypeError(f"{path} does not hold an ECDSA key")
    return key


def ensure_pki(directory: Path, extra_sans: list[str], now: datetime | None = None) -> PKIPaths:
    """Create what is missing under `directory`; reissue the serving certificate if it lacks a name."""
    now = now or datetime.now(UTC)
    paths = PKIPaths(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)  # private keys live here
    if not paths.ca_cert.exists() or not paths.ca_key.exists():
        ca_cert, ca_key = create_ca("flotilla-ca", now)
        _write_private(paths.ca_key, _key_pem(ca_key))
        _write_public(paths.ca_cert, _cert_pem(ca_cert))
        for stale in (paths.serving_cert, paths.admin_cert):
            stale.unlink(missing_ok=True)
    ca_cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    ca_key = _load_key(paths.ca_key)

    dns, ips = split_sans(extra_sans)
    dns |= {"localhost", socket.gethostname(), "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
    ips |= local_addresses()
    needs_serving = True
    if paths.serving_cert.exists() and paths.serving_key.exists():
        current = x509.load_pem_x509_certificate(paths.serving_cert.read_bytes())
        fresh = current.not_valid_after_utc > now + timedelta(days=30)
        needs_serving = not (fresh and _covers(current, dns, ips))
    if needs_serving:
        cert, key = issue(
            ca_cert,
            ca_key,
            _name("flotilla-apiserver"),
            now=now,
            server=True,
            dns_names=tuple(sorted(dns)),
            ips=tuple(sorted(ips, key=str)),
        )
        _write_private(paths.serving_key, _key_pem(key))
        _write_public(paths.serving_cert, _cert_pem(cert))
    if not paths.admin_cert.exists() or not paths.admin_key.exists():
        cert, key = issue(ca_cert, ca_key, _name(ADMIN_USER, (ADMIN_GROUP,)), now=now, client=True)
        _write_private(paths.admin_key, _key_pem(key))
        _write_public(paths.admin_cert, _cert_pem(cert))
    return paths


def kubeconfig(
    server: str, ca_pem: bytes, cert_pem: bytes, key_pem: bytes, *, cluster: str, user: str
) -> dict[str, object]:
    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    context = f"{user}@{cluster}"
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": cluster, "cluster": {"server": server, "certificate-authority-data": b64(ca_pem)}}
        ],
        "users": [
            {
                "name": user,
                "user": {"client-certificate-data": b64(cert_pem), "client-key-data": b64(key_pem)},
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": cluster, "user": user}}],
        "current-context": context,
        "preferences": {},
    }


def write_admin_kubeconfig(paths: PKIPaths, target: Path, server: str, *, cluster: str) -> None:
    config = kubeconfig(
        server,
        paths.ca_cert.read_bytes(),
        paths.admin_cert.read_bytes(),
        paths.admin_key.read_bytes(),
        cluster=cluster,
        user=ADMIN_USER,
    )
    _write_private(target, yaml.safe_dump(config, sort_keys=False).encode())
