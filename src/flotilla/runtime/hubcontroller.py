"""What every hub controller shares: its context, a work queue loop, and informer wiring.

The same controllers run in two places: the controller manager, which reaches Push members itself,
and a Pull cluster's agent, which runs beside its member and reaches only that one. The context
says which (`sync_mode`): controllers that touch members leave the clusters of the other mode to
whoever runs there.

Member objects are watched the same way hub objects are: `MemberInformers` keeps one informer per
(cluster, kind) of Karmada-managed objects for the whole process, so the execution controller
(which re-creates what disappeared) and the work-status controller (which reports status) read one
cache and one watch per member and kind. The cluster status collection reads whole kinds of a
member (its nodes, its unfinished pods) from the same registry through `cache`: informers that
select by field rather than by the managed label, and call no handlers — their cache is read once
per status interval, so the member is watched incrementally instead of listed every interval.

`ManagerSettings` holds the flags of `flotilla controller-manager` that controllers read, among them
Karmada's feature gates (`FeatureGates`, `--feature-gates=Failover=true,…`). Flotilla's defaults
differ from Karmada's where Karmada's leave a user without failover: `Failover` is on here (off in
Karmada since v1.12), and so is NoExecute taint eviction; and `WorkloadAffinity` is on, so an
accepted `workloadAffinity` is enforced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from prometheus_client.metrics_core import Metric

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.informer import Handler, Informer
from flotilla.client.interfaces import ObjectClient
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.controller import ControllerLoop
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.interpretation import Interpretation
from flotilla.runtime.members import MemberClientProvider

KARMADA_FEATURE_GATES: Mapping[str, bool] = {
    "Failover": True,
    "GracefulEviction": True,
    "PropagateDeps": True,
    "CustomizedClusterResourceModeling": True,
    "PropagationPolicyPreemption": False,
    "MultiClusterService": False,
    "ResourceQuotaEstimate": False,
    "StatefulFailoverInjection": False,
    "PriorityBasedScheduling": True,
    "FederatedQuotaEnforcement": False,
    "MultiplePodTemplatesScheduling": False,
    "ControllerPriorityQueue": True,
    "WorkloadAffinity": True,
    "SchedulingOvercommitProtection": False,
}
"""karmada-controller-manager's feature gates (v1.19) with their defaults here. `Failover` differs
from Karmada (false there): a member that fails should lose its workloads to the others without a
flag. So does `WorkloadAffinity` (alpha, false there): a policy's `workloadAffinity` is accepted, so
the scheduler enforces it unless told not to. Gates Flotilla does not act on are accepted, so
Karmada's command lines carry over."""

_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


@dataclass(frozen=True, slots=True)
class FeatureGates:
    """Karmada's feature gates as `--feature-gates` set them; what was not set keeps its default."""

    overrides: tuple[tuple[str, bool], ...] = ()

    @classmethod
    def parse(cls, text: str) -> FeatureGates:
        """`Name=bool,Name=bool` as component-base parses it (Go booleans); ValueError says what is wrong."""
        overrides: dict[str, bool] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, equals, value = (side.strip() for side in item.partition("="))
            if not equals:
                raise ValueError(f"missing bool value for {name}")
            if name not in KARMADA_FEATURE_GATES:
                known = ", ".join(sorted(KARMADA_FEATURE_GATES))
                raise ValueError(f"unrecognized feature gate: {name} (known: {known})")
            if value not in _GO_TRUE | _GO_FALSE:
                raise ValueError(f"invalid value of {name}: {value}, err: invalid syntax")
            overrides[name] = value in _GO_TRUE
        return cls(tuple(sorted(overrides.items())))

    def enabled(self, name: str) -> bool:
        """Whether gate `name` is on (KeyError for a gate Karmada does not have)."""
        return dict(self.overrides).get(name, KARMADA_FEATURE_GATES[name])

    @property
    def failover(self) -> bool:
        """Cluster failover: the taint manager and the ClusterTaintPolicy controller run."""
        return self.enabled("Failover")

    @property
    def graceful_eviction(self) -> bool:
        return self.enabled("GracefulEviction")


