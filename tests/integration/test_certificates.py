"""The Certificates API end to end with kubectl: request, approve or deny, sign, and use the certificate.

Keys and requests are made in Python (`cryptography`), as a client library would; everything else
goes through the system kubectl against a real server process, including bootstrap-token identities
whose agent requests are approved automatically.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from flotilla.apiserver.pki import directory as pki
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client"
QUIET_SECONDS = 0.5
"""How long a test watches for the server's approver or signer to act when it must not: a quiet
window, kept because their queues are inside the server process (they act within milliseconds of a
change, and a unit test waits for their queues to drain instead: `certificates/test_flow.py`)."""
BOOTSTRAP_ID, BOOTSTRAP_SECRET = "c5rflo", "0123456789abcdef"


def key_and_request(common_name: str, organizations: tuple[str, ...] = ()) -> tuple[bytes, bytes]:
    """A new private key and a certificate request for `common_name` in `organizations` (PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
    names.append(x509.NameAttribute(NameOID.COMMON_NAME, common_name))
    request = (
        x509.CertificateSigningRequestBuilder().subject_name(x509.Name(names)).sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, request.public_bytes(serialization.Encoding.PEM)


def signing_request(
    name: str,
    request_pem: bytes,
    usages: tuple[str, ...] = ("client auth",),
    signer: str = CLIENT_SIGNER,
    **spec: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {
            "request": base64.b64encode(request_pem).decode(),
            "signerName": signer,
            "usages": list(usages),
            **spec,
        },
    }


def create(kubectl: Kubectl, obj: dict[str, Any]) -> None:
    kubectl("create", "-f", "-", input=yaml.safe_dump(obj))


def issued_certificate(kubectl: Kubectl, name: str) -> x509.Certificate:
    def fetch() -> str:
        return str((kubectl.json("get", "csr", name).get("status") or {}).get("certificate", ""))

    return x509.load_pem_x509_certificate(base64.b64decode(eventually(fetch)))


def kubeconfig_for(server: ServerProcess, target: Path, user: str, **credentials: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "hub",
                "cluster": {
                    "server": server.url,
                    "certificate-authority-data": base64.b64encode(
                        (server.data_dir / "pki" / "ca.crt").read_bytes()
                    ).decode(),
                },
            }
        ],
        "users": [{"name": user, "user": credentials}],
        "contexts": [{"name": user, "context": {"cluster": "hub", "user": user}}],
        "current-context": user,
    }
    target.write_text(yaml.safe_dump(config))
    return target


def certificate_kubectl(
    server: ServerProcess, directory: Path, user: str, cert_pem: bytes, key_pem: bytes
) -> Kubectl:
    """kubectl authenticating with a client certificate."""
    config = kubeconfig_for(
        server,
        directory / f"{user}.kubeconfig",
        user,
        **{
            "client-certificate-data": base64.b64encode(cert_pem).decode(),
            "client-key-data": base64.b64encode(key_pem).decode(),
        },
    )
    return Kubectl(config, directory / f"{user}-cache")


@pytest.fixture(scope="module")
def admin(server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    return Kubectl(server.kubeconfig, tmp_path_factory.mktemp("admin-cache"))


def test_an_approved_request_gets_a_certificate_that_lets_bob_in_with_his_own_rights(
    server: ServerProcess, admin: Kubectl, tmp_path: Path
) -> None:
    """kubectl certificate approve → signed certificate in status → bob authenticates, RBAC still applies."""
    key_pem, request_pem = key_and_request("bob", ("dev",))
    create(admin, signing_request("bob", request_pem, expirationSeconds=3600, username="mallory"))
    stored = admin.json("get", "csr", "bob")
    assert stored["spec"]["username"] == "kubernetes-admin"  # the requester, not what the body claimed
    assert "system:masters" in stored["spec"]["groups"]
    assert "Pending" in admin("get", "csr", "bob")

    assert "approved" in admin("certificate", "approve", "bob")
    certificate = issued_certificate(admin, "bob")
    assert certificate.subject.rfc4514_string() == "CN=bob,O=dev"
    ca = x509.load_pem_x509_certificate((server.data_dir / "pki" / "ca.crt").read_bytes())
    assert certificate.issuer == ca.subject
    lifetime = certificate.not_valid_after_utc - datetime.now(UTC)
    assert timedelta(minutes=55) < lifetime <= timedelta(hours=1)
    usages = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usages) == [ExtendedKeyUsageOID.CLIENT_AUTH]
    assert "Approved,Issued" in admin("get", "csr", "bob")
    (condition,) = admin.json("get", "csr", "bob")["status"]["conditions"]
    assert (condition["type"], condition["reason"]) == ("Approved", "KubectlApprove")
    assert condition["lastUpdateTime"] and condition["lastTransitionTime"]

    bob = certificate_kubectl(
        server, tmp_path, "bob", certificate.public_bytes(serialization.Encoding.PEM), key_pem
    )
    assert bob("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}") == "bob"
    denied = bob.run("get", "pods", "-n", "default", check=False)
    assert denied.returncode != 0
    assert 'User "bob" cannot list resource "pods"' in denied.stderr


def test_a_denied_request_is_never_signed_and_cannot_then_be_approved(
    admin: Kubectl, api_client: Any
) -> None:
    """Denied is final: no certificate, and Approved and Denied together are refused."""
    from kubernetes import client
    from kubernetes.client.rest import ApiException

    _, request_pem = key_and_request("carol")
    create(admin, signing_request("carol", request_pem))
    assert "denied" in admin("certificate", "deny", "carol")
    time.sleep(QUIET_SECONDS)
    stored = admin.json("get", "csr", "carol")
    assert not (stored.get("status") or {}).get("certificate")
    assert [c["type"] for c in stored["status"]["conditions"]] == ["Denied"]
    assert "Denied" in admin("get", "csr", "carol")

    api = client.CertificatesV1Api(api_client)
    current = api.read_certificate_signing_request("carol")
    current.status.conditions.append(
        client.V1CertificateSigningRequestCondition(type="Approved", status="True", reason="Changed")
    )
    with pytest.raises(ApiException) as refused:
        api.replace_certificate_signing_request_approval("carol", current)
    assert refused.value.status == 422
    assert "Approved and Denied conditions are mutually exclusive" in refused.value.body


