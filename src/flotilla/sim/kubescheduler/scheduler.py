"""The simulated kube-scheduler: binds the cluster's Pending pods, event-driven, never polled.

The decision is pure (`decision.py` over `filters.py`, `scores.py` and `resources.py`); this is the
shell around it. `KubeScheduler` keeps what kube's scheduler cache keeps: the requests of the pods
assigned to each node (terminal pods excluded), updated from watch events and "assumed" right after
a bind. A bound pod gets `spec.nodeName`, `PodScheduled=True` and a `Scheduled` event; an
unschedulable one gets `PodScheduled=False` (reason `Unschedulable`) and a `FailedScheduling` event
when its message changes. Unschedulable pods are retried when a node changes in a way that matters
or an assigned pod goes away (`queueing.py`).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.conditions import find_condition, set_status_condition
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time, format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.sim.kubescheduler.decision import schedule
from flotilla.sim.kubescheduler.queueing import (
    SCHEDULER_NAME,
    TERMINAL_PHASES,
    is_schedulable,
    scheduling_relevant,
)
from flotilla.sim.kubescheduler.resources import NodeUsage, PodRequest, pod_request
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.kubescheduler")

NAME = "default-scheduler"
POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
EVENT = GroupVersionKind("", "v1", "Event")
EVENT_MESSAGE_LIMIT = 1024


class KubeScheduler:
    """Binds the cluster's pending pods as kube-scheduler's default profile would."""

    def __init__(self, client: LocalClient, spec: ClusterSpec, clock: Clock) -> None:
        self._client = client
        self._spec = spec
        self._clock = clock
        self._loop: ControllerLoop[ObjectKey] = ControllerLoop(NAME, self._reconcile)
        self._assigned: dict[ObjectKey, tuple[str, str, PodRequest]] = {}
        """Pods counted against a node: key → (node name, pod uid, request)."""
        self._usage: dict[str, NodeUsage] = {}
        self._unschedulable: set[ObjectKey] = set()
        self._listening = False

    async def start(self) -> None:
        if not self._listening:
            self._client.on_change(POD, self._on_pod)
            self._client.on_change(NODE, self._on_node)
            self._listening = True
        for pod in self._client.list(POD):
            key = ObjectKey.of(pod)
            self._account(key, pod)
            if is_schedulable(pod):
                self._loop.enqueue(key)
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    def usage(self, node_name: str) -> NodeUsage:
        """What the pods assigned to `node_name` request, as the scheduler counts it."""
        return self._usage.get(node_name) or NodeUsage()

    # -- the cache -------------------------------------------------------------------------------

    def _account(self, key: ObjectKey, pod: Mapping[str, Any] | None) -> bool:
        """Count or uncount the pod against its node; True when a node got room back."""
        spec = (pod or {}).get("spec") or {}
        node_name = str(spec.get("nodeName") or "")
        uid = str(((pod or {}).get("metadata") or {}).get("uid", ""))
        counted = bool(
            pod is not None and node_name and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES
        )
        before = self._assigned.get(key)
        if before is not None and counted and before[:2] == (node_name, uid):
            return False
        if before is not None:
            self._usage[before[0]].add(before[2], -1)
            del self._assigned[key]
        if counted and pod is not None:
            request = pod_request(pod)
            self._assigned[key] = (node_name, uid, request)
            self._usage.setdefault(node_name, NodeUsage()).add(request)
        return before is not None and not counted

    def _on_pod(self, event: CacheEvent) -> None:
        key = ObjectKey(event.object.namespace, event.object.name)
        pod = None if event.type == "DELETED" else event.object.obj
        if self._account(key, pod):
            self._retry_unschedulable()
        if pod is not None and is_schedulable(pod):
            self._loop.enqueue(key)
        elif pod is None:
            self._unschedulable.discard(key)

    def _on_node(self, event: CacheEvent) -> None:
        if (
            event.type == "MODIFIED"
            and event.prev is not None
            and scheduling_relevant(event.prev.obj) == scheduling_relevant(event.object.obj)
        ):
            return
        self._retry_unschedulable()

    def _retry_unschedulable(self) -> None:
        for key in self._unschedulable:
            self._loop.enqueue(key)

    # -- the reconciler ------------------------------------------------------------------------

    async def _reconcile(self, key: ObjectKey) -> float | None:
        pod = self._client.peek(POD, key.name, namespace=key.namespace)
        if pod is None or not is_schedulable(pod):
            self._unschedulable.discard(key)
            return None
        nodes: list[Mapping[str, Any]] = list(self._client.list(NODE))
        decision = schedule(pod, nodes, self._usage)
        if decision.node_name:
            self._unschedulable.discard(key)
            await self._bind(key, pod, decision.node_name)
        else:
            self._unschedulable.add(key)
            await self._record_failure(key, pod, decision.message)
        return None

    async def _bind(self, key: ObjectKey, pod: Mapping[str, Any], node_name: str) -> None:
        try:
            bound = await self._client.bind(key.name, namespace=key.namespace, node_name=node_name)
        except (errors.Conflict, errors.NotFound) as exc:
            log.info("scheduler.bind_skipped", cluster=self._spec.name, pod=str(key), error=exc.message)
            return
        self._account(key, bound)  # assume it now, before the watch event arrives
        if not _has_condition(bound, "PodScheduled", "True"):
            stamp = format_time(self._clock.now())

            def scheduled(obj: dict[str, Any]) -> None:
                _set_condition(obj, {"type": "PodScheduled", "status": "True"}, stamp)

            await self._client.mutate(POD, key.name, scheduled, namespace=key.namespace, subresource="status")
        log.info("scheduler.bound", cluster=self._spec.name, pod=str(key), node=node_name)
        await self._event(
            bound, "Normal", "Scheduled", "Binding", f"Successfully assigned {key} to {node_name}"
        )

    async def _record_failure(self, key: ObjectKey, pod: Mapping[str, Any], message: str) -> None:
        wanted = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
        current = find_condition((pod.get("status") or {}).get("conditions"), "PodScheduled")
        if current is not None and all(current.get(k) == v for k, v in wanted.items()):
            return  # already said; kube would only bump an event series
        stamp = format_time(self._clock.now())

        def unschedulable(obj: dict[str, Any]) -> None:
            _set_condition(obj, dict(wanted), stamp)

        try:
            updated = await self._client.mutate(
                POD, key.name, unschedulable, namespace=key.namespace, subresource="status"
            )
        except errors.NotFound:
            return
        log.info("scheduler.unschedulable", cluster=self._spec.name, pod=str(key), message=message)
        await self._event(updated, "Warning", "FailedScheduling", "Scheduling", message)

    async def _event(self, pod: Mapping[str, Any], kind: str, reason: str, action: str, message: str) -> None:
        """An Event as kube-scheduler's events.k8s.io recorder writes it, read through core/v1."""
        meta = pod.get("metadata") or {}
        name, namespace = str(meta.get("name", "")), str(meta.get("namespace", ""))
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{name[:230]}.{secrets.token_hex(8)}", "namespace": namespace},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": name,
                "namespace": namespace,
                "uid": meta.get("uid", ""),
                "resourceVersion": meta.get("resourceVersion", ""),
            },
            "reason": reason,
            "message": message[:EVENT_MESSAGE_LIMIT],
            "type": kind,
            "eventTime": format_micro_time(self._clock.now()),
            "action": action,
            "reportingComponent": SCHEDULER_NAME,
            "reportingInstance": f"{SCHEDULER_NAME}-{self._spec.name}",
        }
        try:
            await self._client.create(EVENT, event)
        except errors.APIError as exc:  # events are best effort, as kube's recorder is
            log.info("scheduler.event_failed", cluster=self._spec.name, reason=reason, error=exc.message)


def _has_condition(pod: Mapping[str, Any], kind: str, status: str) -> bool:
    return any(
        c.get("type") == kind and c.get("status") == status
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _set_condition(pod: dict[str, Any], condition: dict[str, Any], stamp: str) -> None:
    """Put a pod condition in place as `podutil.UpdatePodCondition` does: the condition replaces the
    one of its type (lastProbeTime unset), and its transition time moves only when its status changes."""
    status = pod.setdefault("status", {})
    status["conditions"] = set_status_condition(
        status.get("conditions"), {**condition, "lastProbeTime": None}, stamp
    )
