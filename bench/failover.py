"""Cluster failover end to end: a member dies under W resident Divided workloads, and they move.

Starts a hub, a `flotilla sim` with M clusters and a controller manager with failover as `flotilla
up` configures it (the default ClusterTaintPolicies: a member that is not Ready is tainted
NoExecute), joins the clusters and waits until W Deployments of M replicas, divided one replica
per cluster, are READY, plus K more that tolerate the taint forever (they must stay where they
are). Then one member is made unreachable (`flotilla sim fault
--unreachable`) and the run measures, from that moment:

- the member's Ready condition leaving True (the cluster controller's failure threshold),
- the NoExecute taint on its Cluster (the ClusterTaintPolicy controller),
- each binding's eviction (the member gone from `spec.clusters`, the taint manager),
- per workload, the time until its replicas are Ready on the other members (their own API servers
  say so: readyReplicas summed over the live members) — p50 / p99 / max after the taint, which is
  when the toleration expired (none is configured: evicted at once). Goal: within 15 s, every one
  (Karmada's default 0.5 evictions/s alone would take W/0.5 s).

The floor of the same run: the time the members themselves take to make the same number of new
replicas Ready when created directly (W Deployments of one replica spread over the live members).

Then the member recovers: workloads still scheduled to it (the tolerating ones) must keep their
objects (same UID: no wrongful deletion or re-creation), and the copies evicted from it go.

Run: `.venv/bin/python bench/failover.py [--workloads 300] [--clusters 10]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.localhub.failover import install_failover_policies
from flotilla.client import Client, load_kubeconfig
from propagation import PYTHON, Process, deployment, gather_limited, join, percentile, start_hub, start_sim

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
RESOURCE_BINDING = GroupVersionKind("work.karmada.io", "v1alpha2", "ResourceBinding")
CLUSTER = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
NAMESPACE = "bench"
FAILURE_TAINTS = ("cluster.karmada.io/unreachable", "cluster.karmada.io/not-ready")
"""A Push member that stops answering turns Ready=False (not-ready), a Pull one whose agent stops
renewing its Lease Ready=Unknown (unreachable): the default policies taint either NoExecute."""
GOAL_SECONDS = 15.0


def policy(name: str, clusters: list[str], label: str, tolerations: list[dict[str, Any]]) -> dict[str, Any]:
    """Divided over `clusters` with equal static weights: one replica per cluster for M replicas."""
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "resourceSelectors": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "labelSelector": {"matchLabels": {label: "true"}},
                }
            ],
            "placement": {
                "clusterAffinity": {"clusterNames": clusters},
                "clusterTolerations": tolerations,
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                },
            },
        },
    }


def is_ready(cluster: dict[str, Any]) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (cluster.get("status") or {}).get("conditions") or []
    )


def failure_tainted(cluster: dict[str, Any]) -> bool:
    """Whether the Cluster has one of the NoExecute taints the default ClusterTaintPolicies add."""
    return any(
        t.get("key") in FAILURE_TAINTS and t.get("effect") == "NoExecute"
        for t in (cluster.get("spec") or {}).get("taints") or []
    )


class Timeline:
    """When each thing was first seen, in monotonic seconds."""

    def __init__(self) -> None:
        self.not_ready: float | None = None
        self.tainted: float | None = None
        self.evicted: dict[str, float] = {}
        self.ready_elsewhere: dict[str, float] = {}


async def watch_cluster(hub: Client, name: str, timeline: Timeline) -> None:
    while timeline.tainted is None:
        with contextlib.suppress(Exception):
            async for event in hub.watch(CLUSTER, field_selector=f"metadata.name={name}", timeout_seconds=60):
                if timeline.not_ready is None and not is_ready(event.object):
                    timeline.not_ready = time.monotonic()
                if timeline.tainted is None and failure_tainted(event.object):
                    timeline.tainted = time.monotonic()
                    return


async def watch_evictions(hub: Client, victim: str, names: set[str], timeline: Timeline) -> None:
    _, revision = await hub.list(RESOURCE_BINDING, namespace=NAMESPACE)
    while len(timeline.evicted) < len(names):
        with contextlib.suppress(Exception):
            async for event in hub.watch(
                RESOURCE_BINDING, namespace=NAMESPACE, resource_version=revision, timeout_seconds=600
            ):
                revision = event.object.get("metadata", {}).get("resourceVersion", revision)
                name = str(event.object.get("metadata", {}).get("name", "")).removesuffix("-deployment")
                clusters = {t.get("name") for t in (event.object.get("spec") or {}).get("clusters") or []}
                if name in names and victim not in clusters and name not in timeline.evicted:
                    timeline.evicted[name] = time.monotonic()
                if len(timeline.evicted) >= len(names):
                    return


async def watch_member(
    cluster: str, client: Client, ready: dict[tuple[str, str], int], changed: asyncio.Event
) -> None:
    items, revision = await client.list(DEPLOYMENT, namespace=NAMESPACE)
    for item in items:
        ready[(cluster, item["metadata"]["name"])] = (item.get("status") or {}).get("readyReplicas", 0)
    changed.set()
    while True:
        with contextlib.suppress(Exception):
            async for event in client.watch(
                DEPLOYMENT, namespace=NAMESPACE, resource_version=revision, timeout_seconds=600
            ):
                metadata = event.object.get("metadata") or {}
                revision = metadata.get("resourceVersion", revision)
                key = (cluster, metadata.get("name", ""))
                if event.type == "DELETED":
                    ready.pop(key, None)
                else:
                    ready[key] = (event.object.get("status") or {}).get("readyReplicas", 0)
                changed.set()


async def until_ready_elsewhere(
    live: dict[str, Client], names: list[str], replicas: int, timeline: Timeline, timeout: float
) -> None:
    """Record, per workload, when its replicas summed over the live members reach `replicas`."""
    ready: dict[tuple[str, str], int] = {}
    changed = asyncio.Event()
    watchers = [asyncio.create_task(watch_member(c, client, ready, changed)) for c, client in live.items()]
    try:
        async with asyncio.timeout(timeout):
            while len(timeline.ready_elsewhere) < len(names):
                await changed.wait()
                changed.clear()
                now = time.monotonic()
                for name in names:
                    if (
                        name not in timeline.ready_elsewhere
                        and sum(ready.get((c, name), 0) for c in live) >= replicas
                    ):
                        timeline.ready_elsewhere[name] = now
    finally:
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)


async def wait_hub_ready(hub: Client, count: int, replicas: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        items, _ = await hub.list(DEPLOYMENT, namespace=NAMESPACE)
        if sum(1 for i in items if (i.get("status") or {}).get("readyReplicas", 0) >= replicas) >= count:
            return
        await asyncio.sleep(1.0)
    raise TimeoutError(f"{count} Deployments did not become READY on the hub within {timeout:.0f}s")


async def floor(live: dict[str, Client], count: int, timeout: float) -> float:
    """Seconds for the live members to make `count` new one-replica Deployments Ready, created directly."""
    namespace = "floor"
    for client in live.values():
        await client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    clusters = list(live)
    started = time.monotonic()
    await gather_limited(
        [
            live[clusters[i % len(clusters)]].create(deployment(f"f{i:05d}", 1, namespace))
            for i in range(count)
        ]
    )
    deadline = started + timeout
    while time.monotonic() < deadline:
        total = 0
        for client in live.values():
            items, _ = await client.list(DEPLOYMENT, namespace=namespace)
            total += sum(1 for i in items if (i.get("status") or {}).get("readyReplicas", 0) >= 1)
        if total >= count:
            return time.monotonic() - started
        await asyncio.sleep(0.2)
    raise TimeoutError("the floor's Deployments did not become ready")


def sim_fault(root: Path, cluster: str, action: str) -> None:
    subprocess.run(
        [PYTHON, "-m", "flotilla", "sim", "fault", cluster, "--data-dir", str(root / "sim"), action],
        check=True,
        capture_output=True,
        timeout=60,
    )


async def run(args: argparse.Namespace, root: Path) -> None:
    if args.keep:
        print(f"data and logs in {root}", flush=True)
    hub_dir = root / "hub"
    hub = start_hub(root)
    clusters = [f"m{i:02d}" for i in range(args.clusters)]
    victim = clusters[len(clusters) // 2]
    config = {
        "clusters": [
            {"name": c, "nodes": args.nodes, "nodePods": 500, "nodeCPU": "64", "nodeMemory": "256Gi"}
            for c in clusters
        ]
    }
    sim = start_sim(root, config)
    manager = None
    hub_client = Client(load_kubeconfig(hub_dir / "admin.kubeconfig"), field_manager="bench", timeout=120)
    members = {
        c: Client(load_kubeconfig(root / "sim" / f"{c}.kubeconfig"), field_manager="bench", timeout=30)
        for c in clusters
    }
    try:
        join(root, clusters)
        await install_failover_policies(hub_dir / "admin.kubeconfig")
        manager = Process(
            "controller-manager",
            [
                "controller-manager",
                "--kubeconfig",
                str(hub_dir / "admin.kubeconfig"),
                "--health-address",
                "127.0.0.1:0",
                "--leader-elect=false",
                "--cluster-status-interval",
                str(args.probe_interval),
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                str(args.failure_threshold),
                "--log-level",
                "warning",
            ],
            root,
            "flotilla controller-manager: running",
        )
        while True:
            items, _ = await hub_client.list(CLUSTER)
            if sum(1 for c in items if is_ready(c)) == len(clusters):
                break
            await asyncio.sleep(0.5)
        print(f"{len(clusters)} clusters Ready; creating the workloads", flush=True)
        await hub_client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        tolerate = [{"key": key, "operator": "Exists", "effect": "NoExecute"} for key in FAILURE_TAINTS]
        await hub_client.create(policy("moves", clusters, "moves", []))
        await hub_client.create(policy("stays", clusters, "stays", tolerate))
        replicas = len(clusters)
        moving = [f"w{i:04d}" for i in range(args.workloads)]
        staying = [f"s{i:04d}" for i in range(args.tolerating)]
        await gather_limited(
            [hub_client.create(deployment(n, replicas, NAMESPACE, {"moves": "true"})) for n in moving]
            + [hub_client.create(deployment(n, replicas, NAMESPACE, {"stays": "true"})) for n in staying]
        )
        await wait_hub_ready(hub_client, len(moving) + len(staying), replicas, args.timeout)
        print(
            f"{args.workloads} Divided workloads x {replicas} replicas on {args.clusters} clusters READY "
            f"(+{args.tolerating} tolerating the taint); {victim} goes unreachable",
            flush=True,
        )
        before = {
            n: (await members[victim].get(DEPLOYMENT, n, namespace=NAMESPACE))["metadata"]["uid"]
            for n in staying
        }
        live = {c: client for c, client in members.items() if c != victim}
        timeline = Timeline()
        watchers = [
            asyncio.create_task(watch_cluster(hub_client, victim, timeline)),
            asyncio.create_task(watch_evictions(hub_client, victim, set(moving), timeline)),
        ]
        await asyncio.sleep(1.0)  # the watches are open before the fault
        cpu_before = {p.name: p.cpu() for p in (hub, sim, manager)}
        faulted = time.monotonic()
        sim_fault(root, victim, "--unreachable")
        await until_ready_elsewhere(live, moving, replicas, timeline, args.timeout)
        cpu = {p.name: p.cpu() - cpu_before[p.name] for p in (hub, sim, manager)}
        moved = time.monotonic() - faulted
        await asyncio.wait_for(asyncio.gather(*watchers), args.timeout)
        assert timeline.not_ready is not None
        assert timeline.tainted is not None
        since_taint = [timeline.ready_elsewhere[n] - timeline.tainted for n in moving]
        evictions = sorted(timeline.evicted.values())
        threshold = f"failure threshold {args.failure_threshold:g} s"
        print(f"to NotReady ({threshold})   {timeline.not_ready - faulted:7.1f} s")
        print(f"to NoExecute taint                          {timeline.tainted - faulted:7.1f} s")
        print(
            f"to eviction of all {len(evictions)} bindings            {evictions[-1] - faulted:7.1f} s "
            f"(first {evictions[0] - faulted:.1f} s; "
            f"{len(evictions) / max(evictions[-1] - evictions[0], 1e-3):.0f}/s)"
        )
        p50, p99, worst = percentile(since_taint, 0.5), percentile(since_taint, 0.99), max(since_taint)
        verdict = "met" if worst <= GOAL_SECONDS else "MISSED"
        print(
            f"Ready elsewhere after the taint (toleration expiry): p50 {p50:.1f} s, p99 {p99:.1f} s, "
            f"max {worst:.1f} s (goal every one <= {GOAL_SECONDS:g} s: {verdict})",
            flush=True,
        )
        print(
            f"CPU seconds from the fault until all were Ready elsewhere ({moved:.1f} s): "
            + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()),
            flush=True,
        )
        lost = [n for n in moving if n not in timeline.ready_elsewhere]
        print(f"workloads lost                              {len(lost):7d}")
        floor_seconds = await floor(live, len(moving), args.timeout)
        print(
            f"floor: {len(moving)} new replicas made Ready directly on live members {floor_seconds:.1f} s "
            f"(ratio floor / slowest failover {floor_seconds / worst:.2f})",
            flush=True,
        )

        recovered = time.monotonic()
        sim_fault(root, victim, "--recover")
        while True:
            cluster = await hub_client.get(CLUSTER, victim)
            if is_ready(cluster) and not failure_tainted(cluster):
                break
            await asyncio.sleep(0.5)
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            items, _ = await members[victim].list(DEPLOYMENT, namespace=NAMESPACE)
            if not [i for i in items if i["metadata"]["name"] in set(moving)]:
                break
            await asyncio.sleep(0.5)
        items, _ = await members[victim].list(DEPLOYMENT, namespace=NAMESPACE)
        after = {i["metadata"]["name"]: i["metadata"]["uid"] for i in items}
        wrongful = [n for n in staying if after.get(n) != before[n]]
        leftover = [n for n in moving if n in after]
        print(
            f"after recovery ({time.monotonic() - recovered:.1f} s): wrongful deletions or re-creations "
            f"{len(wrongful)} of {len(staying)} still scheduled there (goal 0); "
            f"evicted copies left {len(leftover)}"
        )
    finally:
        await hub_client.close()
        for client in members.values():
            await client.close()
        for process in (manager, sim, hub):
            if process is not None:
                process.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workloads", type=int, default=300)
    parser.add_argument("--tolerating", type=int, default=20)
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--probe-interval", type=float, default=1.0)
    parser.add_argument("--failure-threshold", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--keep", action="store_true", help="Keep the data and logs (path printed first).")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.keep:
        asyncio.run(run(args, Path(tempfile.mkdtemp(prefix="flotilla-failover-"))))
        return
    with tempfile.TemporaryDirectory(prefix="flotilla-failover-") as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
