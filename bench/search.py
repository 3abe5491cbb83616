"""Search cache at size: 100,000 pods over 20 simulated members, cached by one ResourceRegistry (issue #19).

Starts a hub API server and `--sim-processes` `flotilla sim` processes sharing the members, joins
every member (no controller manager: the cache needs none), and fills each member with pods from
Deployments of its own: `--pods / --clusters` pods per member in Deployments `web-<k>` of `--match /
--clusters` replicas, the same names in every member, so `app=web-<k>` selects `--match` pods across
all clusters. Once every pod is Running:

1. Time to first full sync: a ResourceRegistry selecting v1 Pods of every cluster is created; timed
   until its `Synced` condition is True, then a paged list of every cached pod is counted.
2. Cache memory: the hub's RSS just before the registry and once synced (settled `--settle` seconds,
   before anything reads the cache), over the pods cached: bytes per cached pod (goal <= 2 KB;
   Karmada's report works out to about 70 KB). The RSS after this bench has listed every cached pod
   is printed too: serving big lists leaves buffers behind that have nothing to do with the cache.
   Where it goes: a sample of the pods (`--sample`, read back through the search API) stored into a
   cache in this process, measured with tracemalloc, split into compressed JSON, entries, keys,
   labels and field values, and the label index. `--probe-proxy` first reads every pod through the
   cluster proxy, so the baseline already holds what the proxy keeps after big answers.
3. List latency: `--queries` lists of `app=web-<k>` (`--match` pods across every cluster, a
   different k each time) through the search API over HTTPS, timed to the last byte, p50 and p99
   (goal: p99 <= 200 ms).

Run: `.venv/bin/python bench/search.py [--pods 100000] [--clusters 20] [--sim-processes 4]`;
`--pods 5000 --clusters 5 --match 250` for a quick check (`tests/integration/test_bench_search.py`
runs a tiny one). Keep `--match / --clusters` (the replicas of each Deployment) small: the simulated
ReplicaSet controller's work per pod grows with its ReplicaSet's size.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.search.kinds import CachedKind
from flotilla.apiserver.search.store import SearchCache
from flotilla.client import Client, load_kubeconfig
from propagation import Process, deployment, gather_limited, join, percentile, start_hub, start_sim
from scale import rss

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
RESOURCE_REGISTRY = GroupVersionKind("search.karmada.io", "v1alpha1", "ResourceRegistry")
SEARCH = "/apis/search.karmada.io/v1alpha1/search/cache"
PROXY = "/apis/cluster.karmada.io/v1alpha1/clusters/{}/proxy"
NAMESPACE = "default"
KIB = 1024
MIB = 1024 * 1024
GOAL_BYTES_PER_POD = 2 * KIB
KARMADA_BYTES_PER_POD = 70 * KIB
GOAL_P99 = 0.200
PODS_PER_NODE = 200
"""A simulated node hands out pod IPs from a /24: well under 254 pods each, or pods wait for an address."""
PODS = CachedKind(
    "",
    "v1",
    "Pod",
    "pods",
    True,
    (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.podIPs",
        "status.nominatedNodeName",
    ),
)


def verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


def cluster_names(count: int) -> list[str]:
    return [f"s{i:02d}" for i in range(count)]


def sim_configs(clusters: list[str], processes: int, nodes: int) -> dict[str, dict[str, Any]]:
    """The `flotilla sim --config` of each sim process (its clusters round-robin)."""
    configs: dict[str, dict[str, Any]] = {f"sim{k}": {"clusters": []} for k in range(processes)}
    for index, name in enumerate(clusters):
        entry = {"name": name, "nodes": nodes, "nodePods": 250, "nodeCPU": "64", "nodeMemory": "256Gi"}
        configs[f"sim{index % processes}"]["clusters"].append(entry)
    return configs


async def fill_members(members: dict[str, Client], deployments: int, replicas: int) -> None:
    objects = [
        (client, deployment(f"web-{k}", replicas, NAMESPACE))
        for client in members.values()
        for k in range(deployments)
    ]
    await gather_limited([client.create(obj) for client, obj in objects], 32)


async def running_pods(members: dict[str, Client]) -> int:
    async def one(client: Client) -> int:
        found, _ = await client.list(DEPLOYMENT, namespace=NAMESPACE)
        return sum(int((item.get("status") or {}).get("readyReplicas") or 0) for item in found)

    return sum(await asyncio.gather(*(one(client) for client in members.values())))


async def wait_running(members: dict[str, Client], total: int, timeout: float) -> float:
    started = time.monotonic()
    last = -1
    while True:
        ready = await running_pods(members)
        if ready >= total:
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{ready} of {total} pods Running after {timeout:.0f} s")
        if ready != last:
            print(f"  pods Running: {ready} / {total}", flush=True)
            last = ready
        await asyncio.sleep(3)


async def wait_synced(hub: Client, name: str, timeout: float) -> float:
    started = time.monotonic()
    while True:
        registry = await hub.get(RESOURCE_REGISTRY, name)
        conditions = (registry.get("status") or {}).get("conditions") or []
        if any(c.get("type") == "Synced" and c.get("status") == "True" for c in conditions):
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"not Synced after {timeout:.0f} s: {conditions}")
        await asyncio.sleep(0.2)


async def count_cached(session: aiohttp.ClientSession, hub_url: str, page: int = 500) -> int:
    total, token = 0, ""
    while True:
        query = f"?limit={page}" + (f"&continue={token}" if token else "")
        async with session.get(f"{hub_url}{SEARCH}/api/v1/pods{query}") as response:
            body = orjson.loads(await response.read())
        total += len(body["items"])
        token = body["metadata"].get("continue", "")
        if not token:
            return total


async def sample_pods(session: aiohttp.ClientSession, hub_url: str, count: int) -> list[dict[str, Any]]:
    async with session.get(f"{hub_url}{SEARCH}/api/v1/pods?limit={count}") as response:
        items: list[dict[str, Any]] = orjson.loads(await response.read())["items"]
    return items


def breakdown(pods: list[dict[str, Any]]) -> dict[str, float]:
    """Bytes per pod of a cache holding `pods` (as read back: the cluster annotation names their cluster)."""
    for pod in pods:
        pod["metadata"]["annotations"].pop("resource.karmada.io/cached-from-cluster", None)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    cache = SearchCache()
    resource = cache.resource(PODS)
    for start in range(0, len(pods), 100):
        resource.store("s00", pods[start : start + 100])
    resource.history.clear()
    gc.collect()
    total = tracemalloc.get_traced_memory()[0]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    objects = resource.objects("s00")
    assert objects is not None
    entries = list(objects.entries.values())
    blobs = sum(sys.getsizeof(entry.blob) for entry in entries)
    records = sum(sys.getsizeof(entry) for entry in entries)
    keys = sum(sys.getsizeof(key) for key in objects.entries)
    tuples = sum(sys.getsizeof(entry.labels) + sys.getsizeof(entry.fields) for entry in entries)
    unique = {id(value): value for entry in entries for value in entry.fields}
    strings = sum(sys.getsizeof(value) for value in unique.values())
    table = sys.getsizeof(objects.entries) + sys.getsizeof(objects.sorted_keys())
    n = len(entries)
    raw = sum(len(orjson.dumps(pod)) for pod in pods) / n
    del total
    return {
        "json": raw,
        "total": grown / n,
        "blob": blobs / n,
        "entry": records / n,
        "key": keys / n,
        "tuples": tuples / n,
        "strings": strings / n,
        "tables": table / n,
        "index": max(grown / n - (blobs + records + keys + tuples + strings + table) / n, 0.0),
        "compressed": sum(len(entry.blob) for entry in entries) / n,
    }


async def timed_lists(
    session: aiohttp.ClientSession, hub_url: str, deployments: int, queries: int
) -> list[float]:
    samples = []
    for index in range(queries):
        url = f"{hub_url}{SEARCH}/api/v1/pods?labelSelector=app%3Dweb-{index % deployments}"
        started = time.perf_counter()
        async with session.get(url) as response:
            body = await response.read()
        samples.append(time.perf_counter() - started)
        if index == 0:
            print(
                f"  one list: {len(orjson.loads(body)['items'])} pods, {len(body) / KIB:.0f} KiB", flush=True
            )
    return samples


async def run(args: argparse.Namespace, root: Path) -> None:
    clusters = cluster_names(args.clusters)
    per_cluster = args.pods // args.clusters
    replicas = max(args.match // args.clusters, 1)
    deployments = max(per_cluster // replicas, 1)
    total = deployments * replicas * args.clusters
    nodes = max(-(-per_cluster // PODS_PER_NODE), 1)
    configs = sim_configs(clusters, args.sim_processes, nodes)
    owner = {c["name"]: sim for sim, config in configs.items() for c in config["clusters"]}
    hub = start_hub(root)
    sims: dict[str, Process] = {name: start_sim(root, config, name) for name, config in configs.items()}
    kubeconfig = root / "hub" / "admin.kubeconfig"
    config = load_kubeconfig(kubeconfig)
    hub_client = Client(config, field_manager="bench", timeout=300)
    members = {
        c: Client(load_kubeconfig(root / owner[c] / f"{c}.kubeconfig"), field_manager="bench", timeout=300)
        for c in clusters
    }
    connector = aiohttp.TCPConnector(ssl=config.ssl_context())
    session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600))
    try:
        join(root, clusters, owner, parallel=4)
        print(
            f"{total} pods: {args.clusters} clusters x {deployments} Deployments x {replicas} replicas "
            f"over {args.sim_processes} sim processes",
            flush=True,
        )
        started = time.monotonic()
        await fill_members(members, deployments, replicas)
        waited = await wait_running(members, total, args.timeout)
        print(
            f"  every pod Running after {time.monotonic() - started:.0f} s ({waited:.0f} s waiting)",
            flush=True,
        )
        await asyncio.sleep(args.settle)
        baseline = rss(hub.process.pid)
        if args.probe_proxy:
            for cluster in clusters:
                proxied = f"{config.server}{PROXY.format(cluster)}/api/v1/pods"
                token = ""
                while True:
                    query = "?limit=500" + (f"&continue={token}" if token else "")
                    async with session.get(proxied + query) as response:
                        body = orjson.loads(await response.read())
                    token = body["metadata"].get("continue", "")
                    if not token:
                        break
            probed = rss(hub.process.pid)
            print(f"  hub RSS {baseline / MIB:.0f} MiB, {probed / MIB:.0f} after reading the pods by proxy")
            baseline = probed

        registry = {
            "apiVersion": "search.karmada.io/v1alpha1",
            "kind": "ResourceRegistry",
            "metadata": {"name": "pods"},
            "spec": {"targetCluster": {}, "resourceSelectors": [{"apiVersion": "v1", "kind": "Pod"}]},
        }
        cpu_before = hub.cpu()
        await hub_client.create(registry)
        sync_seconds = await wait_synced(hub_client, "pods", args.timeout)
        sync_cpu = hub.cpu() - cpu_before
        await asyncio.sleep(args.settle)
        synced_rss = rss(hub.process.pid)
        cached = await count_cached(session, config.server)
        await asyncio.sleep(args.settle)
        print(
            f"  hub RSS: {baseline / MIB:.0f} MiB before the registry, {synced_rss / MIB:.0f} once Synced, "
            f"{rss(hub.process.pid) / MIB:.0f} after this bench listed every cached pod (the buffers of "
            "serving lists, not the cache)",
            flush=True,
        )
        grown = max(synced_rss - baseline, 0)
        per_pod = grown / max(cached, 1)

        samples = await timed_lists(session, config.server, deployments, args.queries)
        p50, p99 = statistics.median(samples), percentile(samples, 0.99)
        sample = await sample_pods(session, config.server, min(args.sample, cached))
        parts = breakdown(sample)

        print()
        print(f"pods cached: {cached} of {total} ({'all' if cached == total else 'MISSING SOME'})")
        rate = cached / max(sync_seconds, 1e-9)
        print(f"time to first full sync: {sync_seconds:.1f} s ({rate:.0f} pods/s, hub CPU {sync_cpu:.0f} s)")
        headroom = GOAL_BYTES_PER_POD / max(per_pod, 1)
        karmada = KARMADA_BYTES_PER_POD / max(per_pod, 1)
        print(
            f"cache RSS per pod: {per_pod:.0f} B ({grown / MIB:.0f} MiB over {cached} pods); "
            f"goal <= {GOAL_BYTES_PER_POD} B: {verdict(per_pod <= GOAL_BYTES_PER_POD)} (x{headroom:.1f}; "
            f"Karmada's ~{KARMADA_BYTES_PER_POD // KIB} KB is x{karmada:.0f} this)"
        )
        print(
            f"  where it goes (tracemalloc, {len(sample)} pods here): {parts['total']:.0f} B per pod "
            f"for {parts['json']:.0f} B of JSON = compressed JSON {parts['blob']:.0f} "
            f"({parts['compressed']:.0f} of data) + entry {parts['entry']:.0f} + key {parts['key']:.0f} "
            f"+ label and field tuples {parts['tuples']:.0f} + unshared field values {parts['strings']:.0f} "
            f"+ tables {parts['tables']:.0f} + label index and the rest {parts['index']:.0f}"
        )
        print(
            f"list of {args.match} pods (app=web-<k>) across {args.clusters} clusters, {args.queries} lists: "
            f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; goal p99 <= {GOAL_P99 * 1000:.0f} ms: "
            f"{verdict(p99 <= GOAL_P99)} (x{GOAL_P99 / max(p99, 1e-9):.1f})"
        )
        sim_rss = ", ".join(
            f"{name} {rss(process.process.pid) / MIB:.0f} MiB" for name, process in sims.items()
        )
        print(f"RSS hub: {rss(hub.process.pid) / MIB:.0f} MiB; sims: {sim_rss}")
    finally:
        await session.close()
        await hub_client.close()
        for client in members.values():
            await client.close()
        for process in sims.values():
            process.stop()
        hub.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--clusters", type=int, default=20)
    parser.add_argument("--match", type=int, default=1000, help="Pods each label-selected list returns.")
    parser.add_argument("--sim-processes", type=int, default=4)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sample", type=int, default=5000, help="Pods measured with tracemalloc.")
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--probe-proxy", action="store_true", help="List every pod through the proxy first.")
    parser.add_argument("--keep", type=Path, default=None, help="Run in this directory and keep it (logs).")
    args = parser.parse_args()
    if args.sim_processes > args.clusters:
        parser.error("--sim-processes must not exceed --clusters")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(args, args.keep))
        return
    with tempfile.TemporaryDirectory(prefix="flotilla-search-") as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
