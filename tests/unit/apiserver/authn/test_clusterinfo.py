"""cluster-info: its kubeconfig, the signatures of signing tokens and kubeadm's verification."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.authn.bootstrap import token_from_secret
from flotilla.apiserver.authn.clusterinfo import (
    ClusterInfoError,
    cluster_info_data,
    cluster_info_kubeconfig,
    verify_cluster_info,
)
from flotilla.apiserver.authz import AuthorizationAttributes, Decision
from flotilla.apiserver.authz.publicinfo import PublicClusterInfo
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.clusterinfo import ClusterInfoPublisher
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.users import ANONYMOUS
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.apiserver.authn.objects import bootstrap_secret

NOW = datetime(2026, 6, 1, tzinfo=UTC)
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
SECRET = GroupVersionKind("", "v1", "Secret")


def signing_token(token_id: str, secret: str, **data: str) -> dict[str, object]:
    return bootstrap_secret(token_id, secret, **{"usage-bootstrap-signing": "true", **data})


def test_the_kubeconfig_has_one_cluster_with_server_and_ca_and_no_users() -> None:
    """kubeadm's shape: an unnamed cluster with server and CA data; contexts and users null."""
    config = yaml.safe_load(cluster_info_kubeconfig("https://hub:6443", b"PEM"))
    assert config["clusters"] == [
        {
            "cluster": {
                "certificate-authority-data": base64.b64encode(b"PEM").decode(),
                "server": "https://hub:6443",
            },
            "name": "",
        }
    ]
    assert config["users"] is None and config["contexts"] is None and config["kind"] == "Config"


def test_only_unexpired_signing_tokens_sign_and_their_signatures_verify() -> None:
    """Each valid signing token gets jws-kubeconfig-<id>, which verifies with that token alone."""
    kubeconfig = cluster_info_kubeconfig("https://hub:6443", b"PEM")
    tokens = [
        token_from_secret(signing_token("aaaaaa", "0123456789abcdef")),
        token_from_secret(signing_token("bbbbbb", "0123456789abcdef", expiration="2026-05-01T00:00:00Z")),
        token_from_secret(bootstrap_secret("cccccc", "0123456789abcdef")),
    ]
    data = cluster_info_data(kubeconfig, [t for t in tokens if t is not None], NOW)
    assert set(data) == {"kubeconfig", "jws-kubeconfig-aaaaaa"}
    assert verify_cluster_info(data, "aaaaaa", "0123456789abcdef") == kubeconfig
    with pytest.raises(ClusterInfoError, match="failed to verify JWS signature"):
        verify_cluster_info(data, "aaaaaa", "fedcba9876543210")
    with pytest.raises(ClusterInfoError, match='token id "bbbbbb" is invalid for this cluster'):
        verify_cluster_info(data, "bbbbbb", "0123456789abcdef")
    tampered = {**data, "kubeconfig": kubeconfig.replace("hub", "evil")}
    with pytest.raises(ClusterInfoError, match="can't trust this API Server"):
        verify_cluster_info(tampered, "aaaaaa", "0123456789abcdef")
    with pytest.raises(ClusterInfoError, match="no kubeconfig key"):
        verify_cluster_info({}, "aaaaaa", "0123456789abcdef")


class DenyAll:
    def authorize(self, attributes: AuthorizationAttributes) -> Decision:
        return Decision(False, "no")


@pytest.mark.parametrize(
    ("verb", "namespace", "name", "allowed"),
    [
        ("get", "kube-public", "cluster-info", True),
        ("list", "kube-public", "", False),
        ("update", "kube-public", "cluster-info", False),
        ("get", "kube-system", "cluster-info", False),
        ("get", "kube-public", "other", False),
    ],
)
def test_anonymous_users_may_only_get_cluster_info(
    verb: str, namespace: str, name: str, allowed: bool
) -> None:
    """The public rule allows exactly GET of kube-public/configmaps/cluster-info."""
    attributes = AuthorizationAttributes(ANONYMOUS, verb, True, "", "v1", "configmaps", "", namespace, name)
    assert PublicClusterInfo(DenyAll()).authorize(attributes).allowed is allowed


async def test_the_publisher_keeps_signatures_in_step_with_tokens() -> None:
    """Creating, then deleting, a signing token adds, then removes, its signature in the ConfigMap."""
    api = EmbeddedAPI(MemoryBackend())
    await api.start()
    publisher = ClusterInfoPublisher(api.context, cluster_info_kubeconfig("https://hub:6443", b"PEM"))
    publisher.start()
    client = api.client("test")
    try:
        data = await eventually_async(lambda: published_data(client), until=lambda d: "kubeconfig" in d)
        assert set(data) == {"kubeconfig"}
        expires = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        await client.create(SECRET, signing_token("abcdef", "0123456789abcdef", expiration=expires))
        data = await eventually_async(
            lambda: published_data(client), until=lambda d: "jws-kubeconfig-abcdef" in d
        )
        verify_cluster_info(data, "abcdef", "0123456789abcdef")
        await client.delete(SECRET, "bootstrap-token-abcdef", namespace="kube-system")
        await eventually_async(
            lambda: published_data(client), until=lambda d: "jws-kubeconfig-abcdef" not in d
        )
    finally:
        await publisher.stop()
        await api.stop()


def published_data(client: LocalClient) -> dict[str, str]:
    """The data of kube-public/cluster-info ({} before the publisher has written it)."""
    found = client.get(CONFIG_MAP, "cluster-info", namespace="kube-public")
    data: dict[str, str] = (found or {}).get("data") or {}
    return data
