"""The cluster proxy: kubectl reaches members through `clusters/<name>/proxy` on the hub.

A hub with one Push member (dialled by the hub) and one Pull member (reached through the tunnel its
agent holds open), the controller manager and the agent. kubectl is pointed at
`https://HUB/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy` with the hub's credentials, as
Karmada documents it; the member answers as the hub user (impersonated), so the member's RBAC
decides, and the hub's RBAC on `clusters/proxy` decides first.
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from tests.integration.federation import Federation, MemberCluster
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PUSH, PULL = "push1", "pull1"
PROXY_PATH = "/apis/cluster.karmada.io/v1alpha1/clusters/{}/proxy"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = [MemberCluster(PUSH, nodes=2), MemberCluster(PULL, nodes=3, sync_mode="Pull")]
    with Federation(tmp_path_factory.mktemp("proxy"), members) as federation:
        yield federation.start()


def through_proxy(kubeconfig: Path, cluster: str, tmp_path: Path, name: str = "proxy") -> Kubectl:
    """kubectl with `kubeconfig`'s credentials, its server moved to the hub's proxy of `cluster`."""
    config = yaml.safe_load(kubeconfig.read_text())
    for entry in config["clusters"]:
        entry["cluster"]["server"] = entry["cluster"]["server"].rstrip("/") + PROXY_PATH.format(cluster)
    moved = tmp_path / f"{name}-{cluster}.kubeconfig"
    moved.write_text(yaml.safe_dump(config))
    return Kubectl(moved, tmp_path / f"{name}-{cluster}-cache")


def with_token(kubeconfig: Path, token: str, tmp_path: Path, name: str) -> Path:
    """A copy of `kubeconfig` whose user authenticates with `token` instead."""
    config = yaml.safe_load(kubeconfig.read_text())
    for entry in config["users"]:
        entry["user"] = {"token": token}
    path = tmp_path / f"{name}.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def _tls(kubeconfig: Path, scratch: Path) -> tuple[str, ssl.SSLContext, dict[str, str]]:
    """The server, a TLS context (with any client certificate) and the headers of `kubeconfig`'s user."""
    config = yaml.safe_load(kubeconfig.read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    context = ssl.create_default_context(cadata=_decoded(cluster["certificate-authority-data"]))
    if "client-certificate-data" in user:
        certificate, key = scratch / "client.crt", scratch / "client.key"
        certificate.write_text(_decoded(user["client-certificate-data"]))
        key.write_text(_decoded(user["client-key-data"]))
        context.load_cert_chain(certificate, key)
    headers = {"Authorization": f"Bearer {user['token']}"} if "token" in user else {}
    return cluster["server"], context, headers


def _decoded(value: str) -> str:
    return base64.b64decode(value).decode()


def proxied_get(kubeconfig: Path, cluster: str, path: str, scratch: Path) -> tuple[int, dict[str, Any]]:
    """GET `path` on `cluster` through the proxy as `kubeconfig`'s user: the status and the JSON body.

    kubectl shows a failed discovery as "unknown", and `get --raw` drops the server's path, so the
    messages are read with a plain request.
    """
    server, context, headers = _tls(kubeconfig, scratch)
    request = urllib.request.Request(server + PROXY_PATH.format(cluster) + path, headers=headers)
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def node_names(kubectl: Kubectl) -> list[str]:
    return sorted(item["metadata"]["name"] for item in kubectl.json("get", "nodes")["items"])


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_kubectl_reads_a_member_through_the_hub(federation: Federation, tmp_path: Path, cluster: str) -> None:
    """`kubectl get` through the proxy answers what the member itself answers, for Push and Pull alike."""
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    direct = federation.member(cluster, tmp_path / "direct-cache")
    assert node_names(proxied) == node_names(direct)
    assert len(node_names(proxied)) == (2 if cluster == PUSH else 3)
    assert proxied("version", "-o", "json")  # discovery and /version come from the member too
    namespaces = {item["metadata"]["name"] for item in proxied.json("get", "namespaces")["items"]}
    assert "kube-system" in namespaces


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_writes_and_watches_pass_through(federation: Federation, tmp_path: Path, cluster: str) -> None:
    """A create through the proxy lands in the member; `kubectl get -w` through it sees a later change."""
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    direct = federation.member(cluster, tmp_path / "direct-cache")
    name = f"through-proxy-{cluster}"
    proxied("create", "configmap", name, "--from-literal=a=1")
    assert direct.json("get", "configmap", name)["data"] == {"a": "1"}
    watcher = proxied.popen("get", "configmap", name, "-w", "-o", "jsonpath={.data.a}{'\\n'}")
    try:
        assert watcher.stdout is not None
        assert watcher.stdout.readline().strip() == "1"
        direct("patch", "configmap", name, "-p", '{"data":{"a":"2"}}')
        assert watcher.stdout.readline().strip() == "2"  # streamed as the member sends it
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)
    proxied("delete", "configmap", name)
    assert not direct.succeeds("get", "configmap", name)