@dataclass(frozen=True, slots=True)
class ManagerSettings:
    """Tuning of the controller manager (and agent); defaults follow karmada-controller-manager."""

    cluster_status_interval: float = 10.0
    """Seconds between health probes and status collection of each cluster this process reaches."""
    cluster_success_threshold: float = 30.0
    """A cluster must be healthy this long before it turns Ready again."""
    cluster_failure_threshold: float = 30.0
    """A cluster must be unhealthy this long before it turns NotReady."""
    cluster_lease_grace: float = 40.0
    """A Pull cluster whose agent has not renewed its Lease for this long turns Ready=Unknown
    (karmada's --cluster-monitor-grace-period)."""
    workers: int = 5
    """Concurrent reconciles per controller (karmada's --concurrent-*-syncs)."""
    member_timeout: float = 10.0
    feature_gates: FeatureGates = field(default_factory=FeatureGates)
    enable_taint_manager: bool = True
    """Run the NoExecute taint manager (with the `Failover` gate on)."""
    enable_no_execute_taint_eviction: bool = True
    """Let the taint manager evict from clusters with NoExecute taints (Karmada: false)."""
    no_execute_taint_eviction_purge_mode: str = "Gracefully"
    """How the taint manager's evictions remove the old copy, unless the binding says (Directly or
    Gracefully)."""
    graceful_eviction_timeout: float = 600.0
    """Seconds an eviction task keeps the old copy when it gives no `gracePeriodSeconds`."""
    resource_eviction_rate: float = 200.0
    """Bindings the taint manager evicts per second at most (Karmada: 0.5)."""
    enable_scheduler_estimator: bool = True
    """The scheduler also sizes Push clusters by their nodes and pods (Karmada's accurate estimator,
    from the member informers this process keeps; Karmada's flag defaults to false because it
    needs an estimator service per member, which Flotilla does not)."""
    scheduler_estimator_timeout: float = 3.0
    """How long the accurate estimator waits for a member's first node and pod lists; past it the
    cluster is sized by its resource summary alone."""
    descheduling_interval: float = 120.0
    """Seconds between the descheduler's rounds over dynamically divided Deployments."""
    unschedulable_threshold: float = 300.0
    """How long a replica must have been unschedulable on a member before the descheduler takes it back."""
    hpa_sync_period: float = 15.0
    """Seconds between two looks of the FederatedHPA controller at each autoscaler."""
    hpa_tolerance: float = 0.1
    """The least change of the usage ratio (from 1.0) a FederatedHPA acts on."""
    hpa_downscale_stabilization: float = 300.0
    """Seconds a FederatedHPA looks back for a higher recommendation before scaling down."""
    hpa_cpu_initialization_period: float = 300.0
    """Seconds after a pod's start during which its CPU samples may be skipped."""
    hpa_initial_readiness_delay: float = 30.0
    """Seconds after a pod's start during which its readiness changes count as initial readiness."""
    cron_federated_hpa_clock_rate: float = 1.0
    """How many times faster than real time the CronFederatedHPA controller's clock runs (tests only)."""


def cluster_sync_mode(cluster: Mapping[str, Any]) -> str:
    """`Push` or `Pull`; a Cluster that does not say is Push (as Karmada's defaulting makes it)."""
    return str((cluster.get("spec") or {}).get("syncMode") or ClusterSyncMode.PUSH)


MANAGED_SELECTOR = f"{constants.MANAGED_BY_KARMADA_LABEL}=true"


MEMBER_HOT_OBJECTS = 64
"""Objects each compact member informer keeps decoded."""


