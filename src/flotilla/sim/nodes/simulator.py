"""The node simulator: each node's kubelet side (registration, heartbeats) and the node controller's taints.

A simulated cluster has no kubelets, so this component does for all of its nodes what each kubelet
does for its own, and what kube-controller-manager's node lifecycle controller does for all of them:

- registration: at start every node of the `ClusterSpec` (`spec.node_name(i)`) is created if missing,
  with the labels, capacity, conditions, addresses, `nodeInfo` and pod CIDR a kubelet reports
  (`objects.py`). A node that already exists (the process restarted) keeps its labels and spec and
  gets a fresh status.
- heartbeats: ONE timer for the whole cluster (a `PeriodicTask`), not a task per node, renews every
  node's Lease in `kube-node-lease` each `timing.node_lease_renew` seconds and, less often
  (`timing.node_status_refresh`), the heartbeat times of the node conditions. An idle cluster costs
  one wake-up per period; a failed beat is logged and the next one comes on time.
- taints: `kubectl cordon` sets `spec.unschedulable`; the node controller answers with the
  `node.kubernetes.io/unschedulable:NoSchedule` taint, and with `not-ready` / `unreachable` taints
  (NoSchedule and NoExecute) while a node is not Ready (`taints.py`). Node changes arrive as events;
  the reconciler re-reads the node and writes only when the taints or the condition statuses differ.
- faults: `set_not_ready(True)` silences every kubelet: leases stop, the node controller marks the
  conditions Unknown, taints the nodes unreachable and marks their pods not Ready, exactly what a
  cluster whose nodes died shows. `unreachable=False` instead has the kubelets report Ready=False
  (not-ready taints; leases continue). `set_not_ready(False)` recovers.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time, format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.runtime.periodic import PeriodicTask
from flotilla.sim.nodes.objects import (
    NODE_LEASE_NAMESPACE,
    NodeHealth,
    lease_object,
    node_conditions,
    node_object,
    node_status,
)
from flotilla.sim.nodes.taints import desired_taints
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.nodes")

NAME = "node-simulator"
NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")


def _condition_statuses(node: dict[str, Any]) -> dict[str, str]:
    return {
        str(c.get("type")): str(c.get("status")) for c in ((node.get("status") or {}).get("conditions") or [])
    }


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
        self._heartbeat: PeriodicTask | None = None
        self._beats = 0
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
            self._beats = 0
            self._heartbeat = PeriodicTask(
                f"{NAME}-{self._spec.name}", self._beat, self._spec.timing.node_lease_renew
            )
            self._heartbeat.start()
        log.info("nodes.started", cluster=self._spec.name, nodes=len(self._indexes))

    async def stop(self) -> None:
        if self._heartbeat is not None:
            await self._heartbeat.stop()
            self._heartbeat = None
        await self._loop.stop()

    # -- registration and heartbeats ----------------------------------------------------------

    async def _register(self, name: str) -> None:
        now = self._clock.now()
        index = self._indexes[name]
        node = self._client.peek(NODE, name)
        if node is None:
            try:
                node = await self._client.create(NODE, node_object(self._spec, index, self._health, now))
                log.info("nodes.registered", cluster=self._spec.name, node=name)
            except errors.AlreadyExists:
                node = self._client.peek(NODE, name)
        else:
            status = node_status(self._spec, index, self._health, now)
            status["conditions"] = node_conditions(
                self._health, now, (node.get("status") or {}).get("conditions")
            )

            def restarted(obj: dict[str, Any]) -> None:
                obj["status"] = {**(obj.get("status") or {}), **status}

            node = await self._client.mutate(NODE, name, restarted, subresource="status")
        if node is None:
            return
        self._alive[name] = str(node["metadata"].get("uid", ""))
        await self._renew_lease(name)

    async def _beat(self) -> None:
        """One heartbeat: every lease, and the conditions' heartbeat times every few beats (a failure
        is logged by the timer, which goes on)."""
        timing = self._spec.timing
        refresh_every = max(1, round(timing.node_status_refresh / timing.node_lease_renew))
        self._beats += 1
        await self.renew_leases()
        if self._beats % refresh_every == 0:
            await self.refresh_status()

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
            await self._client.mutate(LEASE, name, renew, namespace=NODE_LEASE_NAMESPACE)
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

        await self._client.mutate(NODE, name, post, subresource="status")

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
                await self._client.mutate(
                    POD, meta["name"], unready, namespace=meta["namespace"], subresource="status"
                )

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
        node = self._client.peek(NODE, name)
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

            await self._client.mutate(NODE, name, taint)
            log.info("nodes.tainted", cluster=self._spec.name, node=name, taints=len(taints))
        wanted = {c["type"]: c["status"] for c in node_conditions(health, now)}
        if _condition_statuses(node) != wanted:
            await self._write_conditions(name, now)
        return None
