"""Issuing client certificates from approved requests with the server's CA (kube's csrsigning).

The `kubernetes.io/kube-apiserver-client` signer issues certificates the API server accepts for
client authentication: the subject (user = CN, groups = O) and subject alternative names are the
request's, the usages must be client auth plus optionally digital signature and key encipherment,
and the lifetime is the requested `expirationSeconds` capped at one year (kube-controller-manager's
`--cluster-signing-duration`) and at the CA's own expiry. Certificates are backdated five minutes
to tolerate clock skew, as kube's signer does.

The CA is the one under `<data-dir>/pki`, the same CA that verifies client certificates, loaded
once at server start and handed to the signer as `APIContext.signing_authority`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

from flotilla.apiserver.pki.clusterbinding import is_binding_name

MAX_DURATION = timedelta(days=365)
BACKDATE = timedelta(minutes=5)
CLIENT_AUTH = "client auth"
OPTIONAL_CLIENT_USAGES = ("digital signature", "key encipherment")

SigningKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@dataclass(frozen=True, slots=True)
class SigningAuthority:
    certificate: x509.Certificate
    key: SigningKey

    def __repr__(self) -> str:
        return f"SigningAuthority(subject={self.certificate.subject.rfc4514_string()!r})"  # never the key


def load_signing_authority(pki_directory: Path) -> SigningAuthority:
    """The CA under a server's pki directory (`ca.crt`, `ca.key`)."""
    certificate = x509.load_pem_x509_certificate((pki_directory / "ca.crt").read_bytes())
    key = serialization.load_pem_private_key((pki_directory / "ca.key").read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey):
        raise TypeError(f"{pki_directory / 'ca.key'} holds neither an ECDSA nor an RSA key")
    return SigningAuthority(certificate, key)


def client_usage_problem(usages: list[str]) -> str:
    """Why these usages do not fit a kube-apiserver client certificate ("" when they do)."""
    for usage in usages:
        if usage != CLIENT_AUTH and usage not in OPTIONAL_CLIENT_USAGES:
            return f"invalid usage for client certificate: {usage}"
    if CLIENT_AUTH not in usages:
        return f"missing required usage for client certificate: {CLIENT_AUTH}"
    return ""


def signing_duration(expiration_seconds: int | None) -> timedelta:
    """The lifetime to issue for: what was asked, at most `MAX_DURATION`."""
    if expiration_seconds is None:
        return MAX_DURATION
    return min(timedelta(seconds=expiration_seconds), MAX_DURATION)


def issue_client_certificate(
    authority: SigningAuthority,
    request: x509.CertificateSigningRequest,
    usages: list[str],
    duration: timedelta,
    now: datetime,
    binding: Sequence[x509.GeneralName] = (),
) -> bytes:
    """The PEM certificate for an approved request (usages already checked). `binding`: subject
    alternative names the signer itself vouches for; the request's own names of that form are
    always dropped."""
    not_after = min(now + duration, authority.certificate.not_valid_after_utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(request.subject)
        .issuer_name(authority.certificate.subject)
        .public_key(request.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - min(BACKDATE, duration / 5))
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(authority.key.public_key()), critical=False
        )
    )
    digital_signature = "digital signature" in usages
    key_encipherment = "key encipherment" in usages
    if digital_signature or key_encipherment:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=digital_signature,
                key_encipherment=key_encipherment,
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
    try:
        names = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        names = None
    requested = [name for name in names or () if not is_binding_name(name)]
    if requested or binding:
        builder = builder.add_extension(x509.SubjectAlternativeName([*requested, *binding]), critical=False)
    certificate = builder.sign(authority.key, hashes.SHA256())
    return certificate.public_bytes(serialization.Encoding.PEM)
