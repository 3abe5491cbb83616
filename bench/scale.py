"""Scale on one box: 100 members x 10,000 workloads, cold start, memory (issue #18).

Starts a hub API server, `--sim-processes` `flotilla sim` processes sharing the members between
them (one process serving every member is the bottleneck `bench/propagation.py` measured), joins
every member and starts the controller manager. Then, in one run:

1. Placement: 10,000 Deployments of 1-2 replicas, each with a ConfigMap it mounts, carried by
   `propagateDeps`. The clusters carry a `region` label (ten regions; fewer clusters, fewer
   regions); each workload goes by label to the clusters of two regions, where spread
   constraints choose two or three clusters: half are
   Divided (2 replicas over 2 clusters), half Duplicated (1 replica on each of 3); about 5% are
   Duplicated to every cluster. Timed from the first create until every template on the hub is
   READY: its aggregated ready replicas reach what its binding placed (every target cluster reports
   them ready). The rate of Works applied per second follows from the Works' Applied times.
2. Memory: peak and settled RSS of the API server, the controller manager and the sims; the hub's
   bytes per object (RSS grown over the objects the hub holds, and store bytes per object).
3. Cold start: the controller manager is killed (SIGKILL) and started again with everything
   resident. Timed from when it holds the leader Lease (the killed one did not release it) until
   its work queues are drained (`flotilla_workqueue_depth` 0 and no reconcile for a second but the
   cluster controller's, which looks at each member once per status interval). The
   writes meanwhile: the hub's revision growth less the manager's Lease renewals, and the write
   requests the members served over HTTP (their own simulated controllers write in-process), both
   0 when nothing changed. The manager's write requests to the hub (a no-op apply is one) are
   listed too.
4. API server restart: stopped and started on its store with everything resident; timed until it
   answers a list again.
5. Reads at that size: `kubectl get deploy -A` on the hub and `flotilla get deploy -A
   --operation-scope members` across every member (median of three).

The whole run keeps within `--budget` (29 minutes, so start and teardown stay within 30): placement
gets what the later steps leave it (`--reserve`). Templates not READY by then are counted, the time
to all READY is projected from the last minutes' rate, and the later steps run on a hub still
placing them (the cold start then says so: its queues hold that work too).

Goals (issue #18): everything READY with API server + controller manager RSS <= 2 GB (P6); cold
start <= 60 s with 0 writes (P7). Each is printed beside its figure. `--clusters 20 --workloads
2000` (or smaller) for quick checks; `tests/integration/test_bench_scale.py` runs a tiny one.

Run: `.venv/bin/python bench/scale.py [--clusters 100] [--workloads 10000] [--sim-processes 4]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from flotilla.api.karmada.names import execution_namespace
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, load_kubeconfig
from propagation import PYTHON, Process, deployment, gather_limited, join, start_hub, start_sim

CLUSTER = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
RESOURCE_BINDING = GroupVersionKind("work.karmada.io", "v1alpha2", "ResourceBinding")
WORK = GroupVersionKind("work.karmada.io", "v1alpha1", "Work")
NAMESPACE = "scale"
REGIONS = 10
"""Regions the clusters are labelled with (fewer when there are fewer clusters: each has one at least)."""
MIB = 1024 * 1024
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
CLUSTER_STATUS_INTERVAL = 10
RESERVE = 420.0
"""Seconds of the budget kept for what follows placement: memory, the cold start, the API server's
restart and the reads (at the full size: minutes to list 150,000 Works and to restart)."""
RESERVE_AFTER_COLD_START = 150.0
"""Of those, what the API server's restart and the reads need."""
"""Seconds between the manager's Cluster status syncs (its resource summary follows the pods)."""
READ_VERB = re.compile(r'verb="(GET|LIST|WATCH|HEAD|OPTIONS|CONNECT)"')


# -- what is created ------------------------------------------------------------------------------


def cluster_names(count: int) -> list[str]:
    return [f"c{i:03d}" for i in range(count)]


