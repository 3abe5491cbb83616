"""The simulated kube-scheduler: binds Pending pods to nodes with kube's default filters and scoring.

A pure core decides; a thin shell reads the watch cache and writes:

- `schedule(pod, nodes, usage)` runs kube-scheduler's filter plugins in their default order, first
  failure wins per node — NodeUnschedulable (cordon), TaintToleration (NoSchedule and NoExecute
  taints; PreferNoSchedule only scores in kube), NodeAffinity (`nodeSelector` and required node
  affinity, including the PreFilter that narrows to `matchFields metadata.name` nodes), and
  NodeResourcesFit (pod count, cpu, memory, ephemeral storage, extended resources; a pod's request is
  the sum of its containers', at least its largest init container's, plus overhead). Feasible nodes
  are scored by least allocation of cpu and memory (kube's non-zero request defaults) and ties go to
  the first name. When nothing fits, the message is kube 1.32's FitError, preemption part included:
  `0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes
  are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for
  incoming pod.` The simulation never preempts, so every node where preemption could help reports no
  victims.
- `Scheduler` keeps what kube's scheduler cache keeps: the requests of the pods assigned to each node
  (terminal pods excluded), updated from watch events and "assumed" right after a bind. A bound pod
  gets `spec.nodeName` and `PodScheduled=True` and a `Scheduled` event; an unschedulable one gets
  `PodScheduled=False` (reason `Unschedulable`) and a `FailedScheduling` event when its message
  changes. Unschedulable pods are retried when a node changes in a way that matters or an assigned
  pod goes away — event-driven, never polled.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog

from flotilla.api.conditions import find_condition, set_status_condition
from flotilla.api.nodeaffinity import RequiredNodeAffinity, required_terms
from flotilla.api.quantities import QuantityError, parse_quantity
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_micro_time, format_time
from flotilla.api.tolerations import NO_SCHEDULE, untolerated
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.sim.nodes import UNSCHEDULABLE_TAINT
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.kubescheduler")

NAME = "default-scheduler"
SCHEDULER_NAME = "default-scheduler"
POD = GroupVersionKind("", "v1", "Pod")
NODE = GroupVersionKind("", "v1", "Node")
EVENT = GroupVersionKind("", "v1", "Event")

TERMINAL_PHASES = ("Succeeded", "Failed")
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""What kube's scoring assumes for a container that requests no cpu / memory."""
MAX_NODE_SCORE = 100
_UNSCHEDULABLE = {"key": UNSCHEDULABLE_TAINT, "effect": NO_SCHEDULE}
EVENT_MESSAGE_LIMIT = 1024

UNSCHEDULABLE_REASON = "node(s) were unschedulable"
AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
AFFINITY_PREFILTER_REASON = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
AFFINITY_CONFLICT_REASON = "pod affinity terms conflict"
TOO_MANY_PODS_REASON = "Too many pods"
NO_NODES_MESSAGE = "no nodes available to schedule pods"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NEVER_PREEMPTS = "not eligible due to preemptionPolicy=Never."

PodKey = tuple[str, str]


# -- requests and capacity -----------------------------------------------------------------------


@dataclass(slots=True)
class Resources:
    """Amounts in kube's scheduler units: millicores, bytes, and whole units of anything else."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    scalars: dict[str, int] = field(default_factory=dict)

    def add(self, other: Resources, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for name, amount in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + sign * amount

    def raise_to(self, other: Resources) -> None:
        """Each amount becomes the larger of the two (an init container runs alone)."""
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        for name, amount in other.scalars.items():
            self.scalars[name] = max(self.scalars.get(name, 0), amount)

    def copy(self) -> Resources:
        return Resources(self.milli_cpu, self.memory, self.ephemeral_storage, dict(self.scalars))


def resources_from_list(resource_list: Mapping[str, Any] | None) -> Resources:
    """A ResourceList (`{cpu: 500m, memory: 1Gi, …}`); unparsable quantities count as zero."""
    found = Resources()
    for name, value in (resource_list or {}).items():
        try:
            quantity = parse_quantity(value)
        except QuantityError:
            continue
        if name == "cpu":
            found.milli_cpu = quantity.milli_value
        elif name == "memory":
            found.memory = quantity.value
        elif name == "ephemeral-storage":
            found.ephemeral_storage = quantity.value
        elif name != "pods":
            found.scalars[name] = quantity.value
    return found


@dataclass(frozen=True, slots=True)
class PodRequest:
    requests: Resources
    non_zero_milli_cpu: int
    non_zero_memory: int
    """cpu and memory with kube's defaults for containers that request none (scoring only)."""


def _non_zero(resources: Resources, declared: Mapping[str, Any]) -> Resources:
    return Resources(
        resources.milli_cpu if "cpu" in declared else DEFAULT_MILLI_CPU_REQUEST,
        resources.memory if "memory" in declared else DEFAULT_MEMORY_REQUEST,
    )


