"""Simulated usage, pure: a workload's load divided among its ready pods, and nodes as their pods' sum.

Each running pod is described by `PodFacts`: where it runs, whether it is Ready, and which load it
shares (the workload in its owner chain that carries one, as `loads.py` finds it). Then:

- a pod sharing a load uses `load ÷ ready pods sharing it`, per dimension, when it is Ready; an
  unready one (starting, failing its probe) uses the base, as a pod taking no traffic would;
- a dimension the load does not set, and every pod without a load, use `POD_BASE`;
- a node uses `NODE_BASE` (its system daemons) plus the usage of the running pods bound to it.

So a load of 2 CPUs over 4 ready replicas reads 500m per pod: scale the workload to 8 and each pod
reads 250m, as real traffic spread by a Service would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from flotilla.sim.metrics.loads import Load, LoadKey


@dataclass(frozen=True, slots=True)
class Usage:
    """CPU in cores, memory in bytes."""

    cpu: Fraction
    memory: Fraction

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.cpu + other.cpu, self.memory + other.memory)


POD_BASE = Usage(cpu=Fraction(1, 1000), memory=Fraction(8 * 1024 * 1024))
"""An idle pod: 1m CPU, 8Mi memory."""
NODE_BASE = Usage(cpu=Fraction(100, 1000), memory=Fraction(512 * 1024 * 1024))
"""A node's own usage before its pods (kubelet, runtime, system daemons): 100m CPU, 512Mi memory."""

PodKey = tuple[str, str]
"""(namespace, name) of a pod."""


@dataclass(frozen=True, slots=True)
class PodFacts:
    """What a running pod's usage depends on."""

    namespace: str
    name: str
    node: str
    ready: bool
    load_key: LoadKey | None = None
    """The workload whose load this pod shares; None: no load reaches it."""
    load: Load | None = None

    @property
    def key(self) -> PodKey:
        return (self.namespace, self.name)


def pod_usages(pods: Iterable[PodFacts], base: Usage = POD_BASE) -> dict[PodKey, Usage]:
    """Each pod's usage: its load's share when it is Ready, else the base (per dimension)."""
    pods = list(pods)
    ready: dict[LoadKey, int] = {}
    for pod in pods:
        if pod.load_key is not None and pod.ready:
            ready[pod.load_key] = ready.get(pod.load_key, 0) + 1
    usages = {}
    for pod in pods:
        load = pod.load if pod.load_key is not None and pod.ready else None
        sharing = ready.get(pod.load_key, 0) if pod.load_key is not None else 0
        if load is None or sharing == 0:
            usages[pod.key] = base
            continue
        usages[pod.key] = Usage(
            cpu=load.cpu / sharing if load.cpu is not None else base.cpu,
            memory=load.memory / sharing if load.memory is not None else base.memory,
        )
    return usages


def node_usages(
    nodes: Iterable[str],
    pods: Iterable[PodFacts],
    usages: Mapping[PodKey, Usage],
    base: Usage = NODE_BASE,
) -> dict[str, Usage]:
    """Each node's usage: the base plus its running pods' usage (pods on unknown nodes are left out)."""
    totals = dict.fromkeys(nodes, base)
    for pod in pods:
        if pod.node in totals:
            totals[pod.node] = totals[pod.node] + usages.get(pod.key, POD_BASE)
    return totals


def split_among_containers(amount: Fraction, containers: int, unit: int) -> list[int]:
    """`amount` in whole `unit`ths (nanocores: 10**9; bytes: 1), split over `containers` so that the
    parts add up to the rounded whole; the first container takes what does not divide evenly."""
    whole = -(-amount.numerator * unit // amount.denominator)
    count = max(containers, 1)
    share, remainder = divmod(whole, count)
    return [share + remainder, *([share] * (count - 1))]
