"""What every hub controller shares: its context, a work queue loop, and informer wiring."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from flotilla.client import Client
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.controller import ControllerLoop
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import MemberClients


@dataclass(frozen=True, slots=True)
class ManagerSettings:
    """Tuning of the controller manager; defaults follow karmada-controller-manager."""

    cluster_status_interval: float = 10.0
    """Seconds between health probes and status collection of each Push cluster."""
    cluster_success_threshold: float = 30.0
    """A cluster must be healthy this long before it turns Ready again."""
    cluster_failure_threshold: float = 30.0
    """A cluster must be unhealthy this long before it turns NotReady."""
    workers: int = 5
    """Concurrent reconciles per controller (karmada's --concurrent-*-syncs)."""
    member_timeout: float = 10.0


@dataclass(eq=False)
class ControllerContext:
    hub: Client
    informers: SharedInformers
    members: MemberClients
    settings: ManagerSettings = field(default_factory=ManagerSettings)
    clock: Clock = field(default_factory=SystemClock)


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
