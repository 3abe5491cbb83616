"""Scheduler throughput end to end: W ResourceBindings x M Clusters on a real hub (issue #5's figure).

Starts a `flotilla apiserver`, creates M Clusters (API enablements and resource summaries in their
status) and W ResourceBindings with the placement mix of `bench/scheduler.py` (duplicated, static
and dynamic weights, aggregated, spread constraints, ordered affinities), all before any scheduler
runs. Then starts `flotilla controller-manager --controllers scheduler` as its own process and
watches the bindings until each has its `Scheduled` condition, as Karmada's scheduler would report.

Prints bindings/s from the first to the last condition (the scheduler's steady rate, target >= 500;
Karmada reports about 22), the same from the manager's start (start-up and informer sync included),
and how the bindings ended (Success / NoClusterFit / Unschedulable…). Three processes share the
machine: the hub, the manager, and this watcher.
Run: `.venv/bin/python bench/scheduler_e2e.py [--bindings 1000] [--clusters 10]`.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from apiserver import PYTHON, start_apiserver, stop
from flotilla.api.karmada import constants
from flotilla.client import Client, load_kubeconfig
from scheduler import cluster_object, placement

CONCURRENCY = 32


def hub_cluster(index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A Cluster to create, and the status to give it (the cluster controller's job on a real hub)."""
    wire = cluster_object(index)
    spec = {**wire["spec"], "apiEndpoint": "https://127.0.0.1:1"}
    body = {"apiVersion": constants.CLUSTER.api_version, "kind": "Cluster", "metadata": wire["metadata"]}
    return {**body, "spec": spec}, {**body, "status": wire["status"]}


def hub_binding(index: int, clusters: int) -> dict[str, Any]:
    name = f"app-{index}"
    return {
        "apiVersion": constants.RESOURCE_BINDING.api_version,
        "kind": "ResourceBinding",
        "metadata": {
            "name": f"{name}-deployment",
            "namespace": "default",
            "labels": {constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL: f"bench-{index % 7}"},
        },
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": name},
            "replicas": 1 + index % 12,
            "replicaRequirements": {"resourceRequest": {"cpu": "250m", "memory": "256Mi"}},
            "placement": placement(index, clusters),
        },
    }


async def gather_limited(coroutines: list[Any]) -> None:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(coroutine: Any) -> None:
        async with gate:
            await coroutine

    await asyncio.gather(*(one(c) for c in coroutines))


def scheduled_reason(binding: dict[str, Any]) -> str | None:
    for condition in (binding.get("status") or {}).get("conditions") or []:
        if condition.get("type") == constants.CONDITION_SCHEDULED:
            return str(condition.get("reason"))
    return None


