"""Propagation end to end: W workloads onto M simulated clusters, against a floor in the same run.

Starts a hub, a `flotilla sim` with M clusters and a controller manager, joins the clusters, then:

1. Floor: the same member objects (W Deployments of 1 replica in each cluster) created directly by
   one async client per cluster, timed until every one is ready. They are then deleted.
2. Flotilla: W Deployments of M replicas on the hub and one PropagationPolicy dividing them evenly over
   all clusters (one replica per cluster), timed from the first apply until every member Deployment
   exists and every template reports READY M/M through status aggregation. Ratio = floor / flotilla
   (issue #18's P1: >= 0.85).
3. Latency with W workloads resident: new workloads applied one at a time; each is timed until its
   Deployment exists in every member (Karmada's "resource distribution latency"). p50 / p99
   (issue #18's P2: p99 <= 0.3 s; Karmada reports 1.3 s at its scale), twice: back to back (each sample
   while the members still roll the previous one out) and settled (each once the previous one's
   template is READY).
4. Scheduler throughput observed during step 2 (bindings/s from the first to the last Scheduled
   condition seen; target >= 500; Karmada reports about 22).

Run: `.venv/bin/python bench/propagation.py [--workloads 1000] [--clusters 10]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, load_kubeconfig

PYTHON = sys.executable
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
RESOURCE_BINDING = GroupVersionKind("work.karmada.io", "v1alpha2", "ResourceBinding")
CLUSTER = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
NAMESPACE = "bench"
CONCURRENCY = 32


class Process:
    def __init__(self, name: str, args: list[str], log_dir: Path, ready: str) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [PYTHON, "-m", "flotilla", *args], stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 300
        while ready not in self.log_path.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{self.log_path.read_text()[-3000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._log.close()

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def deployment(
    name: str, replicas: int, namespace: str, labels: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name, **(labels or {})}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx",
                            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
                        }
                    ]
                },
            },
        },
    }


async def gather_limited(coroutines: list[Any], limit: int = CONCURRENCY) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(coroutine: Any) -> Any:
        async with gate:
            return await coroutine

    return await asyncio.gather(*(one(c) for c in coroutines))


async def wait_ready(client: Client, namespace: str, count: int, replicas: int, timeout: float) -> float:
    """Watch until `count` Deployments in `namespace` have `replicas` ready; returns when that happened.

    A watch, not polling: re-listing thousands of Deployments every second would cost the server
    being measured (the sim for the floor, the hub for Flotilla) as much as a part of the work.
    """
    ready: set[str] = set()
    items, revision = await client.list(DEPLOYMENT, namespace=namespace)
    for item in items:
        if (item.get("status") or {}).get("readyReplicas", 0) >= replicas:
            ready.add(item["metadata"]["name"])
    async with asyncio.timeout(timeout):
        while len(ready) < count:
            async for event in client.watch(
                DEPLOYMENT, namespace=namespace, resource_version=revision, timeout_seconds=600
            ):
                metadata = event.object.get("metadata") or {}
                revision = metadata.get("resourceVersion", revision)
                name = metadata.get("name", "")
                if (
                    event.type != "DELETED"
                    and (event.object.get("status") or {}).get("readyReplicas", 0) >= replicas
                ):
                    ready.add(name)
                else:
                    ready.discard(name)
                if len(ready) >= count:
                    break
    return time.monotonic()


async def wait_members_ready(members: dict[str, Client], namespace: str, count: int, timeout: float) -> float:
    """Until every member has `count` ready Deployments in `namespace`; returns when that happened."""
    finished = await asyncio.gather(*(wait_ready(c, namespace, count, 1, timeout) for c in members.values()))
    return max(finished)


async def floor(members: dict[str, Client], workloads: int, timeout: float) -> float:
    namespace = "floor"
    for client in members.values():
        await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    started = time.monotonic()
    await gather_limited(
        [
            client.create(deployment(f"w{i:05d}", 1, namespace))
            for client in members.values()
            for i in range(workloads)
        ]
    )
    finished = await wait_members_ready(members, namespace, workloads, timeout)
    namespace_kind = GroupVersionKind("", "v1", "Namespace")
    for client in members.values():
        await client.delete(namespace_kind, namespace)
    # The members clean the floor's objects up before Flotilla's run, which must not pay for it.
    deadline = time.monotonic() + timeout
    for client in members.values():
        while await client.get_or_none(namespace_kind, namespace) is not None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the floor's namespace was not deleted within {timeout}s")
            await asyncio.sleep(1.0)
    return finished - started


async def flotilla(
    hub: Client, members: dict[str, Client], workloads: int, timeout: float
) -> tuple[float, float]:
    """Seconds until every member object exists and every template is READY; scheduler bindings/s."""
    size = len(members)
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "bench", "namespace": NAMESPACE},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "labelSelector": {"matchLabels": {"bench": "true"}},
                }
            ],
            "placement": {
                "clusterAffinity": {"clusterNames": sorted(members)},
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                },
            },
        },
    }
    scheduled: dict[str, float] = {}
    watcher = asyncio.create_task(watch_scheduled(hub, scheduled))
    started = time.monotonic()
    await hub.create(policy)
    await gather_limited(
        [hub.create(deployment(f"w{i:05d}", size, NAMESPACE, {"bench": "true"})) for i in range(workloads)]
    )
    finished = await wait_ready(hub, NAMESPACE, workloads, size, timeout)
    await wait_members_ready(members, NAMESPACE, workloads, timeout)
    watcher.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await watcher
    times = sorted(scheduled.values())
    rate = (
        (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else float("nan")
    )
    return finished - started, rate


async def watch_scheduled(hub: Client, scheduled: dict[str, float]) -> None:
    while True:
        with contextlib.suppress(Exception):
            async for event in hub.watch(RESOURCE_BINDING, namespace=NAMESPACE, timeout_seconds=600):
                obj = event.object
                name = (obj.get("metadata") or {}).get("name", "")
                for condition in (obj.get("status") or {}).get("conditions") or []:
                    if condition.get("type") == "Scheduled" and condition.get("status") == "True":
                        scheduled.setdefault(name, time.monotonic())


async def latency(
    hub: Client, members: dict[str, Client], count: int, *, settle: bool = False, prefix: str = "late"
) -> list[float]:
    """Seconds from a new workload's apply until its Deployment exists in every member.

    Back to back (the default), each sample starts while the members still roll the previous one
    out; with `settle`, each starts once the previous one's template reports every replica ready,
    so a sample meets only the resident workloads.
    """
    arrivals: dict[tuple[str, str], float] = {}
    watchers = [
        asyncio.create_task(watch_arrivals(name, client, arrivals)) for name, client in members.items()
    ]
    await asyncio.sleep(1.0)
    found = []
    for i in range(count):
        name = f"{prefix}{i:04d}"
        applied = time.monotonic()
        await hub.create(deployment(name, len(members), NAMESPACE, {"bench": "true"}))
        deadline = applied + 60
        while time.monotonic() < deadline and not all((c, name) in arrivals for c in members):  # noqa: ASYNC110
            await asyncio.sleep(
                0.005
            )  # polling the watchers' record keeps the timing simple and fine-grained
        found.append(max(arrivals.get((c, name), float("inf")) for c in members) - applied)
        if settle:
            await wait_template_ready(hub, name, len(members), deadline)
    for task in watchers:
        task.cancel()
    return found


async def wait_template_ready(hub: Client, name: str, replicas: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        template = await hub.get_or_none(DEPLOYMENT, name, namespace=NAMESPACE)
        if template is not None and (template.get("status") or {}).get("readyReplicas", 0) >= replicas:
            return
        await asyncio.sleep(0.05)


async def watch_arrivals(cluster: str, client: Client, arrivals: dict[tuple[str, str], float]) -> None:
    _, revision = await client.list(DEPLOYMENT, namespace=NAMESPACE)
    while True:
        with contextlib.suppress(Exception):
            async for event in client.watch(
                DEPLOYMENT, namespace=NAMESPACE, resource_version=revision, timeout_seconds=600
            ):
                name = (event.object.get("metadata") or {}).get("name", "")
                revision = (event.object.get("metadata") or {}).get("resourceVersion", revision)
                if event.type == "ADDED":
                    arrivals.setdefault((cluster, name), time.monotonic())


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def start_hub(root: Path) -> Process:
    """A hub API server under `root/hub`, without in-flight limits (the bench is its only client)."""
    return Process(
        "hub",
        [
            "apiserver",
            "--data-dir",
            str(root / "hub"),
            "--secure-port",
            "0",
            "--log-level",
            "warning",
            "--max-requests-inflight",
            "0",
            "--max-mutating-requests-inflight",
            "0",
        ],
        root,
        "serving on",
    )


def start_sim(root: Path, config: dict[str, Any], name: str = "sim") -> Process:
    """`flotilla sim` serving the clusters of `config` (its `--config` file), under `root/<name>`."""
    (root / f"{name}.yaml").write_text(yaml.safe_dump(config))
    return Process(
        name,
        [
            "sim",
            "--data-dir",
            str(root / name),
            "--config",
            str(root / f"{name}.yaml"),
            "--pod-start-seconds",
            "0.2",
            "--log-level",
            "warning",
        ],
        root,
        "flotilla sim: serving",
    )


def join(root: Path, clusters: list[str], sims: dict[str, str] | None = None, parallel: int = 1) -> None:
    """`flotilla join` each simulated cluster to the hub (setup, before anything is timed).

    `sims` names the sim directory under `root` that serves each cluster (default: `sim`);
    `parallel` joins run at once.
    """

    def one(name: str) -> None:
        sim = (sims or {}).get(name, "sim")
        subprocess.run(
            [
                PYTHON,
                "-m",
                "flotilla",
                "join",
                name,
                "--kubeconfig",
                str(root / "hub" / "admin.kubeconfig"),
                "--cluster-kubeconfig",
                str(root / sim / f"{name}.kubeconfig"),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(one, clusters))


async def run(args: argparse.Namespace, root: Path) -> None:
    hub_dir = root / "hub"
    hub = start_hub(root)
    clusters = [f"m{i:02d}" for i in range(args.clusters)]
    config = {
        "clusters": [
            {
                "name": c,
                "nodes": args.nodes,
                "nodePods": args.node_pods,
                "nodeCPU": "64",
                "nodeMemory": "256Gi",
            }
            for c in clusters
        ]
    }
    sim = start_sim(root, config)
    manager = None
    try:
        join(root, clusters)
        manager = Process(
            "controller-manager",
            [
                "controller-manager",
                "--kubeconfig",
                str(hub_dir / "admin.kubeconfig"),
                "--health-address",
                "127.0.0.1:0",
                "--cluster-status-interval",
                "5",
                "--cluster-success-threshold",
                "0",
                "--log-level",
                "warning",
            ],
            root,
            "flotilla controller-manager: running",
        )
        hub_client = Client(load_kubeconfig(hub_dir / "admin.kubeconfig"), field_manager="bench", timeout=120)
        members = {
            c: Client(load_kubeconfig(root / "sim" / f"{c}.kubeconfig"), field_manager="bench", timeout=120)
            for c in clusters
        }
        try:
            while True:
                items, _ = await hub_client.list(CLUSTER)
                ready = [
                    c
                    for c in items
                    if any(
                        x.get("type") == "Ready" and x.get("status") == "True"
                        for x in (c.get("status") or {}).get("conditions") or []
                    )
                ]
                if len(ready) == len(clusters):
                    break
                await asyncio.sleep(0.5)
            await hub_client.create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            )
            print(
                f"{args.workloads} workloads x {args.clusters} clusters ({args.nodes} nodes each)", flush=True
            )
            floor_seconds = await floor(members, args.workloads, args.timeout)
            print(f"floor: direct creation until ready          {floor_seconds:8.1f} s", flush=True)
            cpu_before = {p.name: p.cpu() for p in (hub, sim, manager)}
            ours, rate = await flotilla(hub_client, members, args.workloads, args.timeout)
            cpu = {p.name: p.cpu() - cpu_before[p.name] for p in (hub, sim, manager)}
            print(f"flotilla: apply until members and READY    {ours:8.1f} s", flush=True)
            ratio = floor_seconds / ours
            verdict = "met" if ratio >= 0.85 else "MISSED"
            print(f"ratio floor / flotilla                       {ratio:8.2f}   (P1 goal >= 0.85: {verdict})")
            print(
                f"scheduler throughput during propagation     {rate:8.0f} bindings/s (the rate bindings"
                " arrive here; capacity, target >= 500: bench/scheduler_e2e.py)"
            )
            print("CPU seconds during propagation: " + ", ".join(f"{k} {v:.0f}" for k, v in cpu.items()))
            for label, settle, prefix in (("back to back", False, "late"), ("settled", True, "calm")):
                latencies = await latency(
                    hub_client, members, args.latency_samples, settle=settle, prefix=prefix
                )
                p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
                verdict = "met" if p99 <= 0.3 else "MISSED"
                print(
                    f"per-workload latency with {args.workloads} resident, {label}: p50 {p50:.3f} s, "
                    f"p99 {p99:.3f} s (P2 target p99 <= 0.3 s: {verdict})",
                    flush=True,
                )
        finally:
            await hub_client.close()
            for client in members.values():
                await client.close()
    finally:
        for process in (manager, sim, hub):
            if process is not None:
                process.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workloads", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=10)
    parser.add_argument("--node-pods", type=int, default=300)
    parser.add_argument("--latency-samples", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args()
    # SIGTERM (e.g. `kill` of the bench) unwinds like Ctrl-C, so the child processes are stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="flotilla-propagation-") as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
