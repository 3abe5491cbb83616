"""D1: a bootstrap token cannot take over another member's Pull cluster, nor read what others asked.

The attack as reported: with one valid bootstrap token, list every CSR and read another cluster's
id; ask for `system:karmada:agent:edgeb` with and without that id; use the certificate on edgeb's
Works. Each step is refused now, and a certificate issued to a cluster that was removed does not work
for the member that registers under its name afterwards. Requests are the raw HTTP a client would
send, against a real hub process (auto acceptance, no controller manager needed).
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.integration.hostile.probe import Answer, Probe
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CLUSTERS = "/apis/cluster.karmada.io/v1alpha1/clusters"
VICTIM_ID = "0d5c1c36-victim-kube-system-uid"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("takeover")).start()
    yield process
    assert process.stop() == 0, process.log()


@dataclass
class Agent:
    """A member's agent key, and the certificate the hub issued for it (once it has)."""

    cluster: str
    key: ec.EllipticCurvePrivateKey
    directory: Path

    def request(self) -> str:
        subject = x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:karmada:agents"),
                x509.NameAttribute(NameOID.COMMON_NAME, f"system:karmada:agent:{self.cluster}"),
            ]
        )
        csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(self.key, hashes.SHA256())
        return base64.b64encode(csr.public_bytes(serialization.Encoding.PEM)).decode()

    def save(self, certificate_pem: bytes) -> tuple[Path, Path]:
        self.directory.mkdir(parents=True, exist_ok=True)
        cert, key = self.directory / "agent.crt", self.directory / "agent.key"
        cert.write_bytes(certificate_pem)
        key.write_bytes(
            self.key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        return cert, key


def new_token(admin: Probe) -> str:
    token_id = uuid.uuid4().hex[:6]
    secret = uuid.uuid4().hex[:16]
    expiration = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": f"bootstrap-token-{token_id}", "namespace": "kube-system"},
        "type": "bootstrap.kubernetes.io/token",
        "stringData": {
            "token-id": token_id,
            "token-secret": secret,
            "expiration": expiration,
            "usage-bootstrap-authentication": "true",
            "auth-extra-groups": "system:bootstrappers:karmada:default-cluster-token",
        },
    }
    assert admin.send("POST", "/api/v1/namespaces/kube-system/secrets", body).status == 201
    return f"{token_id}.{secret}"


def ask(member: Probe, agent: Agent, cluster_id: str = "") -> str:
    """Create the agent's CSR as `member` would; its name."""
    annotations = {"registration.flotilla.io/cluster-id": cluster_id} if cluster_id else {}
    body = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"generateName": f"agent-{agent.cluster}-", "annotations": annotations},
        "spec": {
            "request": agent.request(),
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["digital signature", "key encipherment", "client auth"],
        },
    }
    answer = member.send("POST", CSRS, body)
    assert answer.status == 201, answer.body
    return str(answer.body["metadata"]["name"])


def decided(member: Probe, name: str) -> dict[str, Any]:
    """The request once answered (issued or denied), read by its own requester."""

    def answered() -> dict[str, Any] | None:
        answer = member.send("GET", f"{CSRS}/{name}")
        assert answer.status == 200, answer.body
        status = answer.body.get("status") or {}
        done = status.get("certificate") or any(c["type"] == "Denied" for c in status.get("conditions") or [])
        return answer.body if done else None

    return eventually(answered, timeout=20, what=f"an answer to {name}")


def register(admin: Probe, member: Probe, agent: Agent, cluster_id: str) -> tuple[Probe, str]:
    """A whole registration: the agent's probe with its issued certificate, and the request's name."""
    name = ask(member, agent, cluster_id)
    certificate = base64.b64decode(decided(member, name)["status"]["certificate"])
    return Probe(admin.server, client_certificate=agent.save(certificate)), name


def denial(csr: dict[str, Any]) -> dict[str, Any]:
    (condition,) = [c for c in csr["status"]["conditions"] if c["type"] == "Denied"]
    assert not csr["status"].get("certificate")
    return condition


def forbidden(answer: Answer) -> bool:
    return answer.is_status(403)


def test_a_bootstrap_token_cannot_take_over_another_member_s_cluster(probe: Probe, tmp_path: Path) -> None:
    """The reported chain, step by step: every step refused; the victim keeps working."""
    victim = Probe(probe.server, token=new_token(probe))
    attacker = Probe(probe.server, token=new_token(probe))
    key = ec.generate_private_key(ec.SECP256R1())
    victim_agent, name = register(probe, victim, Agent("edgeb", key, tmp_path / "victim"), VICTIM_ID)

    # 1. The attacker lists CSRs, or reads the victim's by name or by field selector: 403 each time.
    assert forbidden(attacker.send("GET", CSRS))
    assert forbidden(attacker.send("GET", f"{CSRS}/{name}"))
    assert forbidden(attacker.send("GET", f"{CSRS}?fieldSelector=metadata.name%3D{name}"))
    assert forbidden(attacker.send("GET", f"{CSRS}?watch=true&timeoutSeconds=1"))
    assert forbidden(attacker.send("GET", f"{CSRS}/no-such-request"))

    # 2. Without the id: denied, and the message does not give the id away.
    mallory = Agent("edgeb", ec.generate_private_key(ec.SECP256R1()), tmp_path / "mallory")
    refused = denial(decided(attacker, ask(attacker, mallory)))
    assert refused["reason"] == "ClusterRegistrationRefused"
    assert VICTIM_ID not in refused["message"]
    assert "already registered by another member" in refused["message"]

    # 3. With the id (learnt elsewhere): denied all the same.
    refused = denial(decided(attacker, ask(attacker, mallory, VICTIM_ID)))
    assert VICTIM_ID not in refused["message"]

    # 4. The victim's agent still works, and only on its own cluster.
    works = "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-edgeb/works"
    assert victim_agent.send("GET", works).status == 200
    assert forbidden(
        victim_agent.send("GET", "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-other/works")
    )
    assert forbidden(victim_agent.send("GET", CSRS))
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"generateName": "x-"}, "involvedObject": {}}
    assert forbidden(victim_agent.send("POST", "/api/v1/namespaces/default/events", event))


