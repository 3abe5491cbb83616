"""Simulated nodes: each node's kubelet side (registration, heartbeats) and the node controller's taints.

A simulated cluster has no kubelets, so this component does for all of its nodes what each kubelet
does for its own, and what kube-controller-manager's node lifecycle controller does for all of them:

- registration: at start every node of the `ClusterSpec` (`spec.node_name(i)`) is created if missing,
  with the labels, capacity, conditions, addresses, `nodeInfo` and pod CIDR a kubelet reports. A node
  that already exists (the process restarted) keeps its labels and spec and gets a fresh status.
- heartbeats: ONE timer for the whole cluster, not a task per node, renews every node's Lease in
  `kube-node-lease` each `timing.node_lease_renew` seconds and, less often
  (`timing.node_status_refresh`), the heartbeat times of the node conditions. An idle cluster costs
  one wake-up per period.
- taints: `kubectl cordon` sets `spec.unschedulable`; the node controller answers with the
  `node.kubernetes.io/unschedulable:NoSchedule` taint, and with `not-ready` / `unreachable` taints
  (NoSchedule and NoExecute) while a node is not Ready. Node changes arrive as events; the reconciler
  re-reads the node and writes only when the taints or the condition statuses differ.
- faults: `set_not_ready(True)` silences every kubelet: leases stop, the node controller marks the
  conditions Unknown, taints the nodes unreachable and marks their pods not Ready, exactly what a
  cluster whose nodes died shows. `unreachable=False` instead has the kubelets report Ready=False
  (not-ready taints; leases continue). `set_not_ready(False)` recovers.

Nodes are recognisable by kwok's marker (`kwok.x-k8s.io/node: fake` annotation, `type: kwok` label);
the simulated kubelet acts only on pods bound to such nodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import uuid
from datetime import datetime
from typing import Any

import structlog

from flotilla.api.conditions import stamped_condition
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time, format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.nodes")

NAME = "node-simulator"
NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
NODE_LEASE_NAMESPACE = "kube-node-lease"

MANAGED_ANNOTATION = "kwok.x-k8s.io/node"
MANAGED_VALUE = "fake"
TYPE_LABEL = "type"
TYPE_VALUE = "kwok"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
CONTROLLER_TAINTS = frozenset({UNSCHEDULABLE_TAINT, NOT_READY_TAINT, UNREACHABLE_TAINT})
"""Taints this component owns; every other taint on a node is the user's and is left alone."""

EPHEMERAL_STORAGE = "100Gi"
CONTAINER_RUNTIME_VERSION = "containerd://1.7.24"
KERNEL_VERSION = "6.8.0-flotilla-sim"
OS_IMAGE = "Ubuntu 24.04.1 LTS"
KUBELET_PORT = 10250
_NODE_NAMESPACE_UUID = uuid.UUID("6f1c9a52-63d4-4b8e-9d55-7a3f3b1e2c10")
"""Seeds the stable machine, system and boot ids of each node name."""

STOPPED_POSTING = "Kubelet stopped posting node status."
NOT_READY_MESSAGE = (
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
    "message:Network plugin returns error: cni plugin not initialized"
)
# (type, healthy status, reason, message) in the order a kubelet reports them.
_KUBELET_CONDITIONS = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)
_NETWORK_CONDITION = ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route")


class NodeHealth(enum.Enum):
    READY = "Ready"
    NOT_READY = "NotReady"
    """The kubelet runs and reports Ready=False."""
    UNREACHABLE = "Unreachable"
    """The kubelet is silent: no leases, the node controller sets the conditions to Unknown."""


# -- the objects a kubelet registers ------------------------------------------------------------


def internal_ip(index: int) -> str:
    """The node's InternalIP: unique per node index, the same scheme in every cluster."""
    return f"10.0.{index // 250}.{index % 250 + 2}"


def pod_cidr(index: int) -> str:
    """A /24 per node from 10.244.0.0/14 onwards, as kube-controller-manager's range allocator hands out."""
    block = 244 * 256 + index
    return f"10.{block // 256}.{block % 256}.0/24"


def instance_type(spec: ClusterSpec) -> str:
    chosen = spec.labels.get(INSTANCE_TYPE_LABEL) or spec.labels.get("instance-type")
    return chosen or f"sim-{spec.node_cpu}cpu-{spec.node_memory}".lower()


