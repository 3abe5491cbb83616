"""Clients of a hub with two API servers on one etcd keep working when the first one is killed.

One etcd member serves the module; each test starts two API servers on it (the second with a copy
of the first's certificates and encryption keys, as replicas share them), points its clients at
both (the kubeconfig's server first, `--hub-endpoints` for the second), then kills the first with
SIGKILL. Clients are `flotilla.client.Client`, the `flotilla` CLI and the controller manager.
"""

from __future__ import annotations

import asyncio
import collections
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.localhub.replicas import share_hub_files
from flotilla.client import Client, ClientError, load_kubeconfig
from flotilla.client.informer import Informer
from tests.support.processes import ControllerManagerProcess, ServerProcess, flotilla
from tests.support.waiting import eventually_async
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)

CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
WRITERS = 3
"""Writers creating at once: at most this many creates are in flight when the server dies."""


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"), tls=True)


def start_pair(etcd: EtcdServer, directory: Path) -> tuple[ServerProcess, ServerProcess]:
    """Two API servers on `etcd` sharing a PKI and encryption keys, under a key prefix of their own."""
    args = [f"--etcd-servers={etcd.url}", *etcd.tls_flags(), f"--etcd-prefix=/{uuid.uuid4().hex[:8]}"]
    first = ServerProcess(directory / "first", extra_args=args).start()
    second_dir = directory / "second"
    share_hub_files(first.data_dir, second_dir)  # what `flotilla up --ha` gives its second API server
    try:
        return first, ServerProcess(second_dir, extra_args=args).start()
    except BaseException:
        first.stop()
        raise


@pytest.fixture
def servers(etcd: EtcdServer, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    first, second = start_pair(etcd, tmp_path)
    yield first, second
    first.stop()
    second.stop()


@dataclass
class FailedOver:
    """A controller manager that led through the first API server, which is now dead."""

    first: ServerProcess
    second: ServerProcess
    manager: ControllerManagerProcess
    holder: str

    def survivor(self) -> Client:
        return Client(replace(load_kubeconfig(self.first.kubeconfig), server=self.second.url))


@pytest.fixture(scope="module")
def failed_over(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FailedOver]:
    directory = tmp_path_factory.mktemp("failed-over")
    first, second = start_pair(etcd, directory)
    manager = ControllerManagerProcess(first.kubeconfig, directory, args=["--hub-endpoints", second.url])
    try:
        manager.start()
        hub = FailedOver(first, second, manager, holder="")

        async def leader() -> str:
            async with hub.survivor() as client:
                spec = await eventually_async(
                    lambda: lease(client), until=lambda spec: bool(spec.get("holderIdentity")), timeout=20
                )
            return str(spec["holderIdentity"])

        hub.holder = asyncio.run(leader())
        first.kill()
        yield hub
    finally:
        manager.stop()
        first.stop()
        second.stop()


async def lease(client: Client) -> dict[str, Any]:
    """The spec of the controller manager's leader-election Lease ({} before there is one)."""
    got = await client.get_or_none(LEASE, "flotilla-controller-manager", namespace="kube-system")
    spec: dict[str, Any] = (got or {}).get("spec") or {}
    return spec


def configmap(namespace: str, attempt: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"generateName": "w-", "namespace": namespace, "labels": {"attempt": attempt}},
    }


async def test_a_client_with_both_endpoints_keeps_reading_writing_and_watching_after_the_first_dies(
    servers: tuple[ServerProcess, ServerProcess],
) -> None:
    """Creates keep being acknowledged, each acknowledged one is stored once, a create that was in
    flight is never stored twice, and an informer delivers the writes made after the kill."""
    first, second = servers
    config = load_kubeconfig(first.kubeconfig).with_endpoints([second.url])
    namespace = f"t-{uuid.uuid4().hex[:8]}"
    acknowledged: set[str] = set()
    failed: list[str] = []
    killed = asyncio.Event()
    after_kill = 0

    async with Client(config) as client:
        await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
        informer = Informer(client, CONFIG_MAP, namespace=namespace)
        seen: set[str] = set()

        def record(_: str, obj: dict[str, Any] | None, __: dict[str, Any] | None) -> None:
            if obj is not None:
                seen.add(obj["metadata"]["name"])

        informer.add_handler(record)
        informer.start()
        await informer.wait_synced(timeout=10)

        async def write(writer: int) -> None:
            nonlocal after_kill
            for n in range(1000):
                attempt = f"{writer}-{n}"
                try:
                    created = await client.create(configmap(namespace, attempt))
                except ClientError:
                    failed.append(attempt)
                    continue
                acknowledged.add(created["metadata"]["name"])
                if killed.is_set():
                    after_kill += 1
                    if after_kill >= 30:
                        return
                elif len(acknowledged) >= 30:
                    first.kill()  # SIGKILL, with creates in flight
                    killed.set()

        try:
            async with asyncio.timeout(60):
                await asyncio.gather(*(write(w) for w in range(WRITERS)))
            assert client.server == second.url
            assert client.endpoint_moves == 1  # the requests that failed together moved it once
            await eventually_async(
                lambda: acknowledged <= seen, timeout=15, what="the informer saw every create"
            )
        finally:
            await informer.stop()
        stored, _ = await client.list(CONFIG_MAP, namespace=namespace)

    attempts = collections.Counter(item["metadata"]["labels"]["attempt"] for item in stored)
    assert {item["metadata"]["name"] for item in stored} >= acknowledged
    assert max(attempts.values()) == 1, "a create was stored twice"
    assert len(failed) <= WRITERS, f"only creates in flight at the kill may fail: {failed}"


def test_flotilla_get_with_hub_endpoints_answers_with_the_first_server_dead(failed_over: FailedOver) -> None:
    kubeconfig = str(failed_over.first.kubeconfig)
    got = flotilla("get", "lease", "flotilla-controller-manager", "-n", "kube-system", "-o", "json",
                   "--kubeconfig", kubeconfig, "--hub-endpoints", failed_over.second.url)  # fmt: skip
    assert json.loads(got.stdout)["spec"]["holderIdentity"] == failed_over.holder
    assert "client.endpoint_failed" in got.stderr  # a warning, kept out of the output
    without = flotilla("get", "lease", "-n", "kube-system", "--kubeconfig", kubeconfig, check=False)
    assert without.returncode != 0  # the kubeconfig's server alone is gone


async def test_a_controller_manager_with_hub_endpoints_keeps_its_lease_after_the_first_server_dies(
    failed_over: FailedOver,
) -> None:
    """The leader keeps renewing its Lease through the second server, so it neither exits nor hands over."""
    async with failed_over.survivor() as client:

        async def renewed_since(before: str) -> bool:
            return (await lease(client))["renewTime"] != before

        for _ in range(3):  # renewals keep coming
            before = (await lease(client))["renewTime"]
            await eventually_async(lambda: renewed_since(before), timeout=10, what="a renewal")  # noqa: B023
        assert (await lease(client))["holderIdentity"] == failed_over.holder
    process = failed_over.manager.process
    assert process is not None and process.poll() is None, failed_over.manager.log()