def test_a_member_that_is_not_there_is_404(federation: Federation, tmp_path: Path) -> None:
    code, body = proxied_get(federation.hub.kubeconfig, "nowhere", "/api/v1/namespaces", tmp_path)
    assert (code, body["reason"]) == (404, "NotFound")
    assert body["message"] == 'clusters.cluster.karmada.io "nowhere" not found'
    assert not through_proxy(federation.hub.kubeconfig, "nowhere", tmp_path).succeeds("get", "namespaces")


def _service_account_token(hub: Kubectl, name: str, *rules: dict[str, Any]) -> str:
    """A hub ServiceAccount `name` granted `rules` cluster-wide, and a token for it."""
    hub("create", "serviceaccount", name, "-n", "default")
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name},
        "rules": list(rules),
    }
    hub.apply_yaml(role)
    hub("create", "clusterrolebinding", name, f"--clusterrole={name}", f"--serviceaccount=default:{name}")
    return hub("create", "token", name, "-n", "default").strip()


def test_a_user_without_clusters_proxy_is_refused(federation: Federation, tmp_path: Path) -> None:
    """The hub authorizes `clusters/proxy` first: a user who may read Clusters but not proxy gets 403."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    token = _service_account_token(
        hub,
        "reader",
        {"apiGroups": ["cluster.karmada.io"], "resources": ["clusters"], "verbs": ["get", "list"]},
    )
    reader = with_token(federation.hub.kubeconfig, token, tmp_path, "reader")
    assert Kubectl(reader, tmp_path / "reader-cache").succeeds("get", "clusters")
    assert not through_proxy(reader, PUSH, tmp_path, "reader").succeeds("get", "nodes")
    code, body = proxied_get(reader, PUSH, "/api/v1/nodes", tmp_path)
    assert code == 403
    assert 'cannot get resource "clusters/proxy" in API group "cluster.karmada.io"' in body["message"]


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_the_member_sees_the_hub_user_and_its_rbac_decides(
    federation: Federation, tmp_path: Path, cluster: str
) -> None:
    """A hub user allowed to proxy is that user in the member: refused there until the member grants it."""
    hub = federation.kubectl(tmp_path / "hub-cache")
    user = f"proxier-{cluster}"
    token = _service_account_token(
        hub, user, {"apiGroups": ["cluster.karmada.io"], "resources": ["clusters/proxy"], "verbs": ["*"]}
    )
    proxied = through_proxy(with_token(federation.hub.kubeconfig, token, tmp_path, user), cluster, tmp_path)
    refused = proxied.run("get", "configmaps", "-n", "default", check=False)
    assert refused.returncode != 0
    assert f'User "system:serviceaccount:default:{user}" cannot list resource "configmaps"' in refused.stderr
    member = federation.member(cluster, tmp_path / "member-cache")
    member(
        "create",
        "clusterrolebinding",
        user,
        "--clusterrole=view",
        f"--user=system:serviceaccount:default:{user}",
    )
    eventually(
        lambda: proxied.succeeds("get", "configmaps", "-n", "default"), timeout=30, what="member grants view"
    )
    assert not proxied.succeeds("create", "configmap", "not-allowed", "-n", "default")


def test_an_agent_cannot_proxy_to_any_cluster(federation: Federation, tmp_path: Path) -> None:
    """A Pull member's agent credential opens its own tunnel only; it may not proxy, to another or its own."""
    agent_kubeconfig = federation.agents[PULL].data_dir / "hub.kubeconfig"
    for cluster in (PUSH, PULL):
        assert not through_proxy(agent_kubeconfig, cluster, tmp_path, "agent").succeeds("get", "nodes")
        code, body = proxied_get(agent_kubeconfig, cluster, "/api/v1/nodes", tmp_path)
        assert code == 403
        assert f'User "system:karmada:agent:{PULL}" cannot get resource "clusters/proxy"' in body["message"]


