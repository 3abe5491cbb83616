"""Certificate lifetime: the expiry report, renewal from the CA and live reload of serving certs."""

from __future__ import annotations

import base64
import ssl
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from cryptography import x509

from flotilla.apiserver.pki import directory as pki
from flotilla.apiserver.pki import lifetime as certs

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def pki_dir(tmp_path_factory: pytest.TempPathFactory) -> pki.PKIPaths:
    return pki.ensure_pki(tmp_path_factory.mktemp("pki"), ["hub.example"], now=NOW)


def serial(path: Path) -> int:
    return x509.load_pem_x509_certificate(path.read_bytes()).serial_number


@pytest.mark.parametrize(
    ("left", "shown"),
    [
        (timedelta(seconds=59), "59s"),
        (timedelta(minutes=59), "59m"),
        (timedelta(hours=23), "23h"),
        (timedelta(days=364), "364d"),
        (timedelta(days=3650), "10y"),
        (timedelta(seconds=-1), "0s"),
        (timedelta(days=-1), "<invalid>"),
    ],
)
def test_residual_time_is_shortened_as_kubeadm_shows_it(left: timedelta, shown: str) -> None:
    """Seconds, minutes, hours, days then years; expired certificates are <invalid>."""
    assert certs.residual_time(NOW + left, NOW) == shown


def test_the_report_lists_leaves_and_the_ca_with_expiry_and_time_left(pki_dir: pki.PKIPaths) -> None:
    """admin and apiserver show a year left signed by ca; the CA ten years."""
    leaves, authorities = certs.check_expiration(pki_dir)
    report = certs.expiration_report(leaves, authorities, NOW + timedelta(hours=1))
    lines = report.splitlines()
    assert lines[0] == (
        "CERTIFICATE        EXPIRES                  RESIDUAL TIME   "
        "CERTIFICATE AUTHORITY   EXTERNALLY MANAGED"
    )
    assert lines[1].split() == ["admin.kubeconfig", "Jun", "01,", "2027", "12:00", "UTC", "364d", "ca", "no"]
    assert lines[2].split() == ["apiserver", "Jun", "01,", "2027", "12:00", "UTC", "364d", "ca", "no"]
    assert lines[4].startswith("CERTIFICATE AUTHORITY   EXPIRES")
    assert lines[5].split() == ["ca", "May", "29,", "2036", "12:00", "UTC", "9y", "no"]
    assert "sa.key" in report


def test_a_missing_certificate_is_flagged(tmp_path: Path) -> None:
    """Files that do not exist are listed as !MISSING!."""
    leaves, authorities = certs.check_expiration(pki.PKIPaths(tmp_path))
    assert "!MISSING! apiserver" in certs.expiration_report(leaves, authorities, NOW)


def test_renewal_keeps_names_and_moves_expiry(tmp_path: Path) -> None:
    """Renewed leaves get a new serial and expiry a year from now, with the same subject and SANs."""
    paths = pki.ensure_pki(tmp_path / "pki", ["hub.example"], now=NOW)
    before = x509.load_pem_x509_certificate(paths.serving_cert.read_bytes())
    later = NOW + timedelta(days=200)
    assert certs.renew(paths, ["apiserver", "admin"], later) == ["apiserver", "admin"]
    after = x509.load_pem_x509_certificate(paths.serving_cert.read_bytes())
    assert after.serial_number != before.serial_number
    assert after.subject == before.subject
    assert after.not_valid_after_utc == later + timedelta(days=365)
    sans = after.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "hub.example" in sans.get_values_for_type(x509.DNSName)
    admin = x509.load_pem_x509_certificate(paths.admin_cert.read_bytes())
    assert admin.subject.rfc4514_string() == "CN=kubernetes-admin,O=system:masters"


def test_renewing_admin_rewrites_the_kubeconfig_keeping_its_server(tmp_path: Path) -> None:
    """admin.kubeconfig gets the new certificate and keeps its server URL and cluster name."""
    paths = pki.ensure_pki(tmp_path / "pki", [], now=NOW)
    kubeconfig = tmp_path / "admin.kubeconfig"
    pki.write_admin_kubeconfig(paths, kubeconfig, "https://127.0.0.1:7443", cluster="hub")
    certs.renew(paths, ["admin"], NOW)
    certs.rewrite_admin_kubeconfig(paths, kubeconfig)
    config = yaml.safe_load(kubeconfig.read_text())
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:7443"
    assert config["clusters"][0]["name"] == "hub"
    embedded = base64.b64decode(config["users"][0]["user"]["client-certificate-data"])
    assert embedded == paths.admin_cert.read_bytes()


def test_unknown_targets_and_missing_cas_are_errors(tmp_path: Path) -> None:
    """Only apiserver and admin renew, and only with a CA present."""
    with pytest.raises(certs.CertificateError, match="cannot renew ca"):
        certs.renew(pki.PKIPaths(tmp_path), ["ca"], NOW)
    with pytest.raises(certs.CertificateError, match="no CA"):
        certs.renew(pki.PKIPaths(tmp_path), ["admin"], NOW)


def test_the_reloader_loads_changed_files_only(tmp_path: Path) -> None:
    """Unchanged files are not reloaded; after a renewal they are, once."""
    paths = pki.ensure_pki(tmp_path / "pki", [], now=NOW)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(paths.serving_cert, paths.serving_key)
    reloader = certs.ServingCertificateReloader(context, paths)
    assert not reloader.check_once()
    certs.renew(paths, ["apiserver"], NOW)
    assert reloader.check_once()
    assert not reloader.check_once()


def test_a_half_written_pair_is_not_loaded(tmp_path: Path) -> None:
    """A certificate that does not match its key is refused and retried later."""
    paths = pki.ensure_pki(tmp_path / "pki", [], now=NOW)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(paths.serving_cert, paths.serving_key)
    reloader = certs.ServingCertificateReloader(context, paths)
    paths.serving_key.write_bytes(paths.admin_key.read_bytes())
    assert not reloader.check_once()
