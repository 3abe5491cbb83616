"""The `kube-public/cluster-info` ConfigMap: how a joining member learns to trust the hub.

Anyone may read it (it is the one API object anonymous requests reach). Its `kubeconfig` holds the
server URL and the CA certificate; for every bootstrap token allowed to sign, a
`jws-kubeconfig-<token-id>` value holds a detached HS256 JWS of that kubeconfig keyed by the token's
secret. A member given only a token fetches cluster-info over unverified TLS, recomputes the
signature with its token (`verify_cluster_info`) and so knows the CA is the hub's — kubeadm's and
karmadactl's token discovery.

What is in it is this module's; who may read it is `authz/publicinfo.py`; keeping it current is
`housekeeping/clusterinfo.py`.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver.authn import jws
from flotilla.apiserver.authn.bootstrap import (
    USAGE_SIGNING,
    BootstrapToken,
)
from flotilla.apiserver.authz.publicinfo import CLUSTER_INFO_NAME

KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"


class ClusterInfoError(Exception):
    """cluster-info cannot be trusted or used with this token; the message says what to do."""


def cluster_info_kubeconfig(server_url: str, ca_pem: bytes) -> str:
    """The kubeconfig kubeadm publishes: one unnamed cluster with server and CA, no users."""
    ca_data = base64.b64encode(ca_pem).decode()
    return (
        "apiVersion: v1\n"
        "clusters:\n"
        "- cluster:\n"
        f"    certificate-authority-data: {ca_data}\n"
        f"    server: {server_url}\n"
        '  name: ""\n'
        "contexts: null\n"
        'current-context: ""\n'
        "kind: Config\n"
        "preferences: {}\n"
        "users: null\n"
    )


def signing_tokens(tokens: Iterable[BootstrapToken], now: datetime) -> list[BootstrapToken]:
    """The tokens that sign cluster-info: the signing usage and not expired."""
    return [t for t in tokens if USAGE_SIGNING in t.usages and not t.expired(now)]


def cluster_info_data(kubeconfig: str, tokens: Iterable[BootstrapToken], now: datetime) -> dict[str, str]:
    """The ConfigMap's data: the kubeconfig and one detached signature per valid signing token."""
    data = {KUBECONFIG_KEY: kubeconfig}
    for token in signing_tokens(tokens, now):
        data[SIGNATURE_PREFIX + token.token_id] = jws.detached_signature(
            kubeconfig, token.token_id, token.token_secret
        )
    return data


def verify_cluster_info(data: Mapping[str, str], token_id: str, token_secret: str) -> str:
    """The kubeconfig of cluster-info's data once its signature verifies with the token (kubeadm's check)."""
    kubeconfig = data.get(KUBECONFIG_KEY, "")
    if not kubeconfig:
        raise ClusterInfoError(
            f"there is no {KUBECONFIG_KEY} key in the {CLUSTER_INFO_NAME} ConfigMap. This API Server "
            "isn't set up for token bootstrapping, can't connect"
        )
    signature = data.get(SIGNATURE_PREFIX + token_id, "")
    if not signature:
        raise ClusterInfoError(
            f'token id "{token_id}" is invalid for this cluster or it has expired. Create a new valid '
            "token on the hub"
        )
    if not jws.detached_signature_is_valid(signature, kubeconfig, token_id, token_secret):
        raise ClusterInfoError(
            "failed to verify JWS signature of received cluster info object, can't trust this API Server"
        )
    return kubeconfig


def ca_certificate_hash(ca_pem: bytes) -> str:
    """`sha256:<hex>` of the CA's public key (`--discovery-token-ca-cert-hash`), to pin the CA."""
    cert = x509.load_pem_x509_certificate(ca_pem)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + hashlib.sha256(spki).hexdigest()
