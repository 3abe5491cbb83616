"""Token discovery: how a registering member learns to trust the hub, as `kubeadm join` does.

The member knows only the hub's address, a bootstrap token and (usually) the hash of the hub's CA
public key. It reads `kube-public/cluster-info` anonymously over TLS *without* verifying the
server — it cannot yet, that is what it is learning — then:

1. checks the detached JWS `jws-kubeconfig-<token-id>` over the ConfigMap's kubeconfig with the
   token's secret (HS256, header exactly `{"alg":"HS256","kid":"<id>"}`): only someone who knows
   the token could have signed it, so the kubeconfig, and the CA in it, are the hub's. The hub
   signs only with valid tokens: a missing signature means the token is unknown or expired;
2. pins the CA: the SHA-256 of its SubjectPublicKeyInfo must be one of the
   `--discovery-token-ca-cert-hash` values (skipped only with
   `--discovery-token-unsafe-skip-ca-verification`);

and from then on talks to the hub with that CA. The checks are pure functions; `discover_hub` is
the one request. (The hub's side of the signature is in the API server; the CLI keeps its own small
verifier so it does not depend on the server's package.)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from flotilla.cli.registration.tokens import BootstrapToken, ca_cert_hash
from flotilla.client import APIStatusError, Client, ClientError, ClusterConfig

CLUSTER_INFO_PATH = "/api/v1/namespaces/kube-public/configmaps/cluster-info"
KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"
REFUSED_TOKEN_MESSAGE = (
    "the bootstrap token is invalid or expired; "  # noqa: S105 - a message, not a secret
    "create a new one with `flotilla token create` on the hub"
)


class DiscoveryError(Exception):
    """The hub cannot be trusted (or reached) with what the member was given; the message says why."""


@dataclass(frozen=True, slots=True)
class TrustedHub:
    server: str
    ca_pem: bytes
    ca_hash: str


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def detached_signature(content: str, token: BootstrapToken) -> str:
    """The detached HS256 JWS of `content` keyed by the token, as the hub's bootstrap signer writes it."""
    header = _b64url(b'{"alg":"HS256","kid":"' + token.token_id.encode() + b'"}')
    signing_input = f"{header}.{_b64url(content.encode())}"
    mac = hmac.new(token.token_secret.encode(), signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{header}..{_b64url(mac)}"


def verified_kubeconfig(data: Mapping[str, Any], token: BootstrapToken) -> str:
    """cluster-info's kubeconfig once its signature for `token` verifies; DiscoveryError if not."""
    kubeconfig = data.get(KUBECONFIG_KEY)
    if not isinstance(kubeconfig, str) or not kubeconfig:
        raise DiscoveryError(
            "the hub's cluster-info has no kubeconfig: the server is not set up for token registration"
        )
    signature = data.get(SIGNATURE_PREFIX + token.token_id)
    if not isinstance(signature, str) or not signature:
        raise DiscoveryError(REFUSED_TOKEN_MESSAGE)
    expected = detached_signature(kubeconfig, token)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        raise DiscoveryError(
            "cluster-info's signature does not verify with this token: the token's secret is wrong, "
            "or the server at this address is not the hub that issued it"
        )
    return kubeconfig


def certificate_authority(kubeconfig: str) -> bytes:
    """The CA certificate (PEM) of cluster-info's kubeconfig."""
    try:
        document = yaml.safe_load(kubeconfig)
        cluster = document["clusters"][0]["cluster"]
        return base64.b64decode(cluster["certificate-authority-data"], validate=True)
    except (yaml.YAMLError, KeyError, IndexError, TypeError, binascii.Error) as exc:
        raise DiscoveryError("the hub's cluster-info kubeconfig holds no certificate authority") from exc


def check_ca_pins(ca_pem: bytes, pins: tuple[str, ...], skip_verification: bool) -> str:
    """The CA's hash, once it matches one of the pins (or pinning is skipped); DiscoveryError if not."""
    try:
        actual = ca_cert_hash(ca_pem)
    except ValueError as exc:
        raise DiscoveryError("the hub's CA certificate cannot be read") from exc
    if skip_verification or actual in pins:
        return actual
    expected = " or ".join(pins)
    raise DiscoveryError(
        f"the hub's CA does not match --discovery-token-ca-cert-hash: expected {expected}, the hub at this "
        f"address presented {actual}. Check the hash (`flotilla token create --print-register-command` "
        "on the hub prints it) and the address"
    )


async def discover_hub(
    server: str, token: BootstrapToken, pins: tuple[str, ...], skip_verification: bool
) -> TrustedHub:
    """Read cluster-info at `server` without verifying TLS, and return the hub once it is trusted."""
    unverified = ClusterConfig(server=server, insecure_skip_tls_verify=True)
    try:
        async with Client(unverified, timeout=15.0, user_agent="flotilla-register") as client:
            answer = await client.request("GET", CLUSTER_INFO_PATH)
    except APIStatusError as exc:
        raise DiscoveryError(f"cannot read cluster-info from the hub at {server}: {exc.message}") from exc
    except ClientError as exc:
        raise DiscoveryError(f"cannot reach the hub at {server}: {exc}") from exc
    data = (answer or {}).get("data") if isinstance(answer, dict) else None
    kubeconfig = verified_kubeconfig(data or {}, token)
    ca_pem = certificate_authority(kubeconfig)
    return TrustedHub(server, ca_pem, check_ca_pins(ca_pem, pins, skip_verification))
