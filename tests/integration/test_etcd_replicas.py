"""Two API server processes on one etcd: one API, whichever process a client reaches.

Each process has its own watch cache, fed by etcd's watch. The second one starts from a copy of the
first one's data directory (the PKI and the encryption keys), as a replica on another machine
would. Clients are the official Python client (one per process) and the system kubectl. What holds:
a write through either process is read back at once through the other (a consistent read waits for
etcd's revision, not for the watch to arrive); a watch on either sees the writes made through both
in the same order with no gap or duplicate; a list at a resourceVersion one process returned is
served by the other; a watch from before etcd's compaction is 410 Gone on both; a CRD defined
through one is served by the other; and two idle processes write nothing (their housekeeping does
not fight).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flotilla.cli.localhub.replicas import share_hub_files
from tests.integration.federation import custom_resource_definition
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"))


@pytest.fixture(scope="module")
def servers(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ServerProcess]]:
    # No watch history in memory: a watch from an older resourceVersion replays from etcd, the path
    # etcd's compaction cuts (with history in memory, a cache serves it as kube-apiserver's does).
    args = [f"--etcd-servers={etcd.url}", "--history-max-bytes=0"]
    first = ServerProcess(tmp_path_factory.mktemp("apiserver-a"), extra_args=args).start()
    second_dir = tmp_path_factory.mktemp("apiserver-b")
    share_hub_files(first.data_dir, second_dir)  # what `flotilla up --ha` gives its second API server
    second = ServerProcess(second_dir, extra_args=args).start()
    yield [first, second]
    for server in (second, first):
        code = server.stop()
        assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{server.log()}"


def api_client(server: ServerProcess) -> Any:
    from kubernetes import client, config

    configuration = client.Configuration()
    config.load_kube_config(  # type: ignore[no-untyped-call]
        config_file=str(server.kubeconfig), client_configuration=configuration
    )
    return client.ApiClient(configuration)


@pytest.fixture(scope="module")
def cores(servers: list[ServerProcess]) -> Iterator[list[Any]]:
    from kubernetes import client

    apis = [api_client(server) for server in servers]
    yield [client.CoreV1Api(api) for api in apis]
    for api in apis:
        api.close()


@pytest.fixture
def namespace(cores: list[Any]) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:8]}"
    cores[0].create_namespace({"metadata": {"name": name}})
    yield name
    cores[0].delete_namespace(name)


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "data": data}


def test_a_write_through_one_is_read_at_once_through_the_other(cores: list[Any], namespace: str) -> None:
    """Create through A, GET through B right away, alternating: never a 404, always the written data."""
    for index in range(40):
        writer, reader = cores[index % 2], cores[(index + 1) % 2]
        writer.create_namespaced_config_map(namespace, configmap(f"ryw-{index}", n=str(index)))
        assert reader.read_namespaced_config_map(f"ryw-{index}", namespace).data == {"n": str(index)}
        writer.patch_namespaced_config_map(f"ryw-{index}", namespace, {"data": {"n": "patched"}})
        assert reader.read_namespaced_config_map(f"ryw-{index}", namespace).data == {"n": "patched"}


def watch_events(
    core: Any, namespace: str, since: str, until: str, found: list[tuple[str, str, str]]
) -> None:
    """Collect (type, name, resourceVersion) from a watch from `since` until the object `until` shows."""
    from kubernetes import watch

    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_config_map, namespace, resource_version=since, timeout_seconds=30
    ):
        obj = event["object"]
        found.append((event["type"], obj.metadata.name, obj.metadata.resource_version))
        if obj.metadata.name == until:
            stream.stop()
            return


def test_watches_on_both_see_the_writes_through_both_in_one_order(cores: list[Any], namespace: str) -> None:
    """Two writers (one per process, concurrently) and a watch on each process from one
    resourceVersion: both watches see every acknowledged write exactly once, in the same order."""
    since = cores[0].list_namespaced_config_map(namespace).metadata.resource_version
    seen: list[list[tuple[str, str, str]]] = [[], []]
    watchers = [
        threading.Thread(target=watch_events, args=(core, namespace, since, "done", seen[i]))
        for i, core in enumerate(cores)
    ]
    for watcher in watchers:
        watcher.start()
    acknowledged: list[list[str]] = [[], []]

    def write(which: int) -> None:
        for index in range(30):
            name = f"w{which}-{index}"
            created = cores[which].create_namespaced_config_map(namespace, configmap(name))
            acknowledged[which].append(created.metadata.resource_version)
            if index % 3 == 0:
                cores[which].delete_namespaced_config_map(name, namespace)

    writers = [threading.Thread(target=write, args=(which,)) for which in (0, 1)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=60)
    cores[1].create_namespaced_config_map(namespace, configmap("done"))
    for watcher in watchers:
        watcher.join(timeout=60)
    assert seen[0] == seen[1], "the two processes' watches differ"
    versions = [int(rv) for _, _, rv in seen[0]]
    assert versions == sorted(set(versions)), "a gap in order or a duplicate"
    added = {rv for kind, _, rv in seen[0] if kind == "ADDED"}
    assert {rv for written in acknowledged for rv in written} <= added
    assert sum(1 for kind, _, _ in seen[0] if kind == "DELETED") == 2 * 10


def test_a_list_at_a_resource_version_from_one_is_served_by_the_other(
    cores: list[Any], namespace: str
) -> None:
    """A resourceVersion is etcd's revision: B serves a list at A's revision (exact, not older)."""
    cores[0].create_namespaced_config_map(namespace, configmap("before"))
    at = cores[0].list_namespaced_config_map(namespace).metadata.resource_version
    cores[0].create_namespaced_config_map(namespace, configmap("after"))
    listed = cores[1].list_namespaced_config_map(
        namespace, resource_version=at, resource_version_match="Exact"
    )
    assert listed.metadata.resource_version == at
    assert [item.metadata.name for item in listed.items] == ["before"]


def test_a_crd_defined_through_one_is_served_by_the_other(
    servers: list[ServerProcess], namespace: str, tmp_path: Path
) -> None:
    first, second = (Kubectl(server.kubeconfig, tmp_path / f"cache-{i}") for i, server in enumerate(servers))
    group = f"g{uuid.uuid4().hex[:6]}.example.com"
    crd = custom_resource_definition(
        group, "Gadget", {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    )
    first.apply_yaml(crd)
    gadget = {
        "apiVersion": f"{group}/v1",
        "kind": "Gadget",
        "metadata": {"name": "g1", "namespace": namespace},
    }
    eventually(
        lambda: second.run("create", "-f", "-", input=json.dumps(gadget), check=False).returncode == 0,
        what="the second API server serving the CRD",
    )
    assert first.json("get", f"gadgets.{group}", "g1", "-n", namespace)["metadata"]["name"] == "g1"
    first("delete", "crd", f"gadgets.{group}")


def test_a_watch_from_before_compaction_is_gone_on_both(
    cores: list[Any], namespace: str, etcd: EtcdServer, servers: list[ServerProcess], tmp_path: Path
) -> None:
    old = cores[0].create_namespaced_config_map(namespace, configmap("old")).metadata.resource_version
    latest = cores[1].patch_namespaced_config_map("old", namespace, {"data": {"v": "new"}})
    etcd.ctl("compact", latest.metadata.resource_version)
    for i, server in enumerate(servers):
        kubectl = Kubectl(server.kubeconfig, tmp_path / f"cache-{i}")
        path = f"/api/v1/namespaces/{namespace}/configmaps?watch=1&resourceVersion={old}&timeoutSeconds=5"
        result = kubectl.run("get", "--raw", path, check=False)
        answer = (result.stdout + result.stderr).replace(" ", "")
        assert '"code":410' in answer or "410" in result.stderr, answer


def test_two_idle_processes_write_nothing(servers: list[ServerProcess], etcd: EtcdServer) -> None:
    """Each runs the API server's housekeeping (bootstrap signer, token cleaner, garbage collector…):
    once settled, none of it rewrites what the other wrote."""

    def revision() -> int:
        status = json.loads(etcd.ctl("endpoint", "status", "--write-out=json").stdout)
        return int(status[0]["Status"]["header"]["revision"])

    eventually(lambda: _unchanged_for(revision, 1.0), what="the store to settle")
    assert _unchanged_for(revision, 3.0), "two idle API servers kept writing"


def _unchanged_for(revision: Any, seconds: float) -> bool:
    before = revision()
    time.sleep(seconds)
    return bool(revision() == before)
