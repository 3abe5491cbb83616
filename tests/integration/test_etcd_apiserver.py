"""`flotilla apiserver --etcd-servers …`: the API server on a real etcd member, over mutual TLS.

One etcd member (certificates generated here) and one API server serve the whole module. The
server keeps no watch history in memory (`--history-max-bytes 0`), so a watch resuming from an
older resourceVersion replays from etcd's history: that is the path etcd's compaction must cut
with 410 Gone. Clients are the system kubectl and the official Python client.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"), tls=True)


@pytest.fixture(scope="module")
def server(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    args = [f"--etcd-servers={etcd.url}", *etcd.tls_flags(), "--history-max-bytes=0"]
    process = ServerProcess(tmp_path_factory.mktemp("apiserver"), extra_args=args).start()
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


def etcd_revision(etcd: EtcdServer) -> int:
    status = json.loads(etcd.ctl("endpoint", "status", "--write-out=json").stdout)
    return int(status[0]["Status"]["header"]["revision"])


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_objects_are_stored_in_etcd_under_the_registry_prefix(
    kubectl: Kubectl, namespace: str, etcd: EtcdServer
) -> None:
    """A created object is an etcd key at kube-apiserver's path, and reads back through kubectl."""
    kubectl("create", "configmap", "stored", "-n", namespace, "--from-literal=colour=blue")
    got = kubectl.json("get", "configmap", "stored", "-n", namespace, "-o", "json")
    assert got["data"] == {"colour": "blue"}
    keys = etcd.ctl("get", f"/registry/core/configmaps/{namespace}/", "--prefix", "--keys-only").stdout
    assert f"/registry/core/configmaps/{namespace}/stored".encode() in keys


def test_a_list_pages_with_a_continue_token_at_one_revision(
    api_client: Any, kubectl: Kubectl, namespace: str
) -> None:
    """limit + continue page through the collection as it was at the first page, whatever is written since."""
    from kubernetes import client

    core = client.CoreV1Api(api_client)
    for i in range(5):
        core.create_namespaced_config_map(namespace, configmap(f"page-{i}"))
    first = core.list_namespaced_config_map(namespace, limit=2)
    assert [c.metadata.name for c in first.items] == ["page-0", "page-1"]
    assert first.metadata._continue
    core.create_namespaced_config_map(namespace, configmap("page-9-late"))  # after the list's revision
    names = [c.metadata.name for c in first.items]
    token = first.metadata._continue
    while token:
        page = core.list_namespaced_config_map(namespace, limit=2, _continue=token)
        assert page.metadata.resource_version == first.metadata.resource_version
        names += [c.metadata.name for c in page.items]
        token = page.metadata._continue
    assert names == [f"page-{i}" for i in range(5)]
    assert "page-9-late" in kubectl("get", "configmaps", "-n", namespace, "-o", "name")


def test_a_watch_from_a_resource_version_sees_every_later_write_once(api_client: Any, namespace: str) -> None:
    """Writes after resourceVersion R arrive in order, none missing, none twice, replayed from etcd."""
    from kubernetes import client, watch

    core = client.CoreV1Api(api_client)
    start = core.create_namespaced_config_map(
        namespace, configmap("watched", n="0")
    ).metadata.resource_version
    written = []
    for n in range(1, 4):
        updated = core.patch_namespaced_config_map("watched", namespace, {"data": {"n": str(n)}})
        written.append(updated.metadata.resource_version)
    core.create_namespaced_config_map(namespace, configmap("marker"))
    seen: list[tuple[str, str, str]] = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_config_map, namespace, resource_version=start, timeout_seconds=20
    ):
        obj = event["object"]
        if obj.metadata.name == "marker":
            stream.stop()
            break
        seen.append((event["type"], obj.metadata.resource_version, obj.data["n"]))
    assert seen == [("MODIFIED", rv, str(n)) for n, rv in enumerate(written, start=1)]


def test_an_update_at_a_stale_resource_version_is_a_409_conflict(kubectl: Kubectl, namespace: str) -> None:
    """etcd's mod_revision guard loses the race for the second writer: 409 Conflict, a Status saying so."""
    kubectl("create", "configmap", "raced", "-n", namespace, "--from-literal=v=1")
    old = kubectl.json("get", "configmap", "raced", "-n", namespace, "-o", "json")
    kubectl("patch", "configmap", "raced", "-n", namespace, "--type=merge", "-p", '{"data":{"v":"2"}}')
    old["data"]["v"] = "stale"
    result = kubectl.run("replace", "-f", "-", input=json.dumps(old), check=False)
    assert result.returncode != 0
    assert "Conflict" in result.stderr or "the object has been modified" in result.stderr
    assert kubectl.json("get", "configmap", "raced", "-n", namespace, "-o", "json")["data"] == {"v": "2"}


def test_a_deleted_object_is_gone_from_etcd(kubectl: Kubectl, namespace: str, etcd: EtcdServer) -> None:
    kubectl("create", "configmap", "doomed", "-n", namespace)
    kubectl("delete", "configmap", "doomed", "-n", namespace)
    assert not kubectl.succeeds("get", "configmap", "doomed", "-n", namespace)
    key = f"/registry/core/configmaps/{namespace}/doomed"
    assert etcd.ctl("get", key, "--keys-only").stdout.strip() == b""


