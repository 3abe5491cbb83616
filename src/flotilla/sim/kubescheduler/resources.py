"""What a pod asks of a node and what a node has left: kube-scheduler's resource arithmetic.

Amounts are in the scheduler's units (millicores, bytes, whole units of anything else). A pod's
request is the sum of its containers', at least its largest init container's (sidecars run beside
the app and add up), plus its overhead; for scoring, containers that request no cpu or memory count
kube's non-zero defaults. `NodeUsage` is what kube's NodeInfo tracks: the sum over the pods assigned
to a node. Quantities that do not parse count as zero (the API server has validated them already).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.quantities import QuantityError, parse_quantity

DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""What kube's scoring assumes for a container that requests no cpu / memory."""


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
