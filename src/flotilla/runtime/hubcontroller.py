"""What every hub controller shares: its context, a work queue loop, and informer wiring.

The same controllers run in two places: the controller manager, which reaches Push members itself,
and a Pull cluster's agent, which runs beside its member and reaches only that one. The context
says which (`sync_mode`): controllers that touch members leave the clusters of the other mode to
whoever runs there.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.client import Client
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.controller import ControllerLoop
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import MemberClientProvider


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


def cluster_sync_mode(cluster: Mapping[str, Any]) -> str:
    """`Push` or `Pull`; a Cluster that does not say is Push (as Karmada's defaulting makes it)."""
    return str((cluster.get("spec") or {}).get("syncMode") or ClusterSyncMode.PUSH)


@dataclass(eq=False)
class ControllerContext:
    hub: Client
    informers: SharedInformers
    members: MemberClientProvider
    settings: ManagerSettings = field(default_factory=ManagerSettings)
    clock: Clock = field(default_factory=SystemClock)
    sync_mode: ClusterSyncMode = ClusterSyncMode.PUSH
    """The clusters whose members this process reaches: Push ones in the controller manager, its
    own Pull cluster in an agent."""

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

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