def test_secrets_are_encrypted_at_rest_in_etcd(kubectl: Kubectl, namespace: str, etcd: EtcdServer) -> None:
    """The raw etcd value of a Secret is AES-GCM ciphertext, not the secret."""
    kubectl("create", "secret", "generic", "sealed", "-n", namespace, "--from-literal=password=hunter2-plain")
    raw = etcd.ctl("get", f"/registry/core/secrets/{namespace}/sealed", "--print-value-only").stdout
    assert raw.startswith(b"k8s:enc:aesgcm:v1:")
    assert b"hunter2-plain" not in raw
    got = kubectl.json("get", "secret", "sealed", "-n", namespace, "-o", "json")
    assert got["data"]["password"] == "aHVudGVyMi1wbGFpbg=="


def test_a_watch_from_before_etcd_compaction_is_410_gone(
    kubectl: Kubectl, namespace: str, etcd: EtcdServer
) -> None:
    """Once etcd compacted past a resourceVersion, a watch from it answers 410 Gone (Expired)."""
    kubectl("create", "configmap", "old", "-n", namespace)
    old = kubectl.json("get", "configmap", "old", "-n", namespace, "-o", "json")["metadata"][
        "resourceVersion"
    ]
    kubectl("patch", "configmap", "old", "-n", namespace, "--type=merge", "-p", '{"data":{"v":"new"}}')
    etcd.ctl("compact", str(etcd_revision(etcd)))
    path = f"/api/v1/namespaces/{namespace}/configmaps?watch=1&resourceVersion={old}&timeoutSeconds=5"
    result = kubectl.run("get", "--raw", path, check=False)
    answer = result.stdout + result.stderr
    assert '"code":410' in answer.replace(" ", "") or "410" in result.stderr, answer
    assert "Expired" in answer or "too old" in answer or "Gone" in answer, answer


def test_a_restarted_apiserver_serves_everything_it_stored(
    server: ServerProcess, tmp_path: Path, namespace: str
) -> None:
    """The store is etcd, not the process: after a restart every object is there, unchanged."""
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache-before")
    kubectl("create", "configmap", "kept", "-n", namespace, "--from-literal=k=v")
    before = kubectl.json("get", "configmap", "kept", "-n", namespace, "-o", "json")
    assert server.stop() == 0
    server.start()
    after = Kubectl(server.kubeconfig, tmp_path / "cache-after").json(
        "get", "configmap", "kept", "-n", namespace, "-o", "json"
    )
    assert after["metadata"]["uid"] == before["metadata"]["uid"]
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert after["data"] == {"k": "v"}


def test_secrets_are_reencrypted_under_a_rotated_key_in_etcd(
    server: ServerProcess, etcd: EtcdServer, tmp_path: Path, namespace: str
) -> None:
    """rotate-key, restart, `flotilla secrets reencrypt --etcd-servers …` over TLS: the stored
    Secret names the new key in etcd, and the API server still serves it."""
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache")
    kubectl("create", "secret", "generic", "rotated", "-n", namespace, "--from-literal=password=p4ss")
    key = f"/registry/core/secrets/{namespace}/rotated"
    before = etcd.ctl("get", key, "--print-value-only").stdout
    flotilla = [sys.executable, "-m", "flotilla", "secrets"]
    rotate = subprocess.run(
        [*flotilla, "rotate-key", "--data-dir", str(server.data_dir)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert rotate.returncode == 0, rotate.stderr
    assert server.stop() == 0
    server.start()  # reads the new key list: the new key first, the old one still decrypts
    result = subprocess.run(
        [
            *flotilla,
            "reencrypt",
            "--data-dir",
            str(server.data_dir),
            f"--etcd-servers={etcd.url}",
            *etcd.tls_flags(),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    after = etcd.ctl("get", key, "--print-value-only").stdout
    old_name, new_name = (value.split(b":")[4] for value in (before, after))
    assert old_name != new_name, "the Secret is still under the old key"
    got = eventually(
        lambda: kubectl.json("get", "secret", "rotated", "-n", namespace, "-o", "json"),
        until=lambda found: found["metadata"]["resourceVersion"] != "",
        what="the re-encrypted Secret",
    )
    assert got["data"]["password"] == "cDRzcw=="


def test_reencrypt_refuses_half_given_etcd_flags(server: ServerProcess) -> None:
    """A client certificate without its key is a usage error, before anything is read or written."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "flotilla",
            "secrets",
            "reencrypt",
            "--data-dir",
            str(server.data_dir),
            "--etcd-servers=https://127.0.0.1:1",
            f"--etcd-certfile={server.data_dir / 'pki' / 'ca.crt'}",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "--etcd-certfile and --etcd-keyfile go together" in result.stderr


def test_a_lost_etcd_is_a_status_error_not_a_hang(
    server: ServerProcess, etcd: EtcdServer, tmp_path: Path
) -> None:
    """With etcd gone a write fails promptly with a Status error; once etcd is back writes succeed."""
    kubectl = Kubectl(server.kubeconfig, tmp_path / "cache")
    name = f"t-{uuid.uuid4().hex[:8]}"
    etcd.stop()
    try:
        started = time.monotonic()
        result = kubectl.run("create", "namespace", name, "--request-timeout=30s", check=False)
        assert result.returncode != 0
        assert time.monotonic() - started < 25
        assert "storage error" in result.stderr or "InternalError" in result.stderr, result.stderr
    finally:
        etcd.start()
    # gRPC reconnects to the restarted member after its backoff: writes fail until then, then succeed.
    eventually(
        lambda: kubectl.succeeds("create", "namespace", name), timeout=30, what="a write once etcd is back"
    )
    assert kubectl.succeeds("get", "namespace", name)
