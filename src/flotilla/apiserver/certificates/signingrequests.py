"""What the Certificates API's parts read from a CertificateSigningRequest object (pure functions).

A CSR arrives as a JSON dict: `spec.request` and `status.certificate` are base64 of PEM bytes (Go
`[]byte` fields), conditions are a plain list. These accessors tolerate absent and null fields, as
kube's typed structs read zero values.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography import x509

from flotilla.api.scheme import GroupResource, GroupVersionKind
from flotilla.apiserver.registry.validation import fields
from flotilla.apiserver.users import UserInfo

GROUP = "certificates.k8s.io"
CSR = GroupVersionKind(GROUP, "v1", "CertificateSigningRequest")
CSR_RESOURCE = GroupResource(GROUP, "certificatesigningrequests")
KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"
"""The signer of client certificates the API server accepts (subject: user and groups)."""

APPROVED = "Approved"
DENIED = "Denied"
FAILED = "Failed"


def spec(csr: dict[str, Any]) -> dict[str, Any]:
    return fields.mapping(csr, "spec")


def signer_name(csr: dict[str, Any]) -> str:
    return fields.text(spec(csr), "signerName")


def usages(csr: dict[str, Any]) -> list[str]:
    return [str(usage) for usage in fields.items(spec(csr), "usages")]


def expiration_seconds(csr: dict[str, Any]) -> int | None:
    return fields.integer(spec(csr), "expirationSeconds")


def conditions(csr: dict[str, Any]) -> list[dict[str, Any]]:
    return fields.objects(fields.mapping(csr, "status"), "conditions")


def has_condition(csr: dict[str, Any], kind: str) -> bool:
    """Whether a condition of this type is present and true (Approved/Denied/Failed may only be true)."""
    return any(c.get("type") == kind and c.get("status", "True") == "True" for c in conditions(csr))


def is_approved(csr: dict[str, Any]) -> bool:
    """Approved and not denied, as kube's signers read it."""
    return has_condition(csr, APPROVED) and not has_condition(csr, DENIED)


def certificate(csr: dict[str, Any]) -> str:
    """`status.certificate` as stored: base64 of the PEM chain, "" until issued."""
    return fields.text(fields.mapping(csr, "status"), "certificate")


def request_pem(csr: dict[str, Any]) -> bytes:
    try:
        return base64.b64decode(fields.text(spec(csr), "request"), validate=True)
    except (binascii.Error, ValueError):
        return b""


def parse_request(csr: dict[str, Any]) -> x509.CertificateSigningRequest | None:
    """The x509 request of `spec.request`, or None when it is not a PEM certificate request."""
    try:
        return x509.load_pem_x509_csr(request_pem(csr))
    except ValueError:
        return None


def organizations(request: x509.CertificateSigningRequest) -> list[str]:
    return [str(a.value) for a in request.subject.get_attributes_for_oid(x509.NameOID.ORGANIZATION_NAME)]


def common_name(request: x509.CertificateSigningRequest) -> str:
    found = request.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    return str(found[0].value) if found else ""


def requester(csr: dict[str, Any]) -> UserInfo:
    """Who created the request (the server recorded it in the spec at creation)."""
    body = spec(csr)
    extra = {
        str(k): [str(v) for v in values]
        for k, values in fields.mapping(body, "extra").items()
        if isinstance(values, list)
    }
    return UserInfo(
        username=fields.text(body, "username"),
        groups=tuple(str(g) for g in fields.items(body, "groups")),
        uid=fields.text(body, "uid"),
        extra=extra,
    )


def set_requester(csr: dict[str, Any], user: UserInfo) -> None:
    """Record `user` as the requester, replacing whatever the client sent (kube's PrepareForCreate)."""
    body = csr.setdefault("spec", {})
    for name in ("username", "uid", "groups", "extra"):
        body.pop(name, None)
    body["username"] = user.username
    if user.uid:
        body["uid"] = user.uid
    if user.groups:
        body["groups"] = list(user.groups)
    if user.extra:
        body["extra"] = {key: list(values) for key, values in user.extra.items()}
