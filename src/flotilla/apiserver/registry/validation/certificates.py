"""Validation of certificates.k8s.io/v1 CertificateSigningRequests.

The request must be a PEM `CERTIFICATE REQUEST` whose signature verifies, the signer name a
domain-qualified path (`example.com/signer`), the usages known and distinct, and any requested
duration at least ten minutes. kube does not care what a CSR is called beyond it being usable in a
URL. Updates never change the spec (kube's registry keeps the stored spec), so they are not checked.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata

KEY_USAGES = (
    "any",
    "cert sign",
    "client auth",
    "code signing",
    "content commitment",
    "crl sign",
    "data encipherment",
    "decipher only",
    "digital signature",
    "email protection",
    "encipher only",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "key agreement",
    "key encipherment",
    "microsoft sgc",
    "netscape sgc",
    "ocsp signing",
    "s/mime",
    "server auth",
    "signing",
    "timestamping",
)
LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown"
MIN_EXPIRATION_SECONDS = 600


def request_error(encoded: str) -> str:
    """Why the base64 `spec.request` is not a usable certificate request ("" when it is)."""
    try:
        pem = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return "PEM block type must be CERTIFICATE REQUEST"
    if b"-----BEGIN CERTIFICATE REQUEST-----" not in pem:
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        request = x509.load_pem_x509_csr(pem)
        valid = request.is_signature_valid
    except (ValueError, x509.UnsupportedGeneralNameType) as problem:
        return f"x509: malformed certificate request: {problem}"
    if valid:
        return ""
    key = request.public_key()
    if isinstance(key, rsa.RSAPublicKey):
        return "crypto/rsa: verification error"
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "x509: Ed25519 verification failure"
    return "x509: ECDSA verification failure"


def signer_name_errors(signer: str, path: str) -> list[FieldError]:
    """kube's `ValidateSignerName`."""
    if not signer:
        return [fielderrors.required(path)]
    segments = signer.split("/")
    if len(segments) != 2:
        return [
            fielderrors.invalid(
                path,
                signer,
                "must be a fully qualified domain and path of the form 'example.com/signer-name'",
            )
        ]
    domain, name = segments
    errors: list[FieldError] = []
    if len(domain) > names.DNS1123_SUBDOMAIN_MAX:
        errors.append(fielderrors.too_long(path, names.DNS1123_SUBDOMAIN_MAX))
    labels = domain.split(".")
    for label in labels:
        problems = names.dns1123_label_errors(label)
        if problems:
            errors.extend(
                fielderrors.invalid(path, domain, f'validating label "{label}": {p}') for p in problems
            )
            break
    if len(labels) < 2:
        errors.append(
            fielderrors.invalid(
                path, domain, "should be a domain with at least two segments separated by dots"
            )
        )
    for component in name.split("."):
        problems = names.dns1123_subdomain_errors(component)
        if problems:
            errors.extend(
                fielderrors.invalid(path, name, f'validating component "{component}": {p}') for p in problems
            )
            break
    return errors


def validate_certificate_signing_request(request: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(request, namespaced=False, name_rule=metadata.path_segment_name)
    spec = fields.mapping(request, "spec")
    encoded = fields.text(spec, "request")
    problem = request_error(encoded)
    if problem:
        errors.append(fielderrors.invalid("spec.request", encoded, problem))
    usages = fields.items(spec, "usages")
    if not usages:
        errors.append(fielderrors.required("spec.usages"))
    seen: set[str] = set()
    for position, usage in enumerate(usages):
        path = fielderrors.index("spec.usages", position)
        if usage not in KEY_USAGES:
            errors.append(fielderrors.not_supported(path, usage, KEY_USAGES))
        if usage in seen:
            errors.append(fielderrors.duplicate(path, usage))
        seen.add(str(usage))
    signer = fields.text(spec, "signerName")
    if signer == LEGACY_UNKNOWN_SIGNER:
        errors.append(
            fielderrors.invalid(
                "spec.signerName", signer, "the legacy signerName is not allowed via this API version"
            )
        )
    else:
        errors.extend(signer_name_errors(signer, "spec.signerName"))
    expiration = fields.integer(spec, "expirationSeconds")
    if expiration is not None and expiration < MIN_EXPIRATION_SECONDS:
        errors.append(
            fielderrors.invalid(
                "spec.expirationSeconds",
                expiration,
                "may not specify a duration less than 600 seconds (10 minutes)",
            )
        )
    return errors


def validate_certificate_signing_request_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return metadata.validate_object_meta_update(new, old)