def node_labels(spec: ClusterSpec, index: int) -> dict[str, str]:
    name = spec.node_name(index)
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        INSTANCE_TYPE_LABEL: instance_type(spec),
        TYPE_LABEL: TYPE_VALUE,
    }
    if spec.region:
        labels[REGION_LABEL] = spec.region
    zones = spec.zones
    if zones:
        labels[ZONE_LABEL] = zones[index % len(zones)]
    return labels


def node_conditions(
    health: NodeHealth, now: datetime, previous: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The node conditions for `health`; unchanged statuses keep their transition time.

    A silent kubelet posts nothing, so an unreachable node keeps its last heartbeat times.
    """
    stamp = format_time(now)
    before = {c.get("type"): c for c in previous or []}
    conditions = []
    for kind, healthy, healthy_reason, healthy_message in (_NETWORK_CONDITION, *_KUBELET_CONDITIONS):
        status, reason, message, heartbeat = healthy, healthy_reason, healthy_message, stamp
        if health is NodeHealth.UNREACHABLE:
            heartbeat = str(before.get(kind, {}).get("lastHeartbeatTime") or stamp)
            if kind != _NETWORK_CONDITION[0]:  # the route controller's condition stays as it was
                status, reason, message = "Unknown", "NodeStatusUnknown", STOPPED_POSTING
        elif health is NodeHealth.NOT_READY and kind == "Ready":
            status, reason, message = "False", "KubeletNotReady", NOT_READY_MESSAGE
        condition = {
            "type": kind,
            "status": status,
            "lastHeartbeatTime": heartbeat,
            "lastTransitionTime": stamp,
            "reason": reason,
            "message": message,
        }
        conditions.append(stamped_condition(condition, before.get(kind), stamp))
    return conditions


def node_status(spec: ClusterSpec, index: int, health: NodeHealth, now: datetime) -> dict[str, Any]:
    name = spec.node_name(index)
    resources = {
        "cpu": spec.node_cpu,
        "ephemeral-storage": EPHEMERAL_STORAGE,
        "memory": spec.node_memory,
        "pods": str(spec.node_pods),
    }
    return {
        "capacity": dict(resources),
        "allocatable": dict(resources),
        "conditions": node_conditions(health, now),
        "addresses": [
            {"type": "InternalIP", "address": internal_ip(index)},
            {"type": "Hostname", "address": name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
        "nodeInfo": {
            "machineID": uuid.uuid5(_NODE_NAMESPACE_UUID, f"machine/{name}").hex,
            "systemUUID": str(uuid.uuid5(_NODE_NAMESPACE_UUID, f"system/{name}")),
            "bootID": str(uuid.uuid5(_NODE_NAMESPACE_UUID, f"boot/{name}")),
            "kernelVersion": KERNEL_VERSION,
            "osImage": OS_IMAGE,
            "containerRuntimeVersion": CONTAINER_RUNTIME_VERSION,
            "kubeletVersion": spec.kubernetes_version,
            "kubeProxyVersion": spec.kubernetes_version,
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }


def node_object(spec: ClusterSpec, index: int, health: NodeHealth, now: datetime) -> dict[str, Any]:
    """The Node a kubelet of this cluster would register as node `index`."""
    cidr = pod_cidr(index)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.node_name(index),
            "labels": node_labels(spec, index),
            "annotations": {MANAGED_ANNOTATION: MANAGED_VALUE, "node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr], "providerID": f"kwok://{spec.node_name(index)}"},
        "status": node_status(spec, index, health, now),
    }


def lease_object(node_name: str, node_uid: str, duration: int, now: datetime) -> dict[str, Any]:
    """The kubelet's heartbeat Lease, owned by its Node so it goes when the node does."""
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": node_name,
            "namespace": NODE_LEASE_NAMESPACE,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid}],
        },
        "spec": {
            "holderIdentity": node_name,
            "leaseDurationSeconds": duration,
            "renewTime": format_micro_time(now),
        },
    }


def is_managed(node: dict[str, Any] | None) -> bool:
    """Whether a node is one of ours (kwok's marker), so simulated kubelets act on its pods."""
    annotations = ((node or {}).get("metadata") or {}).get("annotations") or {}
    return bool(annotations.get(MANAGED_ANNOTATION) == MANAGED_VALUE)