def pod_request(pod: Mapping[str, Any]) -> PodRequest:
    """What the pod asks of a node, computed as kube's resource helper does.

    App containers add up; sidecars (init containers with restartPolicy Always) run beside them and
    add up too; every other init container runs alone after the sidecars before it, so the pod needs
    at least the largest of those; the pod overhead comes on top.
    """
    spec = pod.get("spec") or {}
    total, non_zero = Resources(), Resources()
    for container in spec.get("containers") or []:
        declared = (container.get("resources") or {}).get("requests") or {}
        requested = resources_from_list(declared)
        total.add(requested)
        non_zero.add(_non_zero(requested, declared))
    sidecars, sidecars_non_zero = Resources(), Resources()
    init_peak, init_peak_non_zero = Resources(), Resources()
    for container in spec.get("initContainers") or []:
        declared = (container.get("resources") or {}).get("requests") or {}
        requested = resources_from_list(declared)
        requested_non_zero = _non_zero(requested, declared)
        if container.get("restartPolicy") == "Always":
            for running, amount in ((total, requested), (non_zero, requested_non_zero)):
                running.add(amount)
            sidecars.add(requested)
            sidecars_non_zero.add(requested_non_zero)
            requested, requested_non_zero = sidecars.copy(), sidecars_non_zero.copy()
        else:
            requested.add(sidecars)
            requested_non_zero.add(sidecars_non_zero)
        init_peak.raise_to(requested)
        init_peak_non_zero.raise_to(requested_non_zero)
    total.raise_to(init_peak)
    non_zero.raise_to(init_peak_non_zero)
    overhead = resources_from_list(spec.get("overhead"))
    total.add(overhead)
    non_zero.add(overhead)
    return PodRequest(total, non_zero.milli_cpu, non_zero.memory)


@dataclass(slots=True)
class NodeUsage:
    """The sum over the pods assigned to a node: what kube's NodeInfo tracks."""

    requested: Resources = field(default_factory=Resources)
    non_zero_milli_cpu: int = 0
    non_zero_memory: int = 0
    pods: int = 0

    def add(self, request: PodRequest, sign: int = 1) -> None:
        self.requested.add(request.requests, sign)
        self.non_zero_milli_cpu += sign * request.non_zero_milli_cpu
        self.non_zero_memory += sign * request.non_zero_memory
        self.pods += sign


def allocatable(node: Mapping[str, Any]) -> tuple[Resources, int]:
    """The node's allocatable resources and how many pods it takes."""
    status_allocatable = (node.get("status") or {}).get("allocatable") or {}
    try:
        pods = parse_quantity(status_allocatable.get("pods", "0")).value
    except QuantityError:
        pods = 0
    return resources_from_list(status_allocatable), pods


# -- filters ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a node cannot take the pod; `resolvable`: evicting pods could change that (kube's codes)."""

    reasons: tuple[str, ...]
    resolvable: bool = False


def _tolerations(pod: Mapping[str, Any]) -> Any:
    return (pod.get("spec") or {}).get("tolerations")