def sim_configs(clusters: list[str], processes: int, nodes: int) -> dict[str, dict[str, Any]]:
    """The `flotilla sim --config` of each sim process (its clusters round-robin)."""
    configs: dict[str, dict[str, Any]] = {f"sim{k}": {"clusters": []} for k in range(processes)}
    for index, name in enumerate(clusters):
        configs[f"sim{index % processes}"]["clusters"].append(
            {
                "name": name,
                "nodes": nodes,
                "nodePods": 500,
                "nodeCPU": "64",
                "nodeMemory": "256Gi",
            }
        )
    return configs


def policy(name: str, selector: dict[str, str], placement: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "resourceSelectors": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": selector}}
            ],
            "propagateDeps": True,
            "placement": placement,
        },
    }


def policies(regions: int) -> list[dict[str, Any]]:
    """Per region pair: a Divided policy (2 clusters) and a Duplicated one (3); one to every cluster."""
    found = []
    for region in range(regions):
        pair = [f"r{region}", f"r{(region + 1) % regions}"]
        affinity = {
            "labelSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": pair}]}
        }
        found.append(
            policy(
                f"divided-{region}",
                {"group": str(region), "mode": "divided"},
                {
                    "clusterAffinity": affinity,
                    "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2}],
                    "replicaScheduling": {
                        "replicaSchedulingType": "Divided",
                        "replicaDivisionPreference": "Weighted",
                    },
                },
            )
        )
        found.append(
            policy(
                f"duplicated-{region}",
                {"group": str(region), "mode": "duplicated"},
                {
                    "clusterAffinity": affinity,
                    "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2, "maxGroups": 3}],
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            )
        )
    found.append(
        policy(
            "everywhere",
            {"mode": "everywhere"},
            {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
        )
    )
    return found


def workload(index: int, regions: int, everywhere_every: int) -> list[dict[str, Any]]:
    """The ConfigMap and the Deployment (mounting it) of workload `index`."""
    name = f"w{index:05d}"
    if everywhere_every and index % everywhere_every == 0:
        labels, replicas = {"mode": "everywhere"}, 1
    elif index % 2:
        labels, replicas = {"group": str(index % regions), "mode": "divided"}, 2
    else:
        labels, replicas = {"group": str(index % regions), "mode": "duplicated"}, 1
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "data": {"index": str(index)},
    }
    template = deployment(name, replicas, NAMESPACE, labels)
    pod = template["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "config", "configMap": {"name": name}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "config", "mountPath": "/config"}]
    return [config, template]


# -- measuring ------------------------------------------------------------------------------------


def rss(pid: int) -> int:
    """Resident bytes of a process (0 once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) * 1024 if match else 0


@dataclass
class MemorySampler:
    """Samples the RSS of named processes every `interval` seconds in a thread; keeps each peak."""

    processes: dict[str, Process]
    interval: float = 1.0
    peaks: dict[str, int] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> dict[str, int]:
        now = {name: rss(p.process.pid) for name, p in self.processes.items()}
        for name, value in now.items():
            self.peaks[name] = max(self.peaks.get(name, 0), value)
        return now

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def conditions(obj: dict[str, Any]) -> dict[str, str]:
    return {c.get("type", ""): c.get("status", "") for c in (obj.get("status") or {}).get("conditions") or []}


def expected_ready(binding: dict[str, Any]) -> int:
    """Replicas the binding placed: per target cluster (Duplicated: the template's replicas in each)."""
    spec = binding.get("spec") or {}
    targets = spec.get("clusters") or []
    duplicated = ((spec.get("placement") or {}).get("replicaScheduling") or {}).get(
        "replicaSchedulingType"
    ) == "Duplicated"
    if duplicated:
        return int(spec.get("replicas") or 0) * len(targets)
    return sum(int(t.get("replicas") or 0) for t in targets)


class Readiness:
    """Which templates are READY: aggregated ready replicas reach what their binding placed."""

    def __init__(self) -> None:
        self.ready_replicas: dict[str, int] = {}
        self.placed: dict[str, int] = {}

    def template(self, obj: dict[str, Any], deleted: bool) -> None:
        name = obj["metadata"]["name"]
        if deleted:
            self.ready_replicas.pop(name, None)
        else:
            self.ready_replicas[name] = int((obj.get("status") or {}).get("readyReplicas") or 0)

    def binding(self, obj: dict[str, Any], deleted: bool) -> None:
        name = obj["metadata"]["name"].removesuffix("-deployment")
        if deleted or obj["metadata"].get("ownerReferences", [{}])[0].get("kind") != "Deployment":
            self.placed.pop(name, None)
            return
        placed = expected_ready(obj)
        if placed:
            self.placed[name] = placed

    def count(self) -> int:
        return sum(1 for name, placed in self.placed.items() if self.ready_replicas.get(name, 0) >= placed)


async def follow(hub: Client, kind: GroupVersionKind, apply: Any, stop: asyncio.Event) -> None:
    """List then watch `kind` in the namespace, handing each object to `apply(obj, deleted)`."""
    items, revision = await hub.list(kind, namespace=NAMESPACE)
    for item in items:
        apply(item, False)
    while not stop.is_set():
        with contextlib.suppress(Exception):
            async for event in hub.watch(
                kind, namespace=NAMESPACE, resource_version=revision, timeout_seconds=300
            ):
                revision = (event.object.get("metadata") or {}).get("resourceVersion", revision)
                apply(event.object, event.type == "DELETED")
                if stop.is_set():
                    return


@dataclass
class Placement:
    """How far placement got: the READY count over time, its last sample when placement ended (all
    READY, or the deadline)."""

    progress: list[tuple[float, int]]

    @property
    def ended(self) -> float:
        return self.progress[-1][0]

    @property
    def ready(self) -> int:
        return self.progress[-1][1]

    def projected_all_ready(self, total: int, window: float = 300.0) -> float | None:
        """When all `total` would be READY at the rate of the last `window` seconds (None: no rate)."""
        last_time, last_count = self.progress[-1]
        earlier = [(t, c) for t, c in self.progress if t <= last_time - window] or self.progress[:1]
        first_time, first_count = earlier[-1]
        if last_count <= first_count or last_time <= first_time:
            return None
        rate = (last_count - first_count) / (last_time - first_time)
        return last_time + (total - last_count) / rate


async def wait_all_ready(hub: Client, total: int, deadline: float) -> Placement:
    """Until `total` templates are READY, or the (monotonic) deadline."""
    readiness = Readiness()
    stop = asyncio.Event()
    followers = [
        asyncio.create_task(follow(hub, DEPLOYMENT, readiness.template, stop)),
        asyncio.create_task(follow(hub, RESOURCE_BINDING, readiness.binding, stop)),
    ]
    last_report = time.monotonic()
    progress: list[tuple[float, int]] = []
    try:
        while readiness.count() < total and time.monotonic() < deadline:
            if not progress or time.monotonic() - progress[-1][0] >= 5:
                progress.append((time.monotonic(), readiness.count()))
            if time.monotonic() - last_report > 30:
                print(f"  ... {readiness.count()} of {total} READY", flush=True)
                last_report = time.monotonic()
            await asyncio.sleep(0.2)
        progress.append((time.monotonic(), readiness.count()))
        return Placement(progress)
    finally:
        stop.set()
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)


async def works_applied_rate(hub: Client, clusters: list[str]) -> tuple[int, float]:
    """Works, and Works applied per second from the first to the last Applied transition.

    Read one execution namespace at a time (about 1,500 Works each at the full size): one list of
    150,000 Works would make the API server build the whole response in memory, inside the window
    where the hub's peak RSS is sampled."""
    count = 0
    times = []
    for cluster in clusters:
        items, _ = await hub.list(WORK, namespace=execution_namespace(cluster), limit=500)
        count += len(items)
        for work in items:
            for condition in (work.get("status") or {}).get("conditions") or []:
                if condition.get("type") == "Applied" and condition.get("status") == "True":
                    stamp = condition.get("lastTransitionTime")
                    if stamp:
                        times.append(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    if len(times) < 2 or max(times) <= min(times):
        return count, float("nan")
    return count, len(times) / (max(times) - min(times))


def metrics_text(url: str) -> str:
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as answer:
        return str(answer.read().decode())


def metric_sum(text: str, name: str, *, unless: str = "") -> float:
    """The sum of a metric's samples; `unless` leaves out the samples whose labels contain it."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith((name + "{", name + " ")) and not (unless and unless in line):
            total += float(line.rsplit(" ", 1)[1])
    return total


def region(cluster_index: int, regions: int) -> str:
    return f"r{cluster_index % regions}"


def hub_objects(kubeconfig: Path) -> int:
    """Objects the hub stores (`apiserver_storage_objects` summed), read with kubectl as the admin."""
    result = subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), "get", "--raw", "/metrics"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return int(metric_sum(result.stdout, "apiserver_storage_objects"))


@dataclass
class ManagerRequests:
    """The controller manager's write requests in the hub's audit log, after an offset."""

    by_resource: dict[str, int] = field(default_factory=dict)
    """create/update/patch/delete requests by resource (a no-op apply is a request, not a write)."""
    lease_writes: int = 0
    """Its leader-election Lease renewals (real writes, but not the work being measured)."""


def manager_requests(audit: Path, offset: int) -> ManagerRequests:
    found = ManagerRequests()
    with audit.open("rb") as log:
        log.seek(offset)
        for line in log:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                agent = entry.get("userAgent", "")
                verb = entry.get("verb")
                if not agent.startswith("flotilla-controller-manager") or verb not in WRITE_VERBS:
                    continue
                if "leader-election" in agent:
                    found.lease_writes += 1
                    continue
                ref = entry.get("objectRef") or {}
                resource = ref.get("resource", "?")
                if ref.get("subresource"):
                    resource += "/" + ref["subresource"]
                found.by_resource[resource] = found.by_resource.get(resource, 0) + 1
    return found


async def revision(client: Client) -> int:
    """The cluster's store revision now (a list's resourceVersion)."""
    _, found = await client.list(GroupVersionKind("", "v1", "Namespace"))
    return int(found)


async def member_write_requests(members: dict[str, Client]) -> int:
    """Write requests the members' API servers have served over HTTP, added up.

    A simulated member's own controllers (kubelets renewing node Leases, the Deployment controller)
    write in-process, so this counts what came from outside: the controller manager.
    """

    async def one(client: Client) -> int:
        _, text = await client.text("/metrics")
        return round(
            sum(
                float(line.rsplit(" ", 1)[1])
                for line in text.splitlines()
                if line.startswith("apiserver_request_total{") and not READ_VERB.search(line)
            )
        )

    return sum(await gather_limited([one(c) for c in members.values()], 16))


def start_manager(root: Path, extra: list[str] | None = None) -> Process:
    return Process(
        "controller-manager",
        [
            "controller-manager",
            "--kubeconfig",
            str(root / "hub" / "admin.kubeconfig"),
            "--health-address",
            "127.0.0.1:0",
            "--cluster-status-interval",
            str(CLUSTER_STATUS_INTERVAL),
            "--cluster-success-threshold",
            "0",
            "--log-level",
            "warning",
            *(extra or []),
        ],
        root,
        "flotilla controller-manager: running",
    )


def lease_options(seconds: float) -> list[str]:
    """The managers' Lease timing: kube's (15 s / 10 s / 2 s) by default; a small run shortens it, so
    the killed manager's Lease is not waited out for 15 s (the takeover is printed, not a goal)."""
    renew = seconds * 2 / 3
    retry = min(2.0, seconds / 4)
    return [
        "--leader-elect-lease-duration",
        f"{seconds:g}s",
        "--leader-elect-renew-deadline",
        f"{renew:g}s",
        "--leader-elect-retry-period",
        f"{retry:g}s",
    ]


def manager_url(manager: Process) -> str:
    match = re.search(r"running \(health: (\S+)\)", manager.log_path.read_text(errors="replace"))
    if match is None:
        raise RuntimeError("the controller manager did not say where its health endpoint is")
    return match.group(1).rstrip(")")


def wait_leading(url: str, timeout: float) -> float:
    """Until the manager holds the leader Lease (`flotilla_leader_is_leader` 1); returns when."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if metric_sum(metrics_text(url), "flotilla_leader_is_leader") >= 1:
                return time.monotonic()
        time.sleep(0.1)
    raise TimeoutError(f"the controller manager did not become the leader within {timeout:.0f} s")


# The cluster controller looks at each member once per status interval (ten a second at 100 members
# and 10 s) however quiet the rest is: its reconciles do not count as work left.
PERIODIC = 'controller="cluster"'


def wait_drained(url: str, timeout: float) -> float:
    """Until every work queue is empty and no reconcile ran for a second, the cluster controller's
    periodic ones aside; returns when."""
    deadline = time.monotonic() + timeout
    last = -1.0
    quiet_since = None
    while time.monotonic() < deadline:
        try:
            text = metrics_text(url)
        except OSError:
            time.sleep(0.2)
            continue
        depth = metric_sum(text, "flotilla_workqueue_depth")
        reconciles = metric_sum(text, "flotilla_reconcile_total", unless=PERIODIC)
        started = metric_sum(text, "flotilla_workqueue_adds_total") > 0
        if started and depth == 0 and reconciles == last:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= 1.0:
                return quiet_since
        else:
            quiet_since = None
        last = reconciles
        time.sleep(0.25)
    raise TimeoutError(f"the controller manager's queues were not drained within {timeout:.0f} s")


def timed(command: list[str]) -> float:
    started = time.monotonic()
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    return time.monotonic() - started


def median_of_three(command: list[str]) -> float:
    return statistics.median(timed(command) for _ in range(3))


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


# -- the run --------------------------------------------------------------------------------------


async def wait_clusters_ready(hub: Client, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        items, _ = await hub.list(CLUSTER)
        if sum(1 for c in items if conditions(c).get("Ready") == "True") == count:
            return
        await asyncio.sleep(1.0)
    raise TimeoutError(f"the {count} clusters were not Ready within {timeout:.0f} s")


async def run(args: argparse.Namespace, root: Path) -> None:
    budget_end = time.monotonic() + args.budget
    clusters = cluster_names(args.clusters)
    regions = min(REGIONS, len(clusters))
    configs = sim_configs(clusters, args.sim_processes, args.nodes)
    owner = {c["name"]: sim for sim, config in configs.items() for c in config["clusters"]}
    hub = start_hub(root)
    sims = {name: start_sim(root, config, name) for name, config in configs.items()}
    kubeconfig = root / "hub" / "admin.kubeconfig"
    manager: Process | None = None
    sampler: MemorySampler | None = None
    hub_client = Client(load_kubeconfig(kubeconfig), field_manager="bench", timeout=300)
    members = {
        c: Client(load_kubeconfig(root / owner[c] / f"{c}.kubeconfig"), field_manager="bench", timeout=120)
        for c in clusters
    }
    try:
        setup = time.monotonic()
        join(root, clusters, owner, parallel=4)
        manager = start_manager(root, lease_options(args.lease_duration))
        for index, name in enumerate(clusters):  # as `kubectl label cluster NAME region=rN` would
            await hub_client.patch(
                CLUSTER, name, {"metadata": {"labels": {"region": region(index, regions)}}}
            )
        await wait_clusters_ready(hub_client, len(clusters), args.timeout)
        await hub_client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        for item in policies(regions):
            await hub_client.create(item)
        print(
            f"{args.workloads} workloads x {len(clusters)} clusters ({args.nodes} nodes each) over "
            f"{args.sim_processes} sim processes; set up in {time.monotonic() - setup:.0f} s",
            flush=True,
        )
        baseline_objects = hub_objects(kubeconfig)
        baseline_rss = rss(hub.process.pid)
        sampler = MemorySampler({"apiserver": hub, "controller-manager": manager, **sims})
        sampler.start()

        # 1. Placement until every template is READY.
        everywhere_every = round(1 / args.everywhere_fraction) if args.everywhere_fraction > 0 else 0
        cpu_before = {name: process.cpu() for name, process in sampler.processes.items()}
        started = time.monotonic()
        objects = [
            obj for index in range(args.workloads) for obj in workload(index, regions, everywhere_every)
        ]
        await gather_limited([hub_client.create(obj) for obj in objects], 32)
        created = time.monotonic()
        placement = await wait_all_ready(hub_client, args.workloads, budget_end - args.reserve)
        finished = placement.ended
        all_ready = placement.ready >= args.workloads
        works, rate = await works_applied_rate(hub_client, clusters)
        print(f"templates created                       {created - started:8.1f} s", flush=True)
        if all_ready:
            print(f"every template READY on the hub         {finished - started:8.1f} s", flush=True)
        else:
            projected = placement.projected_all_ready(args.workloads)
            at = f"about {projected - started:.0f} s" if projected is not None else "unknown"
            print(
                f"every template READY on the hub         not within the budget: {placement.ready} of "
                f"{args.workloads} READY after {finished - started:.0f} s (goal: all READY, missed); "
                f"all READY at the last 5 minutes' rate: {at}",
                flush=True,
            )
        print(f"Works                                   {works:8d}  applied at {rate:.0f}/s", flush=True)
        cpu = {name: process.cpu() - cpu_before[name] for name, process in sampler.processes.items()}
        print(
            f"CPU seconds until {'READY' if all_ready else 'then'} ({os.cpu_count()} cores, "
            f"{finished - started:.0f} s): "
            + ", ".join(f"{name} {seconds:.0f}" for name, seconds in cpu.items()),
            flush=True,
        )

        # 2. Memory, settled.
        await asyncio.sleep(args.settle)
        settled = sampler.sample()
        total_objects = hub_objects(kubeconfig)
        grown = max(settled["apiserver"] - baseline_rss, 0)
        new_objects = max(total_objects - baseline_objects, 1)
        store = root / "hub" / "store.db"
        store_bytes = sum(p.stat().st_size for p in store.parent.glob("store.db*"))
        for name in sampler.peaks:
            print(
                f"RSS {name:<20} peak {sampler.peaks[name] / MIB:7.0f} MiB, "
                f"settled {settled[name] / MIB:7.0f} MiB",
                flush=True,
            )
        pair = sampler.peaks["apiserver"] + sampler.peaks["controller-manager"]
        print(
            f"API server + controller manager peak    {pair / MIB:8.0f} MiB "
            f"(goal <= 2048 MiB: {verdict(pair <= 2048 * MIB)})"
        )
        print(
            f"hub objects {total_objects} ({new_objects} new): "
            f"{grown / new_objects / 1024:.1f} KiB of API server RSS and "
            f"{store_bytes / total_objects / 1024:.1f} KiB of store per object",
            flush=True,
        )

        # 3. Cold start of the controller manager, once the running one has drained its queues
        # (READY on the hub comes before every Work's status is written back) and a Cluster status
        # sync ran after READY (the members' allocated resources): a restarted manager then has
        # nothing left to write.
        if all_ready:
            drained = wait_drained(manager_url(manager), min(args.timeout, budget_end - time.monotonic()))
            await asyncio.sleep(max(0.0, finished + CLUSTER_STATUS_INTERVAL + 1 - time.monotonic()))
            print(f"manager drained after READY             {drained - finished:8.1f} s", flush=True)
        else:
            print("cold start with placement still running: its queues hold that work too", flush=True)
        audit = root / "hub" / "audit.log"
        hub_before = await revision(hub_client)
        members_before = await member_write_requests(members)
        manager.process.kill()
        manager.process.wait()
        offset = audit.stat().st_size
        restarted = time.monotonic()
        manager = start_manager(root, lease_options(args.lease_duration))
        sampler.processes["controller-manager"] = manager
        url = manager_url(manager)
        leading = wait_leading(url, args.timeout)
        drain_budget = budget_end - time.monotonic() - RESERVE_AFTER_COLD_START
        try:
            # At least 30 s to drain, or a sixth of a small run's budget (the suite's smoke test).
            drained = wait_drained(url, max(drain_budget, min(30.0, args.budget / 6)))
        except TimeoutError:
            drained = None
        requests = manager_requests(audit, offset)
        hub_writes = await revision(hub_client) - hub_before - requests.lease_writes
        member_writes = await member_write_requests(members) - members_before
        if drained is not None:
            cold = drained - leading
            print(
                f"controller manager cold start           {cold:8.1f} s from leadership to drained queues "
                f"(goal <= 60 s: {verdict(cold <= 60)}); {leading - restarted:.1f} s to take over the "
                "Lease the killed one held",
                flush=True,
            )
        else:
            print(
                f"controller manager cold start           not drained within the budget "
                f"({time.monotonic() - leading:.0f} s after leadership; goal <= 60 s: missed); "
                f"{leading - restarted:.1f} s to take over the Lease the killed one held",
                flush=True,
            )
        print(
            f"  writes meanwhile: hub {hub_writes} (requests {sum(requests.by_resource.values())} "
            f"{requests.by_resource or ''}), members {member_writes} "
            f"(goal 0: {verdict(hub_writes == 0 and member_writes == 0)})",
            flush=True,
        )

        # 4. API server restart.
        port = re.search(r"server: https://[^:]+:(\d+)", kubeconfig.read_text())
        assert port is not None
        hub.stop()
        restarted = time.monotonic()
        hub = Process(
            "hub-restarted",
            [
                "apiserver",
                "--data-dir",
                str(root / "hub"),
                "--secure-port",
                port.group(1),
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
        sampler.processes["apiserver"] = hub
        serving = time.monotonic()
        await hub_client.list(DEPLOYMENT, namespace=NAMESPACE, limit=1)
        print(
            f"API server restart                      {serving - restarted:8.1f} s to serving "
            f"({time.monotonic() - restarted:.1f} s to a first list)",
            flush=True,
        )
        await asyncio.sleep(5)  # its start-up work (garbage collector's first look) done
        resident = rss(hub.process.pid)
        print(
            f"API server RSS after the restart        {resident / MIB:8.0f} MiB with every object resident "
            f"({(resident - baseline_rss) / 1024 / new_objects:.1f} KiB per new object)",
            flush=True,
        )

        # 5. Reads at that size.
        kubectl = median_of_three(["kubectl", "--kubeconfig", str(kubeconfig), "get", "deploy", "-A"])
        across = median_of_three(
            [
                PYTHON,
                "-m",
                "flotilla",
                "get",
                "deploy",
                "-A",
                "--operation-scope",
                "members",
                "--kubeconfig",
                str(kubeconfig),
            ]
        )
        print(f"kubectl get deploy -A                   {kubectl:8.2f} s", flush=True)
        print(f"flotilla get deploy -A (members)        {across:8.2f} s", flush=True)
    finally:
        if sampler is not None:
            sampler.stop()
        await hub_client.close()
        for client in members.values():
            await client.close()
        for process in (manager, *sims.values(), hub):
            if process is not None:
                process.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--workloads", type=int, default=10000)
    parser.add_argument("--sim-processes", type=int, default=4)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--everywhere-fraction", type=float, default=0.05)
    parser.add_argument("--settle", type=float, default=10.0, help="Seconds after READY before settled RSS.")
    parser.add_argument("--timeout", type=float, default=1800.0, help="Longest wait for one step.")
    parser.add_argument(
        "--budget", type=float, default=1740.0, help="Seconds the whole run keeps within (setup included)."
    )
    parser.add_argument(
        "--reserve", type=float, default=RESERVE, help="Seconds of the budget kept for after placement."
    )
    parser.add_argument(
        "--lease-duration", type=float, default=15.0, help="The controller managers' Lease duration (s)."
    )
    parser.add_argument("--keep", type=Path, default=None, help="Run in this directory and keep it (logs).")
    args = parser.parse_args()
    if args.clusters < 2 or args.sim_processes < 1 or args.sim_processes > args.clusters:
        parser.error("--clusters must be at least 2 and --sim-processes between 1 and --clusters")
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        asyncio.run(run(args, args.keep))
        return
    with tempfile.TemporaryDirectory(prefix="flotilla-scale-") as tmp:
        asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    main()
