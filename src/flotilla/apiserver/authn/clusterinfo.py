"""The `kube-public/cluster-info` ConfigMap: how a joining member learns to trust the hub.

Anyone may read it (it is the one API object anonymous requests reach). Its `kubeconfig` holds the
server URL and the CA certificate; for every bootstrap token allowed to sign, a
`jws-kubeconfig-<token-id>` value holds a detached HS256 JWS of that kubeconfig keyed by the token's
secret. A member given only a token fetches cluster-info over unverified TLS, recomputes the
signature with its token (`verify_cluster_info`) and so knows the CA is the hub's — kubeadm's and
karmadactl's token discovery.

`ClusterInfoPublisher` is kube-controller-manager's bootstrap signer, run inside the API server:
whenever a bootstrap-token Secret or the ConfigMap changes, and when a token expires, it rewrites
the ConfigMap so the kubeconfig is the server's and exactly the valid signing tokens have a
signature.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from flotilla.apiserver import errors
from flotilla.apiserver.authn import jws
from flotilla.apiserver.authn.bootstrap import (
    SECRET_NAMESPACE,
    USAGE_SIGNING,
    BootstrapToken,
    is_bootstrap_secret_key,
    token_from_secret,
)
from flotilla.apiserver.authn.lookup import CONFIG_MAP, SECRET
from flotilla.apiserver.authz import AuthorizationAttributes, Authorizer, Decision
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.housekeeping.base import InProcessController
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.store.watchcache import CacheEvent

CLUSTER_INFO_NAMESPACE = "kube-public"
CLUSTER_INFO_NAME = "cluster-info"
KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"
MANAGER = "bootstrap-signer"


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


# -- anonymous access --------------------------------------------------------------------------------


def cluster_info_is_public(attributes: AuthorizationAttributes) -> bool:
    """Whether the request is the anonymous-readable GET of kube-public/configmaps/cluster-info."""
    return (
        attributes.resource_request
        and attributes.verb == "get"
        and attributes.group == ""
        and attributes.resource == "configmaps"
        and not attributes.subresource
        and attributes.namespace == CLUSTER_INFO_NAMESPACE
        and attributes.name == CLUSTER_INFO_NAME
    )


class PublicClusterInfo:
    """An authorizer that also lets anyone read cluster-info (until RBAC grants it by a Role)."""

    def __init__(self, inner: Authorizer) -> None:
        self.inner = inner

    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        decision = self.inner.authorize(attributes)
        if decision.allowed or not cluster_info_is_public(attributes):
            return decision
        return Decision(True, "cluster-info is public")


# -- the signer --------------------------------------------------------------------------------------


class ClusterInfoPublisher(InProcessController):
    """Keeps cluster-info's kubeconfig and its bootstrap-token signatures current."""

    NAME = "bootstrap-signer"
    KEY = "cluster-info"

    def __init__(self, ctx: APIContext, kubeconfig: str) -> None:
        super().__init__(ctx)
        self.kubeconfig = kubeconfig
        self.client = LocalClient(ctx, MANAGER)
        secrets = ctx.registry.by_kind(SECRET)
        config_maps = ctx.registry.by_kind(CONFIG_MAP)
        assert secrets is not None
        assert config_maps is not None
        self._secret_prefix = secrets.storage_prefix
        self._config_map_key = config_maps.key(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME)

    def start(self) -> None:
        self.queue.add(self.KEY)
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        item = event.object
        if item.key == self._config_map_key:
            return [self.KEY]
        if item.key.startswith(self._secret_prefix) and is_bootstrap_secret_key(item.namespace, item.name):
            return [self.KEY]
        return []

    def tokens(self) -> list[BootstrapToken]:
        found = []
        for secret in self.client.list(SECRET, SECRET_NAMESPACE):
            if (secret.get("metadata") or {}).get("deletionTimestamp"):
                continue
            token = token_from_secret(secret)
            if token is not None:
                found.append(token)
        return found

    async def reconcile(self, key: Any) -> float | None:
        now = self.ctx.clock()
        tokens = self.tokens()
        desired = cluster_info_data(self.kubeconfig, tokens, now)
        current = self.client.peek(CONFIG_MAP, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME)
        if current is None:
            obj = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": CLUSTER_INFO_NAME, "namespace": CLUSTER_INFO_NAMESPACE},
                "data": desired,
            }
            try:
                await self.client.create(CONFIG_MAP, obj)
            except errors.AlreadyExists:
                return 0.0
        elif current.get("data") != desired:

            def replace_data(config_map: dict[str, Any]) -> None:
                config_map["data"] = desired

            await self.client.mutate(CONFIG_MAP, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, replace_data)
        return _seconds_until_next_expiry(signing_tokens(tokens, now), now)


def _seconds_until_next_expiry(tokens: list[BootstrapToken], now: datetime) -> float | None:
    """When the next signing token expires (its signature must then go), if any will."""
    ends = [t.expiration for t in tokens if t.expiration is not None]
    if not ends:
        return None
    return max(0.0, (min(ends) - now).total_seconds()) + 0.5
