"""The agent's certificate: when to renew it, how to ask for the next one, where to put it.

The agent's only credential on the hub is a client certificate for `system:karmada:agent:<cluster>`
in `system:karmada:agents`, kept inline in `DIR/hub.kubeconfig`. Before it expires the agent asks
for a new one as Karmada's agent does (`cert_rotation_controller.go`):

- when: by default once 80% of its lifetime has passed (Karmada rotates when 20% or less remains);
  `--renew-before SECONDS` renews that long before expiry instead;
- how: a new ECDSA P-256 key, a request for the same subject, a CertificateSigningRequest for the
  signer `kubernetes.io/kube-apiserver-client` with the usages agent certificates carry and the
  lifetime of the current certificate. The hub approves it without a human because the requester
  is the identity it names and holds `certificatesigningrequests/selfclusteragent`;
- where: the issued certificate and the new key replace the client credentials of the kubeconfig's
  current user; everything else in the file stays as `flotilla register` wrote it.

Everything here is pure (the key is generated here but nothing is read or written); `renewal.py`
does the round trip with the hub.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.agent.datadir import AgentConfigError
from flotilla.api.karmada.agentrbac import AGENT_GROUP, agent_user_name, cluster_of_agent
from flotilla.api.scheme import GroupVersionKind

CSR = GroupVersionKind("certificates.k8s.io", "v1", "CertificateSigningRequest")
KUBE_APISERVER_CLIENT = "kubernetes.io/kube-apiserver-client"
AGENT_USAGES = ("digital signature", "key encipherment", "client auth")
RENEW_AT = 0.8
"""Fraction of a certificate's lifetime after which it is renewed by default."""
MIN_EXPIRATION_SECONDS = 600
"""The shortest lifetime a CertificateSigningRequest may ask for."""


@dataclass(frozen=True, slots=True)
class CertificateLifetime:
    not_before: datetime
    not_after: datetime

    @property
    def total(self) -> timedelta:
        return self.not_after - self.not_before


def load_certificate(pem: bytes) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(pem)
    except ValueError as exc:
        raise AgentConfigError(f"the hub kubeconfig's client certificate cannot be read: {exc}") from exc


def certificate_lifetime(certificate: x509.Certificate) -> CertificateLifetime:
    return CertificateLifetime(certificate.not_valid_before_utc, certificate.not_valid_after_utc)


def certificate_cluster(certificate: x509.Certificate) -> str | None:
    """The cluster whose agent the certificate identifies (None when it is no agent's certificate)."""
    names = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    common_name = str(names[0].value) if names else ""
    return cluster_of_agent(common_name)


def resolve_cluster_name(requested: str, recorded: str, certificate_cluster: str | None) -> str:
    """The agent's cluster: the one its certificate names; a different name asked for is an error."""
    if certificate_cluster is None:
        raise AgentConfigError(
            "the hub kubeconfig's client certificate is not a Karmada agent certificate "
            f"(its common name must be {agent_user_name('<cluster>')})"
        )
    for source, name in (("--cluster-name", requested), ("agent.json", recorded)):
        if name and name != certificate_cluster:
            raise AgentConfigError(
                f"{source} says cluster {name!r} but the agent's certificate is for cluster "
                f"{certificate_cluster!r}; register this member again or fix {source}"
            )
    return certificate_cluster


def default_renewal_time(lifetime: CertificateLifetime) -> datetime:
    return lifetime.not_before + lifetime.total * RENEW_AT


def renewal_time(lifetime: CertificateLifetime, renew_before: float | None) -> datetime:
    """When to renew: `renew_before` seconds before expiry, or at 80% of the lifetime by default."""
    if renew_before is None:
        return default_renewal_time(lifetime)
    return lifetime.not_after - timedelta(seconds=renew_before)


def requested_expiration(lifetime: CertificateLifetime) -> int:
    """The lifetime to ask for: the current certificate's, as Karmada's agent asks."""
    return max(MIN_EXPIRATION_SECONDS, int(lifetime.total.total_seconds()))


def new_key_and_request(cluster_name: str) -> tuple[bytes, bytes]:
    """A fresh private key and a certificate request for the agent identity of `cluster_name` (PEMs)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, AGENT_GROUP),
            x509.NameAttribute(NameOID.COMMON_NAME, agent_user_name(cluster_name)),
        ]
    )
    request = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    return key_pem, request.public_bytes(serialization.Encoding.PEM)


def signing_request(name: str, request_pem: bytes, expiration_seconds: int) -> dict[str, Any]:
    """The CertificateSigningRequest object asking the hub to sign `request_pem`."""
    return {
        "apiVersion": CSR.api_version,
        "kind": CSR.kind,
        "metadata": {"name": name},
        "spec": {
            "request": base64.b64encode(request_pem).decode(),
            "signerName": KUBE_APISERVER_CLIENT,
            "usages": list(AGENT_USAGES),
            "expirationSeconds": expiration_seconds,
        },
    }


def issued_certificate(csr: dict[str, Any]) -> bytes | None:
    """The certificate the signer issued (PEM), or None while there is none."""
    issued = (csr.get("status") or {}).get("certificate")
    return base64.b64decode(issued) if issued else None


def refusal(csr: dict[str, Any]) -> str | None:
    """Why the request will never be issued (denied, or failed), or None while it may still be."""
    for condition in (csr.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Denied", "Failed") and condition.get("status", "True") == "True":
            reason = condition.get("reason") or condition["type"]
            return f"{condition['type']} ({reason}): {condition.get('message') or 'no message'}"
    return None


def with_client_credentials(kubeconfig: str, certificate_pem: bytes, key_pem: bytes) -> str:
    """`kubeconfig` with the current context's user authenticating with this certificate and key."""
    data = yaml.safe_load(kubeconfig)
    if not isinstance(data, dict):
        raise AgentConfigError("the hub kubeconfig is not a kubeconfig (expected a mapping)")
    current = data.get("current-context")
    context = next(
        (c.get("context") or {} for c in data.get("contexts") or [] if c.get("name") == current), None
    )
    if context is None or not context.get("user"):
        raise AgentConfigError(f"the hub kubeconfig's current context {current!r} names no user")
    user = next((u for u in data.get("users") or [] if u.get("name") == context["user"]), None)
    if user is None:
        raise AgentConfigError(f"the hub kubeconfig has no user named {context['user']!r}")
    credentials = user.get("user") or {}
    user["user"] = credentials
    for key in ("client-certificate", "client-key", "token", "tokenFile"):
        credentials.pop(key, None)
    credentials["client-certificate-data"] = base64.b64encode(certificate_pem).decode()
    credentials["client-key-data"] = base64.b64encode(key_pem).decode()
    return yaml.safe_dump(data, sort_keys=False)
