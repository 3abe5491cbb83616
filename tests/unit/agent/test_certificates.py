"""The agent's certificate: when it is renewed, what is asked for, and how the kubeconfig is rewritten."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flotilla.agent.certificates import (
    CertificateLifetime,
    certificate_cluster,
    certificate_lifetime,
    default_renewal_time,
    issued_certificate,
    new_key_and_request,
    refusal,
    renewal_time,
    requested_expiration,
    resolve_cluster_name,
    signing_request,
    with_client_credentials,
)
from flotilla.agent.datadir import AgentConfigError

START = datetime(2026, 1, 1, tzinfo=UTC)


def certificate(common_name: str, organization: str = "system:karmada:agents", days: int = 10) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )
    built = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(START)
        .not_valid_after(START + timedelta(days=days))
        .sign(key, hashes.SHA256())
    )
    return built.public_bytes(serialization.Encoding.PEM)


def test_renewal_is_due_at_eighty_percent_of_the_lifetime_by_default() -> None:
    """Ten days of validity renew on the eighth day, as Karmada's 20% remaining threshold does."""
    lifetime = certificate_lifetime(x509.load_pem_x509_certificate(certificate("system:karmada:agent:a")))
    assert lifetime == CertificateLifetime(START, START + timedelta(days=10))
    assert renewal_time(lifetime, None) == START + timedelta(days=8)
    assert default_renewal_time(lifetime) == START + timedelta(days=8)


def test_renew_before_counts_back_from_expiry() -> None:
    """--renew-before 3600 renews an hour before the certificate expires, even if that is already past."""
    lifetime = CertificateLifetime(START, START + timedelta(minutes=10))
    assert renewal_time(lifetime, 60) == START + timedelta(minutes=9)
    assert renewal_time(lifetime, 3600) < START


def test_the_renewed_certificate_asks_for_the_current_lifetime() -> None:
    """The request asks for as long as the current certificate lived, never less than the API's minimum."""
    assert requested_expiration(CertificateLifetime(START, START + timedelta(days=365))) == 365 * 86400
    assert requested_expiration(CertificateLifetime(START, START + timedelta(seconds=30))) == 600


def test_the_cluster_is_the_one_the_certificate_names() -> None:
    """An agent certificate names its cluster in its common name; other certificates name none."""
    agent = x509.load_pem_x509_certificate(certificate("system:karmada:agent:member-1"))
    assert certificate_cluster(agent) == "member-1"
    other = x509.load_pem_x509_certificate(certificate("kubernetes-admin", "system:masters"))
    assert certificate_cluster(other) is None


def test_a_cluster_name_disagreeing_with_the_certificate_stops_the_agent() -> None:
    """--cluster-name or agent.json naming another cluster is an error saying which."""
    assert resolve_cluster_name("", "", "a") == "a"
    assert resolve_cluster_name("a", "a", "a") == "a"
    with pytest.raises(AgentConfigError, match="--cluster-name says cluster 'b'"):
        resolve_cluster_name("b", "", "a")
    with pytest.raises(AgentConfigError, match=r"agent\.json says cluster 'b'"):
        resolve_cluster_name("", "b", "a")
    with pytest.raises(AgentConfigError, match="not a Karmada agent certificate"):
        resolve_cluster_name("a", "", None)


def test_the_request_is_for_the_agent_identity_with_a_new_key() -> None:
    """A fresh P-256 key; subject CN system:karmada:agent:<cluster>, O system:karmada:agents."""
    key_pem, request_pem = new_key_and_request("a")
    request = x509.load_pem_x509_csr(request_pem)
    key = serialization.load_pem_private_key(key_pem, None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    assert request.public_key().public_numbers() == key.public_key().public_numbers()
    subject = request.subject
    assert subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "system:karmada:agent:a"
    assert subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)[0].value == "system:karmada:agents"
    assert new_key_and_request("a")[0] != key_pem


def test_the_signing_request_asks_the_client_signer_for_agent_usages() -> None:
    """The CSR object carries the request, the client signer, agent usages and the lifetime."""
    csr = signing_request("a-x", b"PEM", 600)
    assert csr["metadata"]["name"] == "a-x"
    assert csr["spec"] == {
        "request": base64.b64encode(b"PEM").decode(),
        "signerName": "kubernetes.io/kube-apiserver-client",
        "usages": ["digital signature", "key encipherment", "client auth"],
        "expirationSeconds": 600,
    }


def test_an_issued_certificate_is_read_from_the_status() -> None:
    """Nothing until the signer writes status.certificate; then its decoded PEM."""
    assert issued_certificate({"status": {}}) is None
    assert issued_certificate({"status": {"certificate": base64.b64encode(b"CERT").decode()}}) == b"CERT"


def test_a_denied_or_failed_request_is_a_refusal_with_the_hubs_reason() -> None:
    """Denied and Failed conditions end the wait; Approved does not."""
    approved = {"status": {"conditions": [{"type": "Approved", "status": "True"}]}}
    assert refusal(approved) is None
    denied = {"status": {"conditions": [{"type": "Denied", "reason": "Nope", "message": "no agents"}]}}
    assert refusal(denied) == "Denied (Nope): no agents"


def test_new_credentials_replace_the_current_users_and_keep_the_rest() -> None:
    """The current context's user gets the new inline certificate and key; server and CA stay."""
    kubeconfig = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "hub",
                    "cluster": {"server": "https://hub:6443", "certificate-authority-data": "Q0E="},
                }
            ],
            "users": [
                {"name": "other", "user": {"token": "t"}},
                {"name": "agent", "user": {"client-certificate": "/old.crt", "client-key": "/old.key"}},
            ],
            "contexts": [{"name": "hub", "context": {"cluster": "hub", "user": "agent"}}],
            "current-context": "hub",
        }
    )
    rewritten = yaml.safe_load(with_client_credentials(kubeconfig, b"CERT", b"KEY"))
    users = {u["name"]: u["user"] for u in rewritten["users"]}
    assert users["agent"] == {
        "client-certificate-data": base64.b64encode(b"CERT").decode(),
        "client-key-data": base64.b64encode(b"KEY").decode(),
    }
    assert users["other"] == {"token": "t"}
    assert rewritten["clusters"][0]["cluster"]["server"] == "https://hub:6443"


def test_a_kubeconfig_without_a_current_user_cannot_be_rewritten() -> None:
    """A kubeconfig whose current context names no user is an error, not a silent change."""
    broken = yaml.safe_dump({"contexts": [{"name": "x", "context": {}}], "current-context": "x"})
    with pytest.raises(AgentConfigError, match="names no user"):
        with_client_credentials(broken, b"C", b"K")
