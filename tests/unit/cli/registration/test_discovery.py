"""Token discovery: trusting the hub's cluster-info through the token's signature and the CA pins."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.authn.bootstrap import BootstrapToken as HubToken
from flotilla.apiserver.authn.clusterinfo import cluster_info_data, cluster_info_kubeconfig
from flotilla.apiserver.pki.directory import create_ca
from flotilla.cli.registration.discovery import (
    REFUSED_TOKEN_MESSAGE,
    DiscoveryError,
    certificate_authority,
    check_ca_pins,
    verified_kubeconfig,
)
from flotilla.cli.registration.tokens import BootstrapToken, ca_cert_hash

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
