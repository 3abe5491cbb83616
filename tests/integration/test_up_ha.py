"""R3 of #17: `flotilla up --ha` loses an etcd member and an API server to `kill -9` and loses nothing.

One `up --ha` (three etcd members with mutual TLS, two API servers, the controller manager with
leader election, two simulated members) runs in a temporary data dir. A writer creates ConfigMaps
one after the other through a client that knows both API servers (the kubeconfig's, then
`--hub-endpoints`'s), while a watch opened beforehand on the second API server reads them back.
During the stream `kill -9` takes the etcd member both API servers talk to (the first of
`--etcd-servers`), then the first API server. Both are restarted by `up` a second later, but the
writes must not wait for that: they move to the surviving etcd members and API server. Then:

- few writes failed (a create in flight on a connection that broke is not resent: it may have
  committed), and the number is printed;
- every acknowledged create is in the store at the end, with the resourceVersion it was answered;
- the watch saw every acknowledged create exactly once, with resourceVersions strictly increasing;
- the controller manager still propagates: the nginx walkthrough applied after the kills reaches
  both members;
- `flotilla down` leaves no process of the data dir behind, etcd members included.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, Client, ClientError, load_kubeconfig
from tests.integration.federation import nginx_walkthrough
from tests.integration.test_up import UpRun, pid_alive, processes_mentioning
from tests.support.waiting import eventually, eventually_async
from tests.unit.storage.etcdserver import ETCD, MISSING_REASON

pytestmark = [pytest.mark.skipif(ETCD is None, reason=MISSING_REASON), pytest.mark.slow]

CONFIGMAP = GroupVersionKind("", "v1", "ConfigMap")
NAMESPACE_KIND = GroupVersionKind("", "v1", "Namespace")
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
NAMESPACE = "r3"
MEMBERS = ("member1", "member2")
MAX_FAILED_WRITES = 5
"""Writes in flight when a process died may fail; more than a handful means writes stalled."""


@pytest.fixture(scope="module")
def ha(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UpRun]:
    data_dir = tmp_path_factory.mktemp("up-ha") / "flotilla"
    run = UpRun(data_dir, ["--ha", "--members", str(len(MEMBERS)), "--secure-port", "0"]).start()
    try:
        yield run.wait_ready()
    finally:
        down(data_dir)
        run.kill()
        for line in processes_mentioning(data_dir):
            os.kill(int(line.split(":", 1)[0]), signal.SIGKILL)


def down(data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flotilla", "down", "--data-dir", str(data_dir), "--grace", "5"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@dataclass
class Writer:
    """Creates ConfigMaps one after the other until stopped; what was acknowledged and what failed."""

    client: Client
    acknowledged: dict[str, str] = field(default_factory=dict)
    """name → the resourceVersion the create was answered with."""
    failures: list[str] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        index = 0
        while not self.stop.is_set():
            name = f"cm-{index:05d}"
            index += 1
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"i": name}}
            try:
                created = await self.client.create(body, namespace=NAMESPACE)
            except (ClientError, OSError) as exc:
                self.failures.append(f"{name}: {exc}")
                await asyncio.sleep(0.05)
                continue
            self.acknowledged[name] = created["metadata"]["resourceVersion"]

    async def wait_for(self, count: int) -> None:
        """Until `count` more creates were acknowledged (the stream flows)."""
        target = len(self.acknowledged) + count
        # Generous for a loaded machine: the failed writes are what is counted, not the pace.
        await eventually_async(
            lambda: len(self.acknowledged) >= target, timeout=30, what=f"{count} more creates"
        )


@dataclass
class Watcher:
    """One watch on one API server, from a resourceVersion; every event it delivered, in order."""

    client: Client
    events: list[dict[str, Any]] = field(default_factory=list)

    async def run(self, resource_version: str) -> None:
        async for event in self.client.watch(
            CONFIGMAP, namespace=NAMESPACE, resource_version=resource_version, timeout_seconds=600
        ):
            if event.type == "ERROR":
                raise AssertionError(f"the watch ended with an error: {event.object}")
            if event.type != "BOOKMARK":
                self.events.append({"type": event.type, **event.object["metadata"]})

    def added(self) -> dict[str, str]:
        return {e["name"]: e["resourceVersion"] for e in self.events if e["type"] == "ADDED"}


@contextlib.asynccontextmanager
async def client(kubeconfig: Path, *endpoints: str) -> AsyncIterator[Client]:
    async with Client(load_kubeconfig(kubeconfig).with_endpoints(endpoints), timeout=10) as opened:
        yield opened


def kill(run: UpRun, component: str) -> int:
    pid = run.pids()[component]
    os.kill(pid, signal.SIGKILL)
    return pid


async def test_an_etcd_member_and_an_api_server_die_during_writes_and_nothing_is_lost(ha: UpRun) -> None:
    """Writes go on, none acknowledged is lost, the watch sees each once, and propagation goes on."""
    state = ha.state()
    second_url = state["endpoints"]["apiserver-2"]
    hub_kubeconfig = ha.data_dir / "hub.kubeconfig"
    async with (
        client(hub_kubeconfig, second_url) as both,
        client(ha.data_dir / "hub-2" / "admin.kubeconfig") as second,
    ):
        with contextlib.suppress(APIStatusError):
            await both.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        _, start = await second.list(CONFIGMAP, namespace=NAMESPACE)
        watcher = Watcher(second)
        writer = Writer(both)
        async with asyncio.TaskGroup() as group:
            watching = group.create_task(watcher.run(start))
            writing = group.create_task(writer.run())
            await writer.wait_for(20)
            await eventually_async(lambda: watcher.events, what="the watch delivering before the kills")
            etcd_pid = kill(ha, "etcd-1")
            await writer.wait_for(50)
            apiserver_pid = kill(ha, "apiserver")
            await writer.wait_for(50)
            writer.stop.set()
            await writing
            print(
                f"\n{len(writer.acknowledged)} creates acknowledged, {len(writer.failures)} failed "
                f"(etcd-1 pid {etcd_pid} and apiserver pid {apiserver_pid} killed)"
            )
            for failure in writer.failures:
                print(f"  {failure}")
            await eventually_async(
                lambda: set(writer.acknowledged) <= set(watcher.added()),
                timeout=30,
                what="the watch on the second API server seeing every acknowledged create",
            )
            watching.cancel()

        assert len(writer.failures) <= MAX_FAILED_WRITES, writer.failures
        stored, _ = await both.list(CONFIGMAP, namespace=NAMESPACE)
        stored_versions = {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in stored}
        lost = {name for name in writer.acknowledged if name not in stored_versions}
        assert not lost, f"acknowledged creates missing from the store: {sorted(lost)}"
        assert {name: stored_versions[name] for name in writer.acknowledged} == writer.acknowledged

        versions = [int(event["resourceVersion"]) for event in watcher.events]
        assert versions == sorted(set(versions)), "resourceVersions repeat or go back on the watch"
        names = [event["name"] for event in watcher.events if event["type"] == "ADDED"]
        assert len(names) == len(set(names)), "a create was delivered twice"
        assert {name: watcher.added()[name] for name in writer.acknowledged} == writer.acknowledged

        for manifest in nginx_walkthrough(*MEMBERS):
            await both.create(manifest, namespace="default")
        for member in MEMBERS:
            async with client(ha.data_dir / "members" / f"{member}.kubeconfig") as on_member:
                deployment = await eventually_async(
                    lambda on_member=on_member: on_member.get_or_none(
                        DEPLOYMENT, "nginx", namespace="default"
                    ),
                    timeout=60,
                    what=f"nginx propagated to {member} after the kills",
                )
                assert deployment["spec"]["replicas"] == 1

    output = ha.stdout()
    assert "etcd-1 exited with signal SIGKILL" in output and "apiserver exited with signal SIGKILL" in output
    for component in ("etcd-1", "apiserver"):
        eventually(lambda c=component: f"{c} restarted" in ha.stdout(), what=f"up restarting {component}")


def test_a_killed_second_api_server_comes_back_with_the_hubs_keys(ha: UpRun, tmp_path: Path) -> None:
    """`up` restarts API server 2 on its port with the first's certificates: the same client works."""
    url = ha.state()["endpoints"]["apiserver-2"]
    kill(ha, "apiserver-2")
    eventually(lambda: "apiserver-2 restarted" in ha.stdout(), what="up restarting the second API server")
    assert ha.state()["endpoints"]["apiserver-2"] == url
    kubeconfig = tmp_path / "second.kubeconfig"
    kubeconfig.write_text((ha.data_dir / "hub.kubeconfig").read_text().replace(ha.state()["hubURL"], url))
    result = subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), "get", "configmaps", "-n", NAMESPACE, "-o", "name"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert "configmap/cm-00000" in result.stdout


def test_down_stops_every_process_etcd_members_included(ha: UpRun) -> None:
    """`flotilla down` stops up, both API servers, the manager, the sim and the three etcd members."""
    pids = ha.pids()
    assert {"etcd-1", "etcd-2", "etcd-3", "apiserver", "apiserver-2", "controller-manager", "sim"} <= set(
        pids
    )
    started = time.monotonic()
    result = down(ha.data_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ha.exit_code() == 0
    print(f"\nflotilla down took {time.monotonic() - started:.1f}s:\n{result.stdout}")
    eventually(
        lambda: not [name for name, pid in pids.items() if pid_alive(pid)], timeout=10, what="all gone"
    )
    assert processes_mentioning(ha.data_dir) == []
    assert json.loads((ha.data_dir / "up.json").read_text())["components"] == {}