async def watch_until_scheduled(
    hub: Client, expected: int, since: str, seen: dict[str, tuple[float, str]], timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    revision = since
    while len(seen) < expected and time.monotonic() < deadline:
        async for event in hub.watch(
            constants.RESOURCE_BINDING, namespace="default", resource_version=revision
        ):
            revision = str((event.object.get("metadata") or {}).get("resourceVersion") or revision)
            reason = scheduled_reason(event.object)
            name = str((event.object.get("metadata") or {}).get("name"))
            if reason is not None and name not in seen:
                seen[name] = (time.monotonic(), reason)
            if len(seen) >= expected or time.monotonic() >= deadline:
                return


async def prepare(options: argparse.Namespace, kubeconfig: Path) -> str:
    """Create the Clusters (with status) and the bindings; the revision to watch the bindings from."""
    async with Client(load_kubeconfig(kubeconfig, None), field_manager="bench") as hub:
        clusters = [hub_cluster(i) for i in range(options.clusters)]
        await gather_limited([hub.create(spec) for spec, _ in clusters])
        await gather_limited([hub.apply(status, subresource="status") for _, status in clusters])
        started = time.monotonic()
        await gather_limited([hub.create(hub_binding(i, options.clusters)) for i in range(options.bindings)])
        print(f"created {options.bindings} bindings in {time.monotonic() - started:.2f}s")
        # One page is enough for the revision (`Client.list` would follow every continue token).
        info = await hub.resource(constants.RESOURCE_BINDING)
        page = await hub.request("GET", info.path("default"), query={"limit": 1})
        return str(page["metadata"]["resourceVersion"])


async def observe(
    options: argparse.Namespace, kubeconfig: Path, revision: str, manager: subprocess.Popen[bytes]
) -> dict[str, tuple[float, str]]:
    """When each binding got its Scheduled condition (stops early if the manager dies)."""
    seen: dict[str, tuple[float, str]] = {}
    async with Client(load_kubeconfig(kubeconfig, None)) as hub:
        watcher = asyncio.create_task(
            watch_until_scheduled(hub, options.bindings, revision, seen, options.timeout)
        )
        while not watcher.done():
            if manager.poll() is not None:
                watcher.cancel()
                break
            await asyncio.sleep(0.1)
    return seen


def run(options: argparse.Namespace, workdir: Path) -> None:
    server, _ = start_apiserver(workdir / "hub")
    kubeconfig = workdir / "hub" / "admin.kubeconfig"
    manager: subprocess.Popen[bytes] | None = None
    try:
        revision = asyncio.run(prepare(options, kubeconfig))
        hub_cpu = cpu_seconds(server)
        launched = time.monotonic()
        manager = subprocess.Popen(
            [
                PYTHON,
                "-m",
                "flotilla",
                "controller-manager",
                "--kubeconfig",
                str(kubeconfig),
                "--controllers",
                "scheduler",
                "--health-address",
                "127.0.0.1:0",
                "--log-level",
                "warning",
            ],
            stdout=(workdir / "manager.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        seen = asyncio.run(observe(options, kubeconfig, revision, manager))
        if manager.poll() is not None:
            log_text = (workdir / "manager.log").read_text(errors="replace")
            raise SystemExit(f"the controller manager exited:\n{log_text[-2000:]}")
        report(options, seen, launched)
        hub_cpu = cpu_seconds(server) - hub_cpu
        manager_cpu = cpu_seconds(manager)
        print(f"{'CPU seconds while scheduling, hub / manager':<44} {hub_cpu:>5.1f} / {manager_cpu:.1f}")
    finally:
        if manager is not None:
            stop(manager)
        stop(server)


def cpu_seconds(process: subprocess.Popen[bytes]) -> float:
    """User + system CPU time of a child process so far, from /proc."""
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(options: argparse.Namespace, seen: dict[str, tuple[float, str]], launched: float) -> None:
    if not seen:
        print("no binding was scheduled", file=sys.stderr)
        raise SystemExit(1)
    times = sorted(moment for moment, _ in seen.values())
    steady = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else float("nan")
    overall = len(times) / (times[-1] - launched)
    reasons = collections.Counter(reason for _, reason in seen.values())
    print(
        f"{options.bindings} bindings x {options.clusters} clusters, {len(seen)} with a Scheduled condition"
    )
    print(f"{'figure':<44} {'value':>10}")
    print(f"{'bindings/s, first to last condition':<44} {steady:>10,.0f}   (target >= 500)")
    print(f"{'bindings/s, from manager launch':<44} {overall:>10,.0f}")
    print(f"{'seconds, first to last condition':<44} {times[-1] - times[0]:>10.2f}")
    print(f"{'seconds, manager launch to first condition':<44} {times[0] - launched:>10.2f}")
    print("outcomes: " + ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items())))
    if len(seen) < options.bindings:
        print(f"timed out: {options.bindings - len(seen)} bindings without a condition", file=sys.stderr)
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for every condition")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flotilla-bench-") as tmp:
        run(options, Path(tmp))


if __name__ == "__main__":
    main()
