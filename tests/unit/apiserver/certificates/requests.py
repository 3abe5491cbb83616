"""Keys, certificate requests and CSR objects for the Certificates API tests (not a test module)."""

from __future__ import annotations

import base64
import ipaddress
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"
AGENT_USAGES = ["digital signature", "key encipherment", "client auth"]


def certificate_request(
    common_name: str,
    organizations: tuple[str, ...] = (),
    *,
    dns_names: tuple[str, ...] = (),
    ips: tuple[str, ...] = (),
    uris: tuple[str, ...] = (),
) -> x509.CertificateSigningRequest:
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    names.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(names))
    alternatives: list[x509.GeneralName] = [x509.DNSName(d) for d in dns_names]
    alternatives += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
    alternatives += [x509.UniformResourceIdentifier(uri) for uri in uris]
    if alternatives:
        builder = builder.add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
    return builder.sign(key, hashes.SHA256())


def encoded(request: x509.CertificateSigningRequest) -> str:
    return base64.b64encode(request.public_bytes(serialization.Encoding.PEM)).decode()


def signing_request(
    name: str,
    request: x509.CertificateSigningRequest,
    *,
    usages: list[str] | None = None,
    signer: str = CLIENT_SIGNER,
    **spec: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {
            "request": encoded(request),
            "signerName": signer,
            "usages": usages if usages is not None else ["client auth"],
            **spec,
        },
    }


def condition(kind: str, status: str = "True", **extra: str) -> dict[str, str]:
    return {"type": kind, "status": status, **extra}


def with_status(csr: dict[str, Any], *conditions: dict[str, str], certificate: str = "") -> dict[str, Any]:
    status: dict[str, Any] = {}
    if conditions:
        status["conditions"] = list(conditions)
    if certificate:
        status["certificate"] = certificate
    return {**csr, "status": status}
