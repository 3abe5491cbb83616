"""Bootstrap tokens as the CLI makes them, checked against the hub's own reading of token Secrets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.authn.bootstrap import token_from_secret
from flotilla.apiserver.authn.clusterinfo import ca_certificate_hash
from flotilla.apiserver.pki.directory import create_ca
from flotilla.cli.registration.tokens import (
    BootstrapToken,
    ca_cert_hash,
    generate_token,
    hub_address,
    parse_ca_hash,
    parse_duration,
    parse_token,
    register_command,
    token_id_of,
    token_row,
    token_secret,
)

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
TOKEN = BootstrapToken("abcdef", "0123456789abcdef")


def test_generated_tokens_have_kubeadm_s_form_and_differ() -> None:
    """Six and sixteen characters of [a-z0-9], fresh each time."""
    first, second = generate_token(), generate_token()
    assert parse_token(str(first)) == first
    assert first != second


def test_the_hub_reads_the_secret_as_the_token_with_both_usages_and_karmada_s_group() -> None:
    """The Secret is a valid bootstrap token for the hub's authenticator and cluster-info signer."""
    secret = token_secret(TOKEN, expiration=NOW + timedelta(hours=24), description="for east")
    assert secret["metadata"] == {"name": "bootstrap-token-abcdef", "namespace": "kube-system"}
    parsed = token_from_secret(secret)
    assert parsed is not None
    assert (parsed.token_id, parsed.token_secret) == ("abcdef", "0123456789abcdef")
    assert parsed.expiration == NOW + timedelta(hours=24)
    assert parsed.usages == {"authentication", "signing"}
    assert parsed.extra_groups == ("system:bootstrappers:karmada:default-cluster-token",)
    assert parsed.groups_valid()


def test_a_token_without_ttl_never_expires() -> None:
    """No expiration key at all (kubeadm's --ttl 0)."""
    secret = token_secret(TOKEN, expiration=None)
    assert "expiration" not in secret["data"]
    parsed = token_from_secret(secret)
    assert parsed is not None
    assert parsed.expiration is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("24h", 86400), ("1h30m", 5400), ("90s", 90), ("1s", 1), ("0", 0), ("1.5h", 5400), ("500ms", 0.5)],
)
def test_durations_are_read_as_go_writes_them(text: str, seconds: float) -> None:
    """--ttl and --timeout take Go durations."""
    assert parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["", "24", "1d", "h", "1h 30m", "abc"])
def test_malformed_durations_are_refused_with_examples(text: str) -> None:
    """Anything but a Go duration raises ValueError naming valid forms."""
    with pytest.raises(ValueError, match="examples: 24h"):
        parse_duration(text)


def test_list_rows_look_like_kubeadm_s() -> None:
    """TOKEN TTL EXPIRES USAGES DESCRIPTION EXTRA GROUPS, with <forever>/<never> for no expiry."""
    expiring = token_secret(TOKEN, expiration=NOW + timedelta(hours=23, minutes=59), description="east")
    assert token_row(expiring, NOW) == (
        "abcdef.0123456789abcdef",
        "23h",
        "2025-03-02T11:59:00Z",
        "authentication,signing",
        "east",
        "system:bootstrappers:karmada:default-cluster-token",
    )
    forever = token_row(token_secret(TOKEN, expiration=None, groups=()), NOW)
    assert forever is not None
    assert forever[1:3] == ("<forever>", "<never>")
    assert forever[4:] == ("<none>", "<none>")


def test_secrets_that_are_not_tokens_are_not_listed() -> None:
    """Other Secret types and malformed token Secrets give no row."""
    assert token_row({"type": "Opaque", "data": {}}, NOW) is None
    assert token_row({"type": "bootstrap.kubernetes.io/token", "data": {}}, NOW) is None


def test_delete_takes_an_id_or_a_whole_token() -> None:
    """ID or ID.SECRET gives the id; anything else is refused."""
    assert token_id_of("abcdef") == "abcdef"
    assert token_id_of("abcdef.0123456789abcdef") == "abcdef"
    with pytest.raises(ValueError, match=r"<id>\.<secret>"):
        token_id_of("ABCDEF")


def test_the_ca_hash_is_the_hub_s_and_the_register_command_carries_it() -> None:
    """sha256 of the CA's SubjectPublicKeyInfo, equal to the hub's own computation."""
    certificate, _ = create_ca("test-ca", NOW)
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    assert ca_cert_hash(pem) == ca_certificate_hash(pem)
    command = register_command("https://10.0.0.1:6443", TOKEN, ca_cert_hash(pem))
    assert command == (
        f"flotilla register 10.0.0.1:6443 --token abcdef.0123456789abcdef "
        f"--discovery-token-ca-cert-hash {ca_cert_hash(pem)}"
    )


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("https://hub.example:6443", "hub.example:6443"),
        ("https://hub.example", "hub.example:443"),
        ("https://[::1]:6443/", "[::1]:6443"),
    ],
)
def test_hub_addresses_keep_host_and_port(url: str, address: str) -> None:
    """HOST:PORT as register takes it, the port defaulting to 443."""
    assert hub_address(url) == address


def test_ca_hashes_are_normalised_or_refused() -> None:
    """Upper-case hex is accepted; another algorithm or length is not."""
    assert parse_ca_hash("SHA256:" + "AB" * 32) == "sha256:" + "ab" * 32
    with pytest.raises(ValueError, match="sha256:<64 hexadecimal digits>"):
        parse_ca_hash("md5:abc")