def ready_status(node: dict[str, Any] | None) -> str:
    """The status of the node's Ready condition ("True", "False", "Unknown"; "" when absent)."""
    for condition in ((node or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return str(condition.get("status") or "")
    return ""


# -- what the node controller adds ---------------------------------------------------------------


def desired_taints(node: dict[str, Any], health: NodeHealth, now: datetime) -> list[dict[str, Any]]:
    """The node's taints with the controller's own set to match cordon and readiness.

    User taints stay where they are; a controller taint already present keeps its `timeAdded`.
    """
    spec = node.get("spec") or {}
    current = list(spec.get("taints") or [])
    wanted: list[tuple[str, str]] = []
    if spec.get("unschedulable"):
        wanted.append((UNSCHEDULABLE_TAINT, "NoSchedule"))
    if health is not NodeHealth.READY:
        key = UNREACHABLE_TAINT if health is NodeHealth.UNREACHABLE else NOT_READY_TAINT
        wanted += [(key, "NoSchedule"), (key, "NoExecute")]
    kept = [
        t for t in current if t.get("key") not in CONTROLLER_TAINTS or (t["key"], t.get("effect")) in wanted
    ]
    present = {(t.get("key"), t.get("effect")) for t in kept}
    stamp = format_time(now)
    kept += [{"key": k, "effect": e, "timeAdded": stamp} for k, e in wanted if (k, e) not in present]
    return kept


def _condition_statuses(node: dict[str, Any]) -> dict[str, str]:
    return {
        str(c.get("type")): str(c.get("status")) for c in ((node.get("status") or {}).get("conditions") or [])
    }


# -- the component -------------------------------------------------------------------------------


class NodeSimulator:
    """Registers the cluster's nodes, keeps their leases and status alive, and taints them as kube does."""

    def __init__(self, client: LocalClient, spec: ClusterSpec, clock: Clock) -> None:
        self._client = client
        self._spec = spec
        self._clock = clock
        self._health = NodeHealth.READY
        self._indexes = {spec.node_name(i): i for i in range(spec.nodes)}
        self._alive: dict[str, str] = {}
        """Registered nodes that still exist, name → uid: the ones whose leases are renewed."""
        self._loop: ControllerLoop[str] = ControllerLoop(NAME, self._reconcile)
        self._heartbeat: asyncio.Task[None] | None = None
        self._listening = False

    @property
    def not_ready(self) -> bool:
        return self._health is not NodeHealth.READY

    @property
    def health(self) -> NodeHealth:
        return self._health

    @property
    def node_names(self) -> list[str]:
        return list(self._indexes)

    async def start(self) -> None:
        if not self._listening:
            self._client.on_change(NODE, self._on_node)
            self._listening = True
        for name in self._indexes:
            await self._register(name)
        self._loop.start()
        for name in self._indexes:
            self._loop.enqueue(name)
        if self._spec.timing.node_lease_renew > 0:
            self._heartbeat = asyncio.create_task(self._beat(), name=f"{NAME}-{self._spec.name}")
        log.info("nodes.started", cluster=self._spec.name, nodes=len(self._indexes))

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
        await self._loop.stop()

    # -- registration and heartbeats ----------------------------------------------------------

    async def _register(self, name: str) -> None:
        now = self._clock.now()
        index = self._indexes[name]
        node = self._client.peek(NODE, "", name)
        if node is None:
            try:
                node = await self._client.create(NODE, node_object(self._spec, index, self._health, now))
                log.info("nodes.registered", cluster=self._spec.name, node=name)
            except errors.AlreadyExists:
                node = self._client.peek(NODE, "", name)
        else:
            status = node_status(self._spec, index, self._health, now)
            status["conditions"] = node_conditions(
                self._health, now, (node.get("status") or {}).get("conditions")
            )

            def restarted(obj: dict[str, Any]) -> None:
                obj["status"] = {**(obj.get("status") or {}), **status}

            node = await self._client.mutate(NODE, "", name, restarted, subresource="status")
        if node is None:
            return
        self._alive[name] = str(node["metadata"].get("uid", ""))
        await self._renew_lease(name)

    async def _beat(self) -> None:
        timing = self._spec.timing
        refresh_every = max(1, round(timing.node_status_refresh / timing.node_lease_renew))
        beats = 0
        while True:
            await asyncio.sleep(timing.node_lease_renew)
            beats += 1
            try:
                await self.renew_leases()
                if beats % refresh_every == 0:
                    await self.refresh_status()
            except Exception as exc:  # the heartbeat must outlive any one failure
                log.warning(
                    "nodes.heartbeat_failed", cluster=self._spec.name, error=str(exc) or type(exc).__name__
                )

    async def renew_leases(self) -> None:
        """Renew every live node's Lease now (the heartbeat timer calls this each period)."""
        if self._health is NodeHealth.UNREACHABLE:
            return
        for name in list(self._alive):
            try:
                await self._renew_lease(name)
            except errors.APIError as exc:
                log.warning("nodes.lease_failed", cluster=self._spec.name, node=name, error=exc.message)

    async def _renew_lease(self, name: str) -> None:
        now = self._clock.now()
        renew_time = format_micro_time(now)

        def renew(lease: dict[str, Any]) -> None:
            lease["spec"]["holderIdentity"] = name
            lease["spec"]["renewTime"] = renew_time

        try:
            await self._client.mutate(LEASE, NODE_LEASE_NAMESPACE, name, renew)
        except errors.NotFound:
            lease = lease_object(name, self._alive[name], self._spec.timing.node_lease_duration, now)
            with contextlib.suppress(errors.AlreadyExists):
                await self._client.create(LEASE, lease)

    async def refresh_status(self) -> None:
        """Post fresh heartbeat times on every live node's conditions, as a kubelet does periodically."""
        if self._health is NodeHealth.UNREACHABLE:
            return
        for name in list(self._alive):
            try:
                await self._write_conditions(name, self._clock.now())
            except errors.APIError as exc:
                log.warning("nodes.status_failed", cluster=self._spec.name, node=name, error=exc.message)

    async def _write_conditions(self, name: str, now: datetime) -> None:
        health = self._health

        def post(node: dict[str, Any]) -> None:
            status = node.setdefault("status", {})
            status["conditions"] = node_conditions(health, now, status.get("conditions"))

        await self._client.mutate(NODE, "", name, post, subresource="status")

    # -- faults ----------------------------------------------------------------------------------

    async def set_not_ready(self, not_ready: bool, *, unreachable: bool = True) -> None:
        """Make every node NotReady (`unreachable`: its kubelet went silent) or recover them all."""
        if not not_ready:
            health = NodeHealth.READY
        else:
            health = NodeHealth.UNREACHABLE if unreachable else NodeHealth.NOT_READY
        if health is self._health:
            return
        self._health = health
        log.info("nodes.health", cluster=self._spec.name, health=health.value)
        for name in list(self._alive):
            await self._reconcile(name)
        if health is NodeHealth.READY:
            await self.renew_leases()
        else:
            await self._mark_pods_not_ready()

    async def _mark_pods_not_ready(self) -> None:
        """The node controller's MarkPodsNotReady: pods on a node that is not Ready are not Ready either."""
        stamp = format_time(self._clock.now())
        for pod in self._client.list(POD):
            if (pod.get("spec") or {}).get("nodeName") not in self._alive:
                continue
            if not any(
                c.get("type") == "Ready" and c.get("status") == "True"
                for c in (pod.get("status") or {}).get("conditions") or []
            ):
                continue

            def unready(obj: dict[str, Any]) -> None:
                for condition in (obj.get("status") or {}).get("conditions") or []:
                    if condition.get("type") == "Ready" and condition.get("status") == "True":
                        condition["status"] = "False"
                        condition["lastTransitionTime"] = stamp

            meta = pod["metadata"]
            with contextlib.suppress(errors.NotFound):
                await self._client.mutate(POD, meta["namespace"], meta["name"], unready, subresource="status")

    # -- the reconciler ------------------------------------------------------------------------

    def _on_node(self, event: CacheEvent) -> None:
        name = event.object.name
        if name not in self._indexes:
            return
        if event.type == "DELETED":
            # A deleted node stays deleted until the process restarts, as with a real kubelet.
            self._alive.pop(name, None)
            return
        self._alive[name] = str(event.object.obj["metadata"].get("uid", ""))
        self._loop.enqueue(name)

    async def _reconcile(self, name: str) -> float | None:
        node = self._client.peek(NODE, "", name)
        if node is None:
            return None
        now = self._clock.now()
        health = self._health
        taints = desired_taints(node, health, now)
        if taints != list((node.get("spec") or {}).get("taints") or []):

            def taint(obj: dict[str, Any]) -> None:
                spec = obj.setdefault("spec", {})
                wanted = desired_taints(obj, health, now)
                if wanted:
                    spec["taints"] = wanted
                else:
                    spec.pop("taints", None)

            await self._client.mutate(NODE, "", name, taint)
            log.info("nodes.tainted", cluster=self._spec.name, node=name, taints=len(taints))
        wanted = {c["type"]: c["status"] for c in node_conditions(health, now)}
        if _condition_statuses(node) != wanted:
            await self._write_conditions(name, now)
        return None
