"""Certificate lifetime: see when the hub's certificates expire, renew them, serve renewed ones live.

Karmada users' commonest outage is a control plane whose one-year certificates lapsed. Here:

- `check_expiration` lists the CA (10 years) and the leaf certificates (1 year) — the serving
  certificate and the admin client certificate of `admin.kubeconfig` — with their expiry and the
  time left, as `kubeadm certs check-expiration` prints them (`expiration_report`).
- `renew` re-issues leaf certificates from the CA for another year with new keys, keeping their
  subjects and names, and rewrites `admin.kubeconfig` when the admin certificate changes.
- `ServingCertificateReloader` watches the serving certificate's files; when they change it loads
  them into the live TLS context, so new connections get the renewed certificate without a restart.
  (The API server also re-issues a serving certificate within 30 days of expiry when it starts.)

The ServiceAccount signing key (`sa.key`) is a bare key with no expiry; it is listed for completeness.
"""

from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import structlog
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from flotilla.api.duration import short_human_duration
from flotilla.apiserver.pki import directory as pki
from flotilla.runtime.periodic import PeriodicTask

log = structlog.get_logger("flotilla.apiserver.pki.lifetime")

RENEWABLE = ("apiserver", "admin")
ADMIN_KUBECONFIG = "admin.kubeconfig"


class CertificateError(Exception):
    """A certificate cannot be read or renewed; the message says which and why."""


@dataclass(frozen=True, slots=True)
class CertificateExpiry:
    name: str
    not_after: datetime | None
    """None: the file is missing."""
    authority: str = ""
    """The CA that signed it (empty for a CA)."""


def _not_after(path: Path) -> datetime | None:
    if not path.exists():
        return None
    try:
        return x509.load_pem_x509_certificate(path.read_bytes()).not_valid_after_utc
    except ValueError as exc:
        raise CertificateError(f"{path} is not a PEM certificate: {exc}") from exc


def check_expiration(paths: pki.PKIPaths) -> tuple[list[CertificateExpiry], list[CertificateExpiry]]:
    """(leaf certificates, certificate authorities) with their expiry dates."""
    leaves = [
        CertificateExpiry(ADMIN_KUBECONFIG, _not_after(paths.admin_cert), "ca"),
        CertificateExpiry("apiserver", _not_after(paths.serving_cert), "ca"),
    ]
    return leaves, [CertificateExpiry("ca", _not_after(paths.ca_cert))]


def residual_time(not_after: datetime, now: datetime) -> str:
    """Time left the way kubeadm shortens durations: 59s, 59m, 23h, 364d, 9y."""
    return short_human_duration(not_after - now)


def _expires(entry: CertificateExpiry) -> str:
    assert entry.not_after is not None
    return entry.not_after.strftime("%b %d, %Y %H:%M UTC")


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def expiration_report(
    leaves: Sequence[CertificateExpiry], authorities: Sequence[CertificateExpiry], now: datetime
) -> str:
    """The two tables of `kubeadm certs check-expiration`, plus a line for the signing key."""
    leaf_rows = [["CERTIFICATE", "EXPIRES", "RESIDUAL TIME", "CERTIFICATE AUTHORITY", "EXTERNALLY MANAGED"]]
    for entry in leaves:
        if entry.not_after is None:
            leaf_rows.append([f"!MISSING! {entry.name}", "", "", "", ""])
        else:
            leaf_rows.append(
                [entry.name, _expires(entry), residual_time(entry.not_after, now), entry.authority, "no"]
            )
    ca_rows = [["CERTIFICATE AUTHORITY", "EXPIRES", "RESIDUAL TIME", "EXTERNALLY MANAGED"]]
    for entry in authorities:
        if entry.not_after is None:
            ca_rows.append([f"!MISSING! {entry.name}", "", "", ""])
        else:
            ca_rows.append([entry.name, _expires(entry), residual_time(entry.not_after, now), "no"])
    lines = [*_table(leaf_rows), "", *_table(ca_rows), ""]
    lines.append("sa.key (ServiceAccount token signing key): a key, not a certificate — it does not expire")
    return "\n".join(lines) + "\n"


# -- renewal ------------------------------------------------------------------------------------------


