"""The `Kubelet` component: applies the kubelet stages to the pods bound to the cluster's simulated nodes.

One reconciler for every simulated node of the cluster (kwok's model, not one kubelet per node).
Pod events enqueue the pod's key; the reconciler re-reads the pod and its node, finds the first
stage that matches, and either waits — the stage's delay, through the work queue's timers, never
by polling — or applies it: writes the next status through `pods/status`, or deletes the pod with
grace 0, and records the kubelet's events.

A node's kubelet acts only while it is alive (its Ready condition is not Unknown); stages that start
containers also need the node Ready. When a node comes back, the pods bound to it are looked at
again. Pod addresses come from the node's pod CIDR (`PodAddresses`); a host-network pod uses the
node's address.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.sim.kubelet.addresses import PodAddresses
from flotilla.sim.kubelet.stages import STAGES, Stage, StageContext, StageEvent, stage_for
from flotilla.sim.nodes.objects import is_managed, ready_status
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.kubelet")

NAME = "kubelet"
POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
EVENT = GroupVersionKind("", "v1", "Event")
TERMINAL_PHASES = ("Succeeded", "Failed")


def host_ip(node: Mapping[str, Any]) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address", ""))
    return ""


def kubelet_event(
    pod: Mapping[str, Any], node_name: str, event: StageEvent, stamp: str
) -> list[dict[str, Any]]:
    """The Events a kubelet records for `event` on `pod` (legacy core/v1 shape, one per container)."""
    meta = pod.get("metadata") or {}
    name, namespace = str(meta.get("name", "")), str(meta.get("namespace", ""))
    involved = {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": name,
        "namespace": namespace,
        "uid": meta.get("uid", ""),
        "resourceVersion": meta.get("resourceVersion", ""),
    }
    spec = pod.get("spec") or {}
    targets: list[tuple[str, str, str]] = [("", "", "")]
    if event.per_container:
        targets = [
            (f"spec.{field}{{{c.get('name', '')}}}", str(c.get("name", "")), str(c.get("image", "")))
            for field in ("initContainers", "containers")
            for c in spec.get(field) or []
        ]
    events = []
    for field_path, container, image in targets:
        involved_object = dict(involved)
        if field_path:
            involved_object["fieldPath"] = field_path
        events.append(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"{name[:230]}.{secrets.token_hex(8)}", "namespace": namespace},
                "involvedObject": involved_object,
                "reason": event.reason,
                "message": event.message.format(container=container, image=image),
                "type": event.type,
                "source": {"component": NAME, "host": node_name},
                "firstTimestamp": stamp,
                "lastTimestamp": stamp,
                "count": 1,
                "reportingComponent": NAME,
                "reportingInstance": node_name,
            }
        )
    return events


class Kubelet:
    """Moves the pods on the cluster's simulated nodes through the kubelet stages."""

    def __init__(
        self, client: LocalClient, spec: ClusterSpec, clock: Clock, stages: tuple[Stage, ...] = STAGES
    ) -> None:
        self._client = client
        self._spec = spec
        self._clock = clock
        self._stages = stages
        self._loop: ControllerLoop[ObjectKey] = ControllerLoop(NAME, self._reconcile)
        self._due: dict[ObjectKey, tuple[str, float]] = {}
        """Pods waiting out a stage's delay: key → (stage name, event-loop time it is due)."""
        self._addresses = PodAddresses()
        self._pods_by_node: dict[str, set[ObjectKey]] = {}
        self._node_of: dict[ObjectKey, str] = {}
        self._listening = False

    async def start(self) -> None:
        if not self._listening:
            self._client.on_change(POD, self._on_pod)
            self._client.on_change(NODE, self._on_node)
            self._listening = True
        for pod in self._client.list(POD):
            meta = pod["metadata"]
            key = ObjectKey(str(meta.get("namespace", "")), str(meta["name"]))
            if self._track(key, pod):
                self._loop.enqueue(key)
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()
        self._due.clear()

    # -- the cache -------------------------------------------------------------------------------

    def _track(self, key: ObjectKey, pod: Mapping[str, Any] | None) -> bool:
        """Keep the node index and the address book current; True when the pod is on a node."""
        node_name = str(((pod or {}).get("spec") or {}).get("nodeName") or "")
        before = self._node_of.get(key)
        if before is not None and before != node_name:
            self._pods_by_node.get(before, set()).discard(key)
            del self._node_of[key]
        if not node_name or pod is None:
            self._addresses.release(key)
            return False
        self._node_of[key] = node_name
        self._pods_by_node.setdefault(node_name, set()).add(key)
        status = pod.get("status") or {}
        if status.get("phase") in TERMINAL_PHASES:
            self._addresses.release(key)
        elif status.get("podIP") and not (pod.get("spec") or {}).get("hostNetwork"):
            self._addresses.observe(node_name, key, str(status["podIP"]))
        return True

    def _on_pod(self, event: CacheEvent) -> None:
        key = ObjectKey(event.object.namespace, event.object.name)
        pod = None if event.type == "DELETED" else event.object.obj
        if self._track(key, pod):
            self._loop.enqueue(key)
        elif pod is None:
            self._due.pop(key, None)

    def _on_node(self, event: CacheEvent) -> None:
        """A node whose kubelet comes back (or appears) has its pods looked at again."""
        if event.type == "DELETED":
            return
        before = ready_status(event.prev.obj) if event.prev is not None else ""
        if ready_status(event.object.obj) != before:
            for key in self._pods_by_node.get(event.object.name, ()):
                self._loop.enqueue(key)

    # -- the reconciler ------------------------------------------------------------------------

    async def _reconcile(self, key: ObjectKey) -> float | None:
        pod = self._client.peek(POD, key.name, namespace=key.namespace)
        if pod is None:
            self._due.pop(key, None)
            return None
        node_name = str((pod.get("spec") or {}).get("nodeName") or "")
        node = self._client.peek(NODE, node_name) if node_name else None
        stage = stage_for(pod, self._stages)
        if node is None or not is_managed(node) or stage is None:
            self._due.pop(key, None)
            return None
        ready = ready_status(node)
        if ready == "Unknown" or (stage.needs_ready_node and ready != "True"):
            self._due.pop(key, None)
            return None  # looked at again when the node's Ready condition changes
        delay = stage.delay_seconds(self._spec.timing)
        if delay > 0:
            now = asyncio.get_running_loop().time()
            due = self._due.get(key)
            if due is None or due[0] != stage.name:
                self._due[key] = (stage.name, now + delay)
                return delay
            if now < due[1]:
                return due[1] - now
        self._due.pop(key, None)
        await self._apply(stage, key, pod, node)
        return None

    async def _apply(
        self, stage: Stage, key: ObjectKey, pod: Mapping[str, Any], node: Mapping[str, Any]
    ) -> None:
        namespace, name = key.namespace, key.name
        node_name = str(node["metadata"]["name"])
        if stage.delete:
            uid = str(pod["metadata"].get("uid", ""))
            await self._client.delete(POD, name, namespace=namespace, grace_period_seconds=0, uid=uid)
            self._addresses.release(key)
            log.info("kubelet.deleted", cluster=self._spec.name, pod=f"{namespace}/{name}", node=node_name)
            return
        context = StageContext(now=self._clock.now(), host_ip=host_ip(node))
        if stage.needs_pod_ip:
            address = self._pod_address(key, pod, node)
            if not address:
                log.warning(
                    "kubelet.no_pod_address",
                    cluster=self._spec.name,
                    pod=f"{namespace}/{name}",
                    node=node_name,
                )
                return
            context = StageContext(now=context.now, host_ip=context.host_ip, pod_ip=address)
        next_status = stage.next_status
        if next_status is None:
            return

        def change(obj: dict[str, Any]) -> None:
            if stage.matches(obj):  # re-checked on the fresh copy: someone may have got there first
                obj["status"] = next_status(obj, context)

        try:
            updated = await self._client.mutate(POD, name, change, namespace=namespace, subresource="status")
        except errors.NotFound:
            return
        if updated.get("metadata", {}).get("resourceVersion") == pod["metadata"].get("resourceVersion"):
            return
        log.info(
            "kubelet.stage",
            cluster=self._spec.name,
            stage=stage.name,
            pod=f"{namespace}/{name}",
            node=node_name,
        )
        await self._record(stage, updated, node_name)

    def _pod_address(self, key: ObjectKey, pod: Mapping[str, Any], node: Mapping[str, Any]) -> str:
        if (pod.get("spec") or {}).get("hostNetwork"):
            return host_ip(node)
        spec = node.get("spec") or {}
        cidr = str(spec.get("podCIDR") or next(iter(spec.get("podCIDRs") or []), ""))
        return self._addresses.allocate(str(node["metadata"]["name"]), cidr, key)

    async def _record(self, stage: Stage, pod: Mapping[str, Any], node_name: str) -> None:
        stamp = format_time(self._clock.now())
        for stage_event in stage.events:
            for event in kubelet_event(pod, node_name, stage_event, stamp):
                try:
                    await self._client.create(EVENT, event)
                except errors.APIError as exc:  # events are best effort, as kube's recorder is
                    log.info(
                        "kubelet.event_failed",
                        cluster=self._spec.name,
                        reason=stage_event.reason,
                        error=exc.message,
                    )
