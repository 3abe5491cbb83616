"""`kubectl exec` and `kubectl logs` on simulated members, directly and through the hub's cluster proxy.

The sim runs an exec's command locally and serves a file as a container's log (kwok's ClusterExec and
ClusterLogs, from its config file). kubectl 1.32 opens exec as a WebSocket (`v5.channel.k8s.io`); the
hub relays it to a Push member by dialling it, and to a Pull member through its agent's tunnel, as the
hub user impersonated, so the member's RBAC decides.
"""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from tests.integration.federation import Federation, MemberCluster
from tests.integration.test_cluster_proxy import PROXY_PATH, through_proxy, with_token
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PUSH, PULL = "push1", "pull1"
POD = "shell"
SHORT = "short-lived"
"""A pod whose exec rule stops commands after a second."""


@pytest.fixture(scope="module")
def log_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("logs") / "app.log"
    path.write_text("first line\nsecond line\n")
    return path


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory, log_file: Path) -> Iterator[Federation]:
    members = [MemberCluster(PUSH), MemberCluster(PULL, sync_mode="Pull")]
    streams = {
        "execs": [
            {"selector": {"matchNames": [SHORT]}, "local": {}, "timeoutSeconds": 1},
            {"local": {"envs": [{"name": "GREETING", "value": "hello from the sim"}]}, "timeoutSeconds": 20},
        ],
        "logs": [{"selector": {"matchNames": [POD]}, "logsFile": str(log_file)}],
    }
    root = tmp_path_factory.mktemp("proxy-exec")
    with Federation(root, members, sim_config=streams) as federation:
        federation.start()
        for name in (PUSH, PULL):
            member = federation.member(name, root / f"{name}-cache")
            member("run", POD, "--image=busybox", "--restart=Never")
        federation.member(PUSH, root / f"{PUSH}-cache")("run", SHORT, "--image=busybox", "--restart=Never")
        for name in (PUSH, PULL):
            _wait_running(federation.member(name, root / f"{name}-cache"))
        yield federation


def _wait_running(member: Kubectl, pod: str = POD) -> None:
    eventually(
        lambda: member.json("get", "pod", pod)["status"].get("phase") == "Running",
        timeout=30,
        what=f"pod {pod} running",
    )


def test_kubectl_exec_and_logs_on_a_simulated_member(federation: Federation, tmp_path: Path) -> None:
    """A sim member runs an exec's command locally (env added, exit code kept) and serves the log file."""
    member = federation.member(PUSH, tmp_path / "cache")
    assert member("exec", POD, "--", "sh", "-c", "echo $GREETING") == "hello from the sim\n"
    assert member("exec", "-i", POD, "--", "tr", "a-z", "A-Z", input="shout\n") == "SHOUT\n"
    failed = member.run("exec", POD, "--", "sh", "-c", "echo oops >&2; exit 3", check=False)
    assert failed.returncode == 3
    assert "oops" in failed.stderr
    assert member("logs", POD) == "first line\nsecond line\n"
    assert member("logs", POD, "--tail=1") == "second line\n"
    missing = member.run("exec", "nowhere", "--", "true", check=False)
    assert 'pods "nowhere" not found' in missing.stderr
    wrong = member.run("exec", POD, "-c", "sidecar", "--", "true", check=False)
    assert f"container sidecar is not valid for pod {POD}" in wrong.stderr
    _wait_running(member, SHORT)
    started = time.monotonic()
    stopped = member.run("exec", SHORT, "--", "sleep", "30", check=False, timeout=20)
    assert stopped.returncode != 0
    assert "the command was stopped after 1s" in stopped.stderr
    assert time.monotonic() - started < 10
    previous = member.run("logs", POD, "--previous", check=False)
    assert f'previous terminated container "{POD}" in pod "{POD}" not found' in previous.stderr


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_kubectl_exec_through_the_proxy(federation: Federation, tmp_path: Path, cluster: str) -> None:
    """exec through the hub: output, stdin and the command's exit code reach kubectl, for Push and Pull."""
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    assert proxied("exec", POD, "--", "echo", "through", "the", "hub") == "through the hub\n"
    assert proxied("exec", "-i", POD, "--", "wc", "-l", input="a\nb\nc\n").strip() == "3"
    large = "".join(f"{n:06d} a line longer than a little\n" for n in range(5000))  # ~170 KB each way
    assert proxied("exec", "-i", POD, "--", "cat", input=large) == large
    failed = proxied.run("exec", POD, "--", "sh", "-c", "exit 7", check=False)
    assert failed.returncode == 7


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_kubectl_logs_through_the_proxy(
    federation: Federation, tmp_path: Path, log_file: Path, cluster: str
) -> None:
    """`logs` through the hub answers the member's log; `logs -f` sees a line appended later."""
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    assert proxied("logs", POD).startswith("first line\nsecond line\n")
    follower = proxied.popen("logs", "-f", POD)
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline() == "first line\n"
        line = f"appended for {cluster} at {time.time()}\n"
        with log_file.open("a") as file:
            file.write(line)
        while (seen := follower.stdout.readline()) != line:
            assert seen, "the follower ended before the appended line"
    finally:
        follower.terminate()
        follower.communicate(timeout=10)