def check_unschedulable(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """NodeUnschedulable: a cordoned node takes only pods tolerating its unschedulable taint."""
    if not (node.get("spec") or {}).get("unschedulable"):
        return None
    if untolerated([_UNSCHEDULABLE], _tolerations(pod)) is None:
        return None
    return Rejection((UNSCHEDULABLE_REASON,))


def check_taints(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """TaintToleration: the first NoSchedule / NoExecute taint the pod does not tolerate rejects it."""
    taint = untolerated((node.get("spec") or {}).get("taints"), _tolerations(pod))
    if taint is None:
        return None
    key, value = taint.get("key") or "", taint.get("value") or ""
    return Rejection((f"node(s) had untolerated taint {{{key}: {value}}}",))


def check_node_affinity(pod: Mapping[str, Any], node: Mapping[str, Any]) -> Rejection | None:
    """NodeAffinity: every `nodeSelector` label, and one of the required terms (kube's `nodeaffinity`)."""
    if not RequiredNodeAffinity.of_pod_spec(pod.get("spec") or {}).matches(node):
        return Rejection((AFFINITY_REASON,))
    return None


def affinity_node_names(pod: Mapping[str, Any]) -> set[str] | None:
    """NodeAffinity's PreFilter: the only node names the pod may land on, or None for any node.

    When every required term pins `metadata.name` with `In`, only those nodes are evaluated (an
    empty set means the terms contradict each other).
    """
    terms = required_terms(pod.get("spec") or {})
    if not terms:
        return None
    names: set[str] = set()
    for term in terms:
        pinned: set[str] | None = None
        for requirement in term.get("matchFields") or []:
            if requirement.get("key") == "metadata.name" and requirement.get("operator") == "In":
                values = {str(v) for v in requirement.get("values") or []}
                pinned = values if pinned is None else pinned & values
        if pinned is None:
            return None
        names |= pinned
    return names


def check_resources(request: PodRequest, node: Mapping[str, Any], usage: NodeUsage) -> Rejection | None:
    """NodeResourcesFit: room for one more pod and for every resource the pod requests."""
    capacity, max_pods = allocatable(node)
    reasons: list[str] = []
    resolvable = True
    if usage.pods + 1 > max_pods:
        reasons.append(TOO_MANY_PODS_REASON)
    wanted = request.requests
    used = usage.requested
    for label, asked, have, taken in (
        ("cpu", wanted.milli_cpu, capacity.milli_cpu, used.milli_cpu),
        ("memory", wanted.memory, capacity.memory, used.memory),
        ("ephemeral-storage", wanted.ephemeral_storage, capacity.ephemeral_storage, used.ephemeral_storage),
        *(
            (name, amount, capacity.scalars.get(name, 0), used.scalars.get(name, 0))
            for name, amount in sorted(wanted.scalars.items())
        ),
    ):
        if asked > 0 and asked > have - taken:
            reasons.append(f"Insufficient {label}")
            # No eviction frees more than the node has: kube marks that unresolvable.
            resolvable = resolvable and asked <= have
    return Rejection(tuple(reasons), resolvable) if reasons else None


def filter_node(
    pod: Mapping[str, Any], request: PodRequest, node: Mapping[str, Any], usage: NodeUsage
) -> Rejection | None:
    """kube's default filter plugins in order; the first that rejects the node decides."""
    return (
        check_unschedulable(pod, node)
        or check_taints(pod, node)
        or check_node_affinity(pod, node)
        or check_resources(request, node, usage)
    )


# -- scoring and the decision ------------------------------------------------------------------


def least_allocated_score(request: PodRequest, node: Mapping[str, Any], usage: NodeUsage) -> int:
    """NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), 0…100."""
    capacity, _ = allocatable(node)
    total = 0
    for requested, have in (
        (usage.non_zero_milli_cpu + request.non_zero_milli_cpu, capacity.milli_cpu),
        (usage.non_zero_memory + request.non_zero_memory, capacity.memory),
    ):
        if have > 0 and requested <= have:
            total += (have - requested) * MAX_NODE_SCORE // have
    return total // 2


def fit_error_message(
    total_nodes: int,
    reasons_by_node: Mapping[str, Iterable[str]],
    *,
    prefilter: str = "",
    postfilter: str = "",
) -> str:
    """kube's FitError text: the reasons counted over nodes, sorted as strings, then the postfilter's."""
    message = f"0/{total_nodes} nodes are available:"
    if prefilter:
        message += f" {prefilter}."
    else:
        histogram = Counter(reason for reasons in reasons_by_node.values() for reason in reasons)
        counted = sorted(f"{count} {reason}" for reason, count in histogram.items())
        if counted:
            message += f" {', '.join(counted)}."
    if postfilter:
        message += f" {postfilter}"
    return message


def preemption_message(pod: Mapping[str, Any], total_nodes: int, rejections: Mapping[str, Rejection]) -> str:
    """What DefaultPreemption says when it finds no victims (the simulation never preempts)."""
    if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
        return NEVER_PREEMPTS
    reasons = {name: (NO_VICTIMS if r.resolvable else NOT_HELPFUL,) for name, r in rejections.items()}
    return "preemption: " + fit_error_message(total_nodes, reasons)


@dataclass(frozen=True, slots=True)
class Decision:
    node_name: str = ""
    """Where the pod goes; empty when no node fits."""
    message: str = ""
    """Why no node fits (kube's wording), when none does."""


def schedule(
    pod: Mapping[str, Any], nodes: list[Mapping[str, Any]], usage: Mapping[str, NodeUsage]
) -> Decision:
    """Pick the node for `pod`: filter, then the best least-allocated score, then the first name."""
    if not nodes:
        return Decision(message=NO_NODES_MESSAGE)
    total = len(nodes)
    rejections: dict[str, Rejection] = {}
    pinned = affinity_node_names(pod)
    if pinned is not None and not pinned:
        every = {str(n["metadata"]["name"]): Rejection((AFFINITY_CONFLICT_REASON,)) for n in nodes}
        postfilter = preemption_message(pod, total, every)
        return Decision(
            message=fit_error_message(total, {}, prefilter=AFFINITY_CONFLICT_REASON, postfilter=postfilter)
        )
    request = pod_request(pod)
    best: tuple[int, str] | None = None
    for node in sorted(nodes, key=lambda n: str(n["metadata"]["name"])):
        name = str(node["metadata"]["name"])
        if pinned is not None and name not in pinned:
            rejections[name] = Rejection((AFFINITY_PREFILTER_REASON,))
            continue
        node_usage = usage.get(name) or NodeUsage()
        rejection = filter_node(pod, request, node, node_usage)
        if rejection is not None:
            rejections[name] = rejection
            continue
        score = least_allocated_score(request, node, node_usage)
        if best is None or score > best[0]:
            best = (score, name)
    if best is not None:
        return Decision(node_name=best[1])
    reasons = {name: r.reasons for name, r in rejections.items()}
    return Decision(
        message=fit_error_message(total, reasons, postfilter=preemption_message(pod, total, rejections))
    )


def is_schedulable(pod: Mapping[str, Any]) -> bool:
    """Whether the default scheduler should place this pod now (kube's queue admission)."""
    spec = pod.get("spec") or {}
    return bool(
        not spec.get("nodeName")
        and not (pod.get("metadata") or {}).get("deletionTimestamp")
        and (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME
        and not spec.get("schedulingGates")
        and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES
    )


def _scheduling_relevant(node: Mapping[str, Any]) -> tuple[Any, ...]:
    """What of a node can change a scheduling decision (heartbeats alone cannot)."""
    return (
        (node.get("metadata") or {}).get("labels"),
        node.get("spec"),
        (node.get("status") or {}).get("allocatable"),
    )


# -- the component -------------------------------------------------------------------------------


class Scheduler:
    """Binds the cluster's pending pods as kube-scheduler's default profile would."""

    def __init__(self, client: LocalClient, spec: ClusterSpec, clock: Clock) -> None:
        self._client = client
        self._spec = spec
        self._clock = clock
        self._loop: ControllerLoop[PodKey] = ControllerLoop(NAME, self._reconcile)
        self._assigned: dict[PodKey, tuple[str, str, PodRequest]] = {}
        """Pods counted against a node: key → (node name, pod uid, request)."""
        self._usage: dict[str, NodeUsage] = {}
        self._unschedulable: set[PodKey] = set()
        self._listening = False

    async def start(self) -> None:
        if not self._listening:
            self._client.on_change(POD, self._on_pod)
            self._client.on_change(NODE, self._on_node)
            self._listening = True
        for pod in self._client.list(POD):
            key = _key(pod)
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

    def _account(self, key: PodKey, pod: Mapping[str, Any] | None) -> bool:
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
        key = (event.object.namespace, event.object.name)
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
            and _scheduling_relevant(event.prev.obj) == _scheduling_relevant(event.object.obj)
        ):
            return
        self._retry_unschedulable()

    def _retry_unschedulable(self) -> None:
        for key in self._unschedulable:
            self._loop.enqueue(key)

    # -- the reconciler ------------------------------------------------------------------------

    async def _reconcile(self, key: PodKey) -> float | None:
        pod = self._client.peek(POD, *key)
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

    async def _bind(self, key: PodKey, pod: Mapping[str, Any], node_name: str) -> None:
        try:
            bound = await self._client.bind(key[0], key[1], node_name)
        except (errors.Conflict, errors.NotFound) as exc:
            log.info(
                "scheduler.bind_skipped", cluster=self._spec.name, pod=f"{key[0]}/{key[1]}", error=exc.message
            )
            return
        self._account(key, bound)  # assume it now, before the watch event arrives
        if not _has_condition(bound, "PodScheduled", "True"):
            stamp = format_time(self._clock.now())

            def scheduled(obj: dict[str, Any]) -> None:
                _set_condition(obj, {"type": "PodScheduled", "status": "True"}, stamp)

            await self._client.mutate(POD, key[0], key[1], scheduled, subresource="status")
        log.info("scheduler.bound", cluster=self._spec.name, pod=f"{key[0]}/{key[1]}", node=node_name)
        await self._event(
            bound, "Normal", "Scheduled", "Binding", f"Successfully assigned {key[0]}/{key[1]} to {node_name}"
        )

    async def _record_failure(self, key: PodKey, pod: Mapping[str, Any], message: str) -> None:
        wanted = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
        current = find_condition((pod.get("status") or {}).get("conditions"), "PodScheduled")
        if current is not None and all(current.get(k) == v for k, v in wanted.items()):
            return  # already said; kube would only bump an event series
        stamp = format_time(self._clock.now())

        def unschedulable(obj: dict[str, Any]) -> None:
            _set_condition(obj, dict(wanted), stamp)

        try:
            updated = await self._client.mutate(POD, key[0], key[1], unschedulable, subresource="status")
        except errors.NotFound:
            return
        log.info(
            "scheduler.unschedulable", cluster=self._spec.name, pod=f"{key[0]}/{key[1]}", message=message
        )
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


def _key(pod: Mapping[str, Any]) -> PodKey:
    meta = pod.get("metadata") or {}
    return (str(meta.get("namespace", "")), str(meta.get("name", "")))


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