def _tunnel_handshake(kubeconfig: Path, cluster: str, scratch: Path) -> int:
    """The HTTP status of a WebSocket handshake on `clusters/<cluster>/tunnel` with `kubeconfig`'s user."""
    server, context, headers = _tls(kubeconfig, scratch)

    async def handshake() -> int:
        url = f"{server}/apis/cluster.karmada.io/v1alpha1/clusters/{cluster}/tunnel"
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(url, ssl=context, headers=headers) as socket:
                    await socket.close()
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    return asyncio.run(handshake())


def test_only_the_clusters_agent_may_open_its_tunnel(federation: Federation, tmp_path: Path) -> None:
    """The admin may not stand in for an agent (it would see every proxied request); another agent neither."""
    assert _tunnel_handshake(federation.hub.kubeconfig, PULL, tmp_path) == 403
    agent_kubeconfig = federation.agents[PULL].data_dir / "hub.kubeconfig"
    assert _tunnel_handshake(agent_kubeconfig, PUSH, tmp_path) == 403


def test_flotilla_get_reaches_push_and_pull_members_through_the_proxy(federation: Federation) -> None:
    """`flotilla get --operation-scope members` lists both members' nodes, the Pull one included."""
    result = federation.flotilla("get", "nodes", "--operation-scope", "members")
    assert result.returncode == 0, result.stderr
    lines = [line.split() for line in result.stdout.splitlines() if line.strip()]
    column = lines[0].index("CLUSTER")
    nodes_per_cluster = {
        cluster: sum(1 for row in lines[1:] if row[column] == cluster) for cluster in (PUSH, PULL)
    }
    assert nodes_per_cluster == {PUSH: 2, PULL: 3}


def test_a_pull_member_whose_agent_is_down_is_503_then_back(federation: Federation, tmp_path: Path) -> None:
    """With the agent stopped the tunnel is gone (503 naming the cluster); the restarted agent reopens it."""
    proxied = through_proxy(federation.hub.kubeconfig, PULL, tmp_path)
    agent = federation.agents[PULL]
    agent.stop()
    try:
        assert not proxied.succeeds("get", "namespaces")
        code, body = proxied_get(federation.hub.kubeconfig, PULL, "/api/v1/namespaces", tmp_path)
        assert code == 503
        assert f"cluster {PULL} is in Pull mode and its agent has no tunnel open" in body["message"]
    finally:
        agent.start()
    eventually(lambda: proxied.succeeds("get", "namespaces"), timeout=60, what="the tunnel open again")


def test_a_tunnel_carries_large_bodies_and_concurrent_requests(
    federation: Federation, tmp_path: Path
) -> None:
    """A body larger than a tunnel frame goes up and comes back whole, while other requests run beside it."""
    proxied = through_proxy(federation.hub.kubeconfig, PULL, tmp_path)
    payload = "".join(f"{line:08d} the tunnel carries this line\n" for line in range(12_000))  # ~450 KB
    (tmp_path / "payload.txt").write_text(payload)
    proxied("create", "configmap", "large", f"--from-file=payload={tmp_path / 'payload.txt'}")
    watcher = proxied.popen("get", "configmaps", "-w", "-o", "name")
    try:
        with ThreadPoolExecutor(8) as pool:
            reads = list(pool.map(lambda _: proxied.json("get", "configmap", "large"), range(16)))
        assert all(read["data"]["payload"] == payload for read in reads)
    finally:
        watcher.terminate()
        watcher.communicate(timeout=10)
    direct = federation.member(PULL, tmp_path / "direct-cache")
    assert direct.json("get", "configmap", "large")["data"]["payload"] == payload
    proxied("delete", "configmap", "large")