class MemberInformers:
    """Informers on member clusters, one per (cluster, kind, selection), shared by the whole process.

    `informer` gives the informer of a kind that Works deliver: it lists and watches only objects
    labelled `karmada.io/managed=true` and calls every handler added with `add_handler` (before the
    first informer starts). `cache` gives an informer of every object of a kind (narrowed by a field
    selector) that calls no handler, for reading its cache. An informer starts the first time it is
    asked for, is replaced when the cluster's client changes (new endpoint or credentials) and is
    dropped when the Cluster goes (`forget`).
    """

    def __init__(self, members: MemberClientProvider, *, watch_timeout: int = 300) -> None:
        self._members = members
        self._watch_timeout = watch_timeout
        self._handlers: list[Handler] = []
        self._informers: dict[_InformerKey, Informer] = {}
        self._stopped = False

    def add_handler(self, handler: Handler) -> None:
        self._handlers.append(handler)

    async def informer(self, cluster: Mapping[str, Any], gvk: GroupVersionKind) -> Informer:
        """The running informer of managed `gvk` objects in `cluster`; `MemberCredentialsError` without
        credentials."""
        return await self._running(cluster, _InformerKey(_name(cluster), gvk, MANAGED_SELECTOR, ""))

    async def cache(
        self, cluster: Mapping[str, Any], gvk: GroupVersionKind, *, field_selector: str = ""
    ) -> Informer:
        """The running informer of every `gvk` object in `cluster` matching `field_selector`, calling
        no handler; `MemberCredentialsError` without credentials."""
        return await self._running(cluster, _InformerKey(_name(cluster), gvk, "", field_selector))

    async def _running(self, cluster: Mapping[str, Any], key: _InformerKey) -> Informer:
        client = await self._members.client_for(dict(cluster))
        existing = self._informers.get(key)
        if existing is not None and existing.client is client:
            return existing
        informer = Informer(
            client,
            key.gvk,
            label_selector=key.label_selector,
            field_selector=key.field_selector,
            watch_timeout=self._watch_timeout,
            # The objects Flotilla put in members grow with workloads: compact, with few decoded
            # (an informer per cluster and kind: a hundred clusters make two hundred of them).
            # Nodes and pods for the estimator are read whole at each look (`nodesnapshots`): dicts.
            compact=key.label_selector == MANAGED_SELECTOR,
            hot_objects=MEMBER_HOT_OBJECTS,
        )
        if key.label_selector == MANAGED_SELECTOR:
            for handler in self._handlers:
                informer.add_handler(handler)
        self._informers[key] = informer
        if not self._stopped:
            informer.start()
        if existing is not None:
            await existing.stop()
        return informer

    async def forget(self, cluster: str, *, caches_only: bool = False) -> None:
        """Stop the informers of a cluster that is gone (only those given by `cache`, if asked)."""
        keys = [
            key
            for key in self._informers
            if key.cluster == cluster and not (caches_only and key.label_selector == MANAGED_SELECTOR)
        ]
        await asyncio.gather(*(self._informers.pop(key).stop() for key in keys))

    async def stop(self) -> None:
        """Stop every informer; informers asked for afterwards are not started."""
        self._stopped = True
        informers = list(self._informers.values())
        self._informers.clear()
        await asyncio.gather(*(informer.stop() for informer in informers))


@dataclass(frozen=True, slots=True)
class _InformerKey:
    cluster: str
    gvk: GroupVersionKind
    label_selector: str
    field_selector: str


def _name(cluster: Mapping[str, Any]) -> str:
    return str((cluster.get("metadata") or {}).get("name") or "")


@dataclass(eq=False)
class ControllerContext:
    hub: ObjectClient
    """What controllers read and write on the hub besides their informers: reads, writes, status
    writes and discovery (`Client` in a running process, a fake of the roles in a unit test)."""
    informers: SharedInformers
    members: MemberClientProvider
    settings: ManagerSettings = field(default_factory=ManagerSettings)
    clock: Clock = field(default_factory=SystemClock)
    sync_mode: ClusterSyncMode = ClusterSyncMode.PUSH
    """The clusters whose members this process reaches: Push ones in the controller manager, its
    own Pull cluster in an agent."""
    interpreter_informers: SharedInformers | None = None
    """Where the interpretation's informers on customizations and interpreter webhooks live (None:
    `informers`). A Pull agent keeps them apart so that a hub which does not let it read those
    kinds (an agent registered before its RBAC named them) delays its controllers only briefly."""
    member_informers: MemberInformers = field(init=False)
    """The process's informers on member objects (stopped by the controllers that use them)."""
    _interpretation: Interpretation | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.member_informers = MemberInformers(self.members)

    def interpretation(self) -> Interpretation:
        """The hub's ResourceInterpreterCustomizations and interpreter webhooks over the built-in
        interpreter, shared by the process's controllers (their informers are created by the first
        controller that asks, in its constructor, so they are listed with the others). A Pull
        cluster's agent reads them too (its RBAC grants list/watch on both kinds)."""
        if self._interpretation is None:
            self._interpretation = Interpretation(self.interpreter_informers or self.informers, self.clock)
        return self._interpretation

    def reaches(self, cluster: Mapping[str, Any]) -> bool:
        """Whether this process delivers to (and reads) the member of `cluster`."""
        return cluster_sync_mode(cluster) == self.sync_mode


class HubController:
    """A level-based controller of the hub: informer events enqueue keys; `reconcile` re-reads state."""

    NAME: ClassVar[str] = "controller"
    WORKERS: ClassVar[int | None] = None

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.loop: ControllerLoop[Any] = ControllerLoop(
            self.NAME, self.reconcile, workers=self.WORKERS or ctx.settings.workers
        )

    def setup(self) -> None:
        """Register informer handlers (before the informers start)."""

    async def reconcile(self, key: Any) -> float | None:
        raise NotImplementedError

    def enqueue(self, key: Hashable) -> None:
        self.loop.enqueue(key)

    def metric_families(self) -> list[Metric]:
        """The controller's own metrics beside the reconcile counters every controller has (none here)."""
        return []

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