def test_a_certificate_does_not_outlive_its_cluster_s_registration(probe: Probe, tmp_path: Path) -> None:
    """edgec is removed and registered again by another member: the first member's certificate,
    still within its validity, no longer works; the new member's does."""
    first = Probe(probe.server, token=new_token(probe))
    second = Probe(probe.server, token=new_token(probe))
    old_agent, _ = register(
        probe, first, Agent("edgec", ec.generate_private_key(ec.SECP256R1()), tmp_path / "a"), "id-a"
    )
    works = "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-edgec/works"
    assert old_agent.send("GET", works).status == 200

    assert probe.send("DELETE", f"{CLUSTERS}/edgec").status == 200
    eventually(lambda: probe.send("GET", f"{CLUSTERS}/edgec").status == 404, what="edgec removed")
    new_agent, _ = register(
        probe, second, Agent("edgec", ec.generate_private_key(ec.SECP256R1()), tmp_path / "b"), "id-b"
    )

    assert new_agent.send("GET", works).status == 200
    stale = old_agent.send("GET", works)
    assert forbidden(stale)
    assert "not issued for the current registration of cluster edgec" in stale.message
    assert forbidden(old_agent.send("GET", f"{CLUSTERS}/edgec"))


def test_a_requester_reads_its_own_request_and_the_bootstrap_role_creates_only(probe: Probe) -> None:
    """The waiting side of registration (get, list and watch by name) works for the requester."""
    member = Probe(probe.server, token=new_token(probe))
    agent = Agent("edged", ec.generate_private_key(ec.SECP256R1()), Path("/nonexistent"))
    name = ask(member, agent, "id-d")
    assert member.send("GET", f"{CSRS}/{name}").status == 200
    listed = member.send("GET", f"{CSRS}?fieldSelector=metadata.name%3D{name}")
    assert listed.status == 200
    assert [item["metadata"]["name"] for item in listed.body["items"]] == [name]
    watched = member.send("GET", f"{CSRS}?watch=true&fieldSelector=metadata.name%3D{name}&timeoutSeconds=1")
    assert watched.status == 200
    binding = probe.send(
        "GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:kubelet-bootstrap"
    )
    role = probe.send(
        "GET", f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{binding.body['roleRef']['name']}"
    )
    assert role.body["rules"] == [
        {
            "apiGroups": ["certificates.k8s.io"],
            "resources": ["certificatesigningrequests"],
            "verbs": ["create"],
        }
    ]


def test_an_agent_may_not_point_its_cluster_at_another_member_s_credentials(
    probe: Probe, tmp_path: Path
) -> None:
    """An agent updating its own Cluster may describe its member, not change how the hub reaches it."""
    member = Probe(probe.server, token=new_token(probe))
    agent, _ = register(
        probe, member, Agent("edgee", ec.generate_private_key(ec.SECP256R1()), tmp_path), "id-e"
    )
    cluster = f"{CLUSTERS}/edgee"
    merge = {"Content-Type": "application/merge-patch+json"}
    takeover = {
        "spec": {
            "syncMode": "Push",
            "apiEndpoint": "https://attacker.example:6443",
            "secretRef": {"namespace": "karmada-cluster", "name": "member1"},
        }
    }
    refused = agent.send("PATCH", cluster, takeover, headers=merge)
    assert forbidden(refused)
    assert "spec.apiEndpoint, spec.secretRef, spec.syncMode" in refused.message
    assert probe.send("GET", cluster).body["spec"]["syncMode"] == "Pull"
    rebind = {"metadata": {"annotations": {"registration.flotilla.io/requester": "system:bootstrap:other"}}}
    assert forbidden(agent.send("PATCH", cluster, rebind, headers=merge))
    untaint = {"spec": {"taints": [{"key": "mine", "effect": "NoSchedule"}]}}
    assert forbidden(agent.send("PATCH", cluster, untaint, headers=merge))
    described = agent.send("PATCH", cluster, {"spec": {"region": "eu-west-1"}}, headers=merge)
    assert described.status == 200, described.body
    assert probe.send("GET", cluster).body["spec"]["region"] == "eu-west-1"


def test_an_agent_may_create_only_its_own_lease(probe: Probe, tmp_path: Path) -> None:
    """A create carries no name for RBAC: the agent of edgef cannot plant a heartbeat for edgeg."""
    member = Probe(probe.server, token=new_token(probe))
    agent, _ = register(
        probe, member, Agent("edgef", ec.generate_private_key(ec.SECP256R1()), tmp_path), "id-f"
    )
    leases = "/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases"

    def lease(name: str) -> dict[str, Any]:
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": name},
            "spec": {"holderIdentity": name, "renewTime": "2099-01-01T00:00:00.000000Z"},
        }

    planted = agent.send("POST", leases, lease("edgeg"))
    assert forbidden(planted)
    assert 'own cluster\'s Lease ("edgef")' in planted.message
    assert probe.send("GET", f"{leases}/edgeg").status == 404
    assert agent.send("POST", leases, lease("edgef")).status == 201