def _tls(kubeconfig: Path, scratch: Path) -> tuple[str, ssl.SSLContext, dict[str, str]]:
    config = yaml.safe_load(kubeconfig.read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    context = ssl.create_default_context(
        cadata=base64.b64decode(cluster["certificate-authority-data"]).decode()
    )
    if "client-certificate-data" in user:
        certificate, key = scratch / "client.crt", scratch / "client.key"
        certificate.write_bytes(base64.b64decode(user["client-certificate-data"]))
        key.write_bytes(base64.b64decode(user["client-key-data"]))
        context.load_cert_chain(certificate, key)
    headers = {"Authorization": f"Bearer {user['token']}"} if "token" in user else {}
    return cluster["server"], context, headers


def exec_handshake(kubeconfig: Path, cluster: str, pod: str, scratch: Path) -> tuple[int, dict[str, Any]]:
    """The status and Status body of an exec WebSocket handshake through the proxy (101: accepted)."""
    server, context, headers = _tls(kubeconfig, scratch)
    query = "command=true&stdout=true&stderr=true"
    url = f"{server}{PROXY_PATH.format(cluster)}/api/v1/namespaces/default/pods/{pod}/exec?{query}"

    async def handshake() -> tuple[int, dict[str, Any]]:
        async with aiohttp.ClientSession() as session:
            response = await session.get(
                url,
                ssl=context,
                headers={
                    **headers,
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": base64.b64encode(b"0123456789abcdef").decode(),
                    "Sec-WebSocket-Protocol": "v5.channel.k8s.io",
                },
            )
            async with response:
                if response.status == 101:
                    return 101, {}
                return response.status, json.loads(await response.read())

    return asyncio.run(handshake())


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_the_members_refusals_reach_the_client(federation: Federation, tmp_path: Path, cluster: str) -> None:
    """A missing pod is the member's 404, and an SPDY upgrade gets the member's own refusal of SPDY."""
    code, body = exec_handshake(federation.hub.kubeconfig, cluster, "nowhere", tmp_path)
    assert (code, body["message"]) == (404, 'pods "nowhere" not found')
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    spdy = proxied.run(
        "exec", POD, "--", "true", check=False, env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"}
    )
    assert spdy.returncode != 0
    assert "exec is served over WebSocket only (v5.channel.k8s.io, v4.channel.k8s.io" in spdy.stderr


def _service_account_token(hub: Kubectl, name: str) -> str:
    hub("create", "serviceaccount", name, "-n", "default")
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name},
        "rules": [{"apiGroups": ["cluster.karmada.io"], "resources": ["clusters/proxy"], "verbs": ["*"]}],
    }
    hub.apply_yaml(role)
    hub("create", "clusterrolebinding", name, f"--clusterrole={name}", f"--serviceaccount=default:{name}")
    return hub("create", "token", name, "-n", "default").strip()


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_a_user_the_member_does_not_allow_exec_gets_403(
    federation: Federation, tmp_path: Path, cluster: str
) -> None:
    """A hub user whom the member lets view but not exec reads logs through the proxy; exec is refused 403."""
    user = f"viewer-{cluster}"
    token = _service_account_token(federation.kubectl(tmp_path / "hub-cache"), user)
    subject = f"system:serviceaccount:default:{user}"
    member = federation.member(cluster, tmp_path / "member-cache")
    member("create", "clusterrolebinding", user, "--clusterrole=view", f"--user={subject}")
    kubeconfig = with_token(federation.hub.kubeconfig, token, tmp_path, user)
    proxied = through_proxy(kubeconfig, cluster, tmp_path, user)
    eventually(lambda: proxied.succeeds("logs", POD), timeout=30, what="the member lets the user view")
    code, body = exec_handshake(kubeconfig, cluster, POD, tmp_path)
    assert code == 403
    assert f'User "{subject}" cannot get resource "pods/exec"' in body["message"]
    refused = proxied.run("exec", POD, "--", "true", check=False)
    assert refused.returncode != 0
    assert f'User "{subject}" cannot create resource "pods/exec"' in refused.stderr  # its SPDY retry


def _running(marker: str) -> bool:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, check=False)
    return found.returncode == 0


@pytest.mark.parametrize("cluster", [PUSH, PULL])
def test_a_client_that_goes_away_ends_the_command(
    federation: Federation, tmp_path: Path, cluster: str
) -> None:
    """Killing kubectl closes the hub's WebSocket, then the member's, and the member kills the command."""
    marker = f"sleep 41.{[PUSH, PULL].index(cluster) + 1}7"
    proxied = through_proxy(federation.hub.kubeconfig, cluster, tmp_path)
    running = proxied.popen("exec", POD, "--", "sh", "-c", f"echo started; exec {marker}")
    try:
        assert running.stdout is not None
        assert running.stdout.readline() == "started\n"
        assert _running(marker)
    finally:
        running.kill()
        running.communicate(timeout=10)
    eventually(lambda: not _running(marker), timeout=15, what="the command killed")