def renew(paths: pki.PKIPaths, targets: Sequence[str], now: datetime) -> list[str]:
    """Re-issue the named leaf certificates (`apiserver`, `admin`) from the CA; returns what was renewed."""
    unknown = [t for t in targets if t not in RENEWABLE]
    if unknown:
        raise CertificateError(f"cannot renew {', '.join(unknown)}: choose from all, {', '.join(RENEWABLE)}")
    if not paths.ca_cert.exists() or not paths.ca_key.exists():
        raise CertificateError(f"no CA in {paths.directory}: start the API server once to create it")
    ca_cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key(paths.ca_key.read_bytes(), password=None)
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise CertificateError(f"{paths.ca_key} does not hold an ECDSA key")
    renewed = []
    for target in targets:
        cert_path, key_path = (
            (paths.serving_cert, paths.serving_key)
            if target == "apiserver"
            else (paths.admin_cert, paths.admin_key)
        )
        if not cert_path.exists():
            raise CertificateError(f"{cert_path} is missing: start the API server once to create it")
        current = x509.load_pem_x509_certificate(cert_path.read_bytes())
        dns, ips = _subject_alternative_names(current)
        cert, key = pki.issue(
            ca_cert,
            ca_key,
            current.subject,
            now=now,
            server=target == "apiserver",
            client=target == "admin",
            dns_names=dns,
            ips=ips,
        )
        key_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        # Key first: a reader seeing the new certificate then finds its key (the reloader retries otherwise).
        _write(key_path, key_pem, 0o600)
        _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
        renewed.append(target)
    return renewed


def rewrite_admin_kubeconfig(paths: pki.PKIPaths, kubeconfig: Path) -> None:
    """Put the renewed admin certificate into `admin.kubeconfig`, keeping its server and cluster name."""
    if not kubeconfig.exists():
        return  # the API server writes it when it starts
    config = yaml.safe_load(kubeconfig.read_text()) or {}
    clusters = config.get("clusters") or [{}]
    server = str((clusters[0].get("cluster") or {}).get("server", ""))
    pki.write_admin_kubeconfig(paths, kubeconfig, server, cluster=str(clusters[0].get("name", "flotilla")))


def _subject_alternative_names(
    cert: x509.Certificate,
) -> tuple[tuple[str, ...], tuple[pki.IPAddress, ...]]:
    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return (), ()
    ips = tuple(
        ip
        for ip in sans.get_values_for_type(x509.IPAddress)
        if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address)
    )
    return tuple(sans.get_values_for_type(x509.DNSName)), ips


def _write(path: Path, data: bytes, mode: int) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


# -- live reload --------------------------------------------------------------------------------------


def _stamp(paths: pki.PKIPaths) -> tuple[int, ...]:
    stamps: list[int] = []
    for path in (paths.serving_cert, paths.serving_key):
        try:
            stat = path.stat()
        except OSError:
            stamps += [0, 0]
        else:
            stamps += [stat.st_mtime_ns, stat.st_size]
    return tuple(stamps)


class ServingCertificateReloader:
    """Loads a changed serving certificate into the live TLS context (checked every `interval` s)."""

    NAME = "serving-cert-reloader"

    def __init__(self, context: ssl.SSLContext, paths: pki.PKIPaths, interval: float = 5.0) -> None:
        self.context = context
        self.paths = paths
        self.interval = interval
        self._loaded = _stamp(paths)
        self._timer = PeriodicTask(self.NAME, self.check_once, interval)

    def check_once(self) -> bool:
        """Reload if the files changed since the last load; whether a new certificate is now served."""
        stamp = _stamp(self.paths)
        if stamp == self._loaded:
            return False
        try:
            self.context.load_cert_chain(self.paths.serving_cert, self.paths.serving_key)
        except (OSError, ssl.SSLError) as exc:
            # Half-written (certificate and key not yet a pair): keep serving the old one, retry later.
            log.warning("certs.reload_failed", path=str(self.paths.serving_cert), error=str(exc))
            return False
        self._loaded = stamp
        log.info("certs.serving_certificate_reloaded", path=str(self.paths.serving_cert))
        return True

    def start(self) -> None:
        self._timer.start()

    async def stop(self) -> None:
        await self._timer.stop()