def test_a_request_for_system_masters_is_refused_at_creation(admin: Kubectl) -> None:
    """Nobody gets a certificate in system:masters through the API, not even an administrator."""
    _, request_pem = key_and_request("root", ("system:masters",))
    result = admin.run(
        "create", "-f", "-", input=yaml.safe_dump(signing_request("root", request_pem)), check=False
    )
    assert result.returncode != 0
    assert (
        'certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of '
        "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"
    ) in result.stderr


def test_invalid_requests_are_refused_with_the_field_at_fault(admin: Kubectl) -> None:
    """A too-short lifetime and an unknown usage are 422s naming their fields."""
    _, request_pem = key_and_request("short")
    body = signing_request("short", request_pem, usages=("client auth", "flying"), expirationSeconds=60)
    result = admin.run("create", "-f", "-", input=yaml.safe_dump(body), check=False)
    assert result.returncode != 0
    assert "spec.expirationSeconds: Invalid value: 60" in result.stderr
    assert 'spec.usages[1]: Unsupported value: "flying"' in result.stderr


def test_approving_needs_approve_on_the_signer_besides_update_on_approval(
    server: ServerProcess, admin: Kubectl, tmp_path: Path
) -> None:
    """A user allowed to update certificatesigningrequests/approval still needs `approve` on signers."""
    admin(
        "create",
        "clusterrole",
        "csr-approval-writer",
        "--verb=get,list,update",
        "--resource=certificatesigningrequests,certificatesigningrequests/approval",
    )
    admin(
        "create",
        "clusterrolebinding",
        "dave-writes-approval",
        "--clusterrole=csr-approval-writer",
        "--user=dave",
    )
    _, request_pem = key_and_request("erin")
    create(admin, signing_request("erin", request_pem))
    paths = pki.PKIPaths(server.data_dir / "pki")
    ca_cert = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
    ca_key = serialization.load_pem_private_key(paths.ca_key.read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    cert, key = pki.issue(
        ca_cert,
        ca_key,
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dave")]),
        now=datetime.now(UTC),
        client=True,
    )
    dave = certificate_kubectl(
        server,
        tmp_path,
        "dave",
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )
    refused = dave.run("certificate", "approve", "erin", check=False)
    assert refused.returncode != 0
    assert 'user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"' in (
        refused.stderr
    )

    admin(
        "create",
        "clusterrolebinding",
        "dave-approves-clients",
        "--clusterrole=system:certificates.k8s.io:kube-apiserver-client-approver",
        "--user=dave",
    )
    eventually(lambda: dave.run("certificate", "approve", "erin", check=False).returncode == 0)
    issued_certificate(admin, "erin")


def test_a_bootstrap_token_gets_its_agent_certificate_approved_and_signed_automatically(
    server: ServerProcess, admin: Kubectl, tmp_path: Path
) -> None:
    """An agent CSR from a bootstrap identity is AutoApproved and issued; another subject stays pending."""
    expiration = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    admin.apply_yaml(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "bootstrap.kubernetes.io/token",
            "metadata": {"name": f"bootstrap-token-{BOOTSTRAP_ID}", "namespace": "kube-system"},
            "stringData": {
                "token-id": BOOTSTRAP_ID,
                "token-secret": BOOTSTRAP_SECRET,
                "expiration": expiration,
                "usage-bootstrap-authentication": "true",
                "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
            },
        }
    )
    config = kubeconfig_for(
        server, tmp_path / "token.kubeconfig", "agent", token=f"{BOOTSTRAP_ID}.{BOOTSTRAP_SECRET}"
    )
    bootstrap = Kubectl(config, tmp_path / "token-cache")

    agent_key, agent_request = key_and_request("system:karmada:agent:member1", ("system:karmada:agents",))
    agent_usages = ("digital signature", "key encipherment", "client auth")
    eventually(
        lambda: (
            bootstrap.run(
                "create",
                "-f",
                "-",
                input=yaml.safe_dump(
                    signing_request("agent-member1", agent_request, agent_usages, expirationSeconds=86400)
                ),
                check=False,
            ).returncode
            == 0
        )
    )
    _, other_request = key_and_request("bob", ("system:karmada:agents",))
    create(bootstrap, signing_request("agent-bob", other_request, agent_usages))

    certificate = issued_certificate(bootstrap, "agent-member1")
    stored = bootstrap.json("get", "csr", "agent-member1")
    assert stored["spec"]["username"] == f"system:bootstrap:{BOOTSTRAP_ID}"
    (condition,) = stored["status"]["conditions"]
    assert (condition["type"], condition["reason"]) == ("Approved", "AutoApproved")
    assert certificate.subject.rfc4514_string() == "CN=system:karmada:agent:member1,O=system:karmada:agents"
    agent = certificate_kubectl(
        server, tmp_path, "agent", certificate.public_bytes(serialization.Encoding.PEM), agent_key
    )
    assert (
        agent("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
        == "system:karmada:agent:member1"
    )

    time.sleep(QUIET_SECONDS)
    other = bootstrap.json("get", "csr", "agent-bob")
    assert not (other.get("status") or {}).get("conditions")
    assert "Pending" in admin("get", "csr", "agent-bob")
