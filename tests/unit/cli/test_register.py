"""register's pure parts: trusting cluster-info, the agent's request, the data directory it leaves."""

from __future__ import annotations

import base64
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.authn.bootstrap import BootstrapToken as HubToken
from flotilla.apiserver.authn.clusterinfo import cluster_info_data, cluster_info_kubeconfig
from flotilla.apiserver.certificates.approver import agent_request_problem
from flotilla.apiserver.pki.directory import create_ca
from flotilla.cli.registration.data import agent_command, agent_settings, hub_kubeconfig, running_agent
from flotilla.cli.registration.discovery import (
    REFUSED_TOKEN_MESSAGE,
    DiscoveryError,
    certificate_authority,
    check_ca_pins,
    verified_kubeconfig,
)
from flotilla.cli.registration.request import (
    RequestRefused,
    issued_certificate,
    new_agent_key,
    signing_request,
)
from flotilla.cli.registration.tokens import BootstrapToken, ca_cert_hash
from flotilla.client.kubeconfig import load_kubeconfig

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
TOKEN = BootstrapToken("abcdef", "0123456789abcdef")
SERVER = "https://10.0.0.1:6443"


@pytest.fixture(scope="module")
def ca_pem() -> bytes:
    certificate, _ = create_ca("hub-ca", NOW)
    return certificate.public_bytes(serialization.Encoding.PEM)


def published(ca_pem: bytes, *tokens: BootstrapToken) -> dict[str, str]:
    """cluster-info's data exactly as the hub's bootstrap signer publishes it."""
    hub_tokens = [HubToken(t.token_id, t.token_secret, None, frozenset({"signing"}), ()) for t in tokens]
    return cluster_info_data(cluster_info_kubeconfig(SERVER, ca_pem), hub_tokens, NOW)


def test_the_hub_s_signature_verifies_and_yields_its_ca(ca_pem: bytes) -> None:
    """The token's signature over the hub's kubeconfig checks out; the CA in it is the hub's."""
    kubeconfig = verified_kubeconfig(published(ca_pem, TOKEN), TOKEN)
    assert certificate_authority(kubeconfig) == ca_pem


def test_a_token_the_hub_does_not_sign_with_is_invalid_or_expired(ca_pem: bytes) -> None:
    """No signature for the token id: the clear message to create a new token."""
    other = BootstrapToken("zzzzzz", "0123456789abcdef")
    with pytest.raises(DiscoveryError) as caught:
        verified_kubeconfig(published(ca_pem, other), TOKEN)
    assert str(caught.value) == REFUSED_TOKEN_MESSAGE


def test_a_wrong_secret_or_a_tampered_kubeconfig_does_not_verify(ca_pem: bytes) -> None:
    """The signature binds both the token's secret and the kubeconfig's bytes."""
    data = published(ca_pem, TOKEN)
    with pytest.raises(DiscoveryError, match="does not verify"):
        verified_kubeconfig(data, BootstrapToken("abcdef", "ffffffffffffffff"))
    tampered = {**data, "kubeconfig": data["kubeconfig"].replace("10.0.0.1", "10.6.6.6")}
    with pytest.raises(DiscoveryError, match="does not verify"):
        verified_kubeconfig(tampered, TOKEN)


def test_a_ca_not_matching_the_pin_stops_naming_both_hashes(ca_pem: bytes) -> None:
    """The message gives the expected and the presented hash."""
    wrong = "sha256:" + "0" * 64
    with pytest.raises(DiscoveryError) as caught:
        check_ca_pins(ca_pem, (wrong,), skip_verification=False)
    assert wrong in str(caught.value)
    assert ca_cert_hash(ca_pem) in str(caught.value)


def test_a_matching_pin_or_skipping_verification_trusts_the_ca(ca_pem: bytes) -> None:
    """Any one of several pins may match; skipping accepts whatever the token vouched for."""
    actual = ca_cert_hash(ca_pem)
    assert check_ca_pins(ca_pem, ("sha256:" + "0" * 64, actual), skip_verification=False) == actual
    assert check_ca_pins(ca_pem, (), skip_verification=True) == actual


def test_the_agent_s_request_is_what_the_hub_s_approver_recognises() -> None:
    """Subject, no alternative names, usages: a Karmada agent request for this cluster."""
    key = new_agent_key("east")
    request = x509.load_pem_x509_csr(key.request_pem)
    assert request.subject.rfc4514_string() == "CN=system:karmada:agent:east,O=system:karmada:agents"
    csr = signing_request("east", key.request_pem, {"registration.flotilla.io/cluster-id": "id-1"})
    assert agent_request_problem(request, csr["spec"]["usages"]) == ""
    assert csr["spec"]["signerName"] == "kubernetes.io/kube-apiserver-client"
    assert base64.b64decode(csr["spec"]["request"]) == key.request_pem
    assert csr["metadata"]["generateName"] == "agent-east-"
    assert csr["metadata"]["annotations"] == {"registration.flotilla.io/cluster-id": "id-1"}


def test_the_request_s_outcome_is_read_from_its_status() -> None:
    """Pending: None; issued: the PEM; denied or failed: RequestRefused with reason and message."""
    assert issued_certificate({"status": {"conditions": [{"type": "Approved", "status": "True"}]}}) is None
    issued = {"status": {"certificate": base64.b64encode(b"PEM").decode()}}
    assert issued_certificate(issued) == b"PEM"
    denied = {
        "status": {"conditions": [{"type": "Denied", "status": "True", "reason": "R", "message": "taken"}]}
    }
    with pytest.raises(RequestRefused, match=r"denied the certificate request \(R\): taken"):
        issued_certificate(denied)


def test_the_hub_kubeconfig_loads_with_the_agent_s_credentials(tmp_path: Path, ca_pem: bytes) -> None:
    """What register writes is a kubeconfig our client reads back whole."""
    key = new_agent_key("east")
    path = tmp_path / "hub.kubeconfig"
    path.write_text(hub_kubeconfig(SERVER, ca_pem, b"CERT", key.private_key_pem, "east"))
    config = load_kubeconfig(path)
    assert (config.server, config.ca_pem, config.client_cert_pem, config.client_key_pem) == (
        SERVER,
        ca_pem,
        b"CERT",
        key.private_key_pem,
    )


def test_agent_settings_name_the_cluster_and_the_hub() -> None:
    """agent.json carries the keys the agent reads."""
    assert '"clusterName": "east"' in agent_settings("east", SERVER, "id-1")
    assert f'"hubServer": "{SERVER}"' in agent_settings("east", SERVER, "id-1")


def test_the_agent_command_uses_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths given to register still work for an agent started elsewhere."""
    monkeypatch.chdir(tmp_path)
    command = agent_command(Path("data"), Path("member.kubeconfig"), "ctx", "east")
    assert command[1:4] == ["-m", "flotilla", "agent"]
    assert command[command.index("--data-dir") + 1] == str(tmp_path / "data")
    assert command[command.index("--kubeconfig") + 1] == str(tmp_path / "member.kubeconfig")
    assert command[-2:] == ["--context", "ctx"]


def test_a_pid_file_counts_only_while_its_process_lives(tmp_path: Path) -> None:
    """This process's pid is alive; a pid no process has, or no file, is not."""
    assert running_agent(tmp_path) is None
    (tmp_path / "agent.pid").write_text(f"{os.getpid()}\n")
    assert running_agent(tmp_path) == os.getpid()
    (tmp_path / "agent.pid").write_text("999999999\n")
    assert running_agent(tmp_path) is None
